import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Drawing } from "../../../domain/topology/drawing.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What GetDrawing can answer instead of its result. */
export const GET_DRAWING_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, "DrawingNotFound"] as const;
export type GetDrawingError = Refusal<typeof GET_DRAWING_REFUSALS>;

/** One drawing of an opened project (GNS3 refuses a closed project's with 403). */
@injectable()
export class GetDrawing {
  constructor(private readonly lookup: ControllerLookup) {}

  async execute({ projectId, drawingId }: { readonly projectId: string; readonly drawingId: string }): Promise<E.Either<GetDrawingError, Drawing>> {
    const project = await this.lookup.openedProject(projectId);
    if (E.isLeft(project)) return project;
    const drawing = project.right.drawings.find((d) => d.drawingId === drawingId);
    return drawing === undefined ? E.left({ _tag: "DrawingNotFound", drawingId }) : E.right(drawing);
  }
}

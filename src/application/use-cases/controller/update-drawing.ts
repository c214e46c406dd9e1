import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type Drawing, type DrawingSettings, checkDrawingSettings, updateDrawing } from "../../../domain/topology/drawing.js";
import type { ProjectRepository } from "../../ports/repositories.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What UpdateDrawing can answer instead of its result. */
export const UPDATE_DRAWING_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, "DrawingNotFound", "InvalidConfiguration"] as const;
export type UpdateDrawingError = Refusal<typeof UPDATE_DRAWING_REFUSALS>;

/** Moves, turns, locks or redraws a drawing: what is given changes, the rest stays. */
@injectable()
export class UpdateDrawing {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId, drawingId, ...settings }: DrawingSettings & { readonly projectId: string; readonly drawingId: string }): Promise<E.Either<UpdateDrawingError, Drawing>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const project = await this.lookup.openedProject(projectId);
      if (E.isLeft(project)) return project;
      const index = project.right.drawings.findIndex((d) => d.drawingId === drawingId);
      const current = project.right.drawings[index];
      if (current === undefined) return E.left({ _tag: "DrawingNotFound", drawingId });
      const checked = checkDrawingSettings(settings);
      if (E.isLeft(checked)) return checked;
      const { drawing, svgChanged } = updateDrawing(current, checked.right);
      const drawings = [...project.right.drawings];
      drawings[index] = drawing;
      await this.projects.save({ ...project.right, drawings });
      this.events.publish({ kind: "drawing.updated", projectId, drawing, svgChanged });
      return E.right(drawing);
    });
  }
}

import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ProjectRepository } from "../../ports/repositories.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What DeleteDrawing can answer instead of its result. */
export const DELETE_DRAWING_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, "DrawingNotFound", "DrawingLocked"] as const;
export type DeleteDrawingError = Refusal<typeof DELETE_DRAWING_REFUSALS>;

/** Removes a drawing; a locked one stays (the user unlocks it first, as in GNS3). */
@injectable()
export class DeleteDrawing {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId, drawingId }: { readonly projectId: string; readonly drawingId: string }): Promise<E.Either<DeleteDrawingError, void>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const project = await this.lookup.openedProject(projectId);
      if (E.isLeft(project)) return project;
      const drawing = project.right.drawings.find((d) => d.drawingId === drawingId);
      if (drawing === undefined) return E.left({ _tag: "DrawingNotFound", drawingId });
      if (drawing.locked) return E.left({ _tag: "DrawingLocked", drawingId });
      await this.projects.save({ ...project.right, drawings: project.right.drawings.filter((d) => d !== drawing) });
      this.events.publish({ kind: "drawing.deleted", projectId, drawing });
      return E.right(undefined);
    });
  }
}

import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type Drawing, type DrawingSettings, checkDrawingSettings, createDrawing } from "../../../domain/topology/drawing.js";
import { CONFIGURATION_LIMITS } from "../../../domain/configuration/limits.js";
import type { ProjectRepository } from "../../ports/repositories.js";
import type { IdGenerator } from "../../ports/system.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What CreateDrawing can answer instead of its result. */
export const CREATE_DRAWING_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, "InvalidConfiguration", "ProjectFull"] as const;
export type CreateDrawingError = Refusal<typeof CREATE_DRAWING_REFUSALS>;

export interface CreateDrawingInput extends DrawingSettings {
  readonly projectId: string;
  readonly drawingId?: string | undefined;
}

/**
 * Adds a drawing to an opened project. As GNS3's add_drawing: a drawing id the project already has
 * answers that drawing, unchanged (a client retrying its POST does not make two).
 */
@injectable()
export class CreateDrawing {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.IdGenerator) private readonly ids: IdGenerator,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId, drawingId, ...settings }: CreateDrawingInput): Promise<E.Either<CreateDrawingError, Drawing>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const project = await this.lookup.openedProject(projectId);
      if (E.isLeft(project)) return project;
      const existing = drawingId === undefined ? undefined : project.right.drawings.find((d) => d.drawingId === drawingId);
      if (existing !== undefined) return E.right(existing);
      const checked = checkDrawingSettings(settings);
      if (E.isLeft(checked)) return checked;
      const limit = CONFIGURATION_LIMITS.drawingsPerProject;
      if (project.right.drawings.length >= limit) return E.left({ _tag: "ProjectFull", what: "drawings", limit });
      const drawing = createDrawing(projectId, drawingId ?? this.ids.uuid(), checked.right);
      await this.projects.save({ ...project.right, drawings: [...project.right.drawings, drawing] });
      this.events.publish({ kind: "drawing.created", projectId, drawing });
      return E.right(drawing);
    });
  }
}

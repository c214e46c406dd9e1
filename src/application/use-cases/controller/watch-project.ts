import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ControllerEvent, ProjectEvent, ProjectEvents } from "../../ports/project-events.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What WatchProject can answer instead of its result. */
export const WATCH_PROJECT_REFUSALS = ["ProjectNotFound"] as const;
export type WatchProjectError = Refusal<typeof WATCH_PROJECT_REFUSALS>;

/**
 * Listens to one project's events (GNS3's project notifications) until the returned function is
 * called. A closed project may be watched, as in GNS3: the web UI opens its socket before it opens
 * the project.
 */
@injectable()
export class WatchProject {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  async execute({ projectId, listener }: { readonly projectId: string; readonly listener: (event: ProjectEvent) => void }): Promise<E.Either<WatchProjectError, () => void>> {
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    return E.right(this.events.subscribeProject(projectId, listener));
  }
}

/** Listens to the controller's own events (projects made, opened, closed, deleted) until the returned function is called. */
@injectable()
export class WatchController {
  constructor(@inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents) {}

  execute({ listener }: { readonly listener: (event: ControllerEvent) => void }): () => void {
    return this.events.subscribeController(listener);
  }
}

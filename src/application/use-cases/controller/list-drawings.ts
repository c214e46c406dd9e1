import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Drawing } from "../../../domain/topology/drawing.js";
import type { Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What ListDrawings can answer instead of its result. */
export const LIST_DRAWINGS_REFUSALS = ["ProjectNotFound"] as const;
export type ListDrawingsError = Refusal<typeof LIST_DRAWINGS_REFUSALS>;

/**
 * A project's drawings, also when it is closed: GNS3 then answers them from its file, which holds
 * what the project's record holds here. The web UI draws the map only once this answers.
 */
@injectable()
export class ListDrawings {
  constructor(private readonly lookup: ControllerLookup) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<ListDrawingsError, readonly Drawing[]>> {
    const project = await this.lookup.project(projectId);
    return E.isLeft(project) ? project : E.right(project.right.drawings);
  }
}

import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Project } from "../../../domain/topology/project.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import type { TopologyFiles } from "../../ports/topology-files.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";
import { OpenProject } from "./open-project.js";

/** What LoadProject can answer instead of its result. */
export const LOAD_PROJECT_REFUSALS = ["NotLocalServer", "TopologyNotLoaded", "ProjectHasUnsupportedNodes"] as const;
type LoadProjectError = Refusal<typeof LOAD_PROJECT_REFUSALS>;

/**
 * POST /v2/projects/load, as GNS3 2.2 serves it: a local server reads the `.gns3` file at the path
 * given (the client's own file system is the server's), lists its project, kept in that file's
 * directory, and opens it. A project already listed under the file's id is opened as it is.
 */
@injectable()
export class LoadProject {
  constructor(
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.TopologyFiles) private readonly files: TopologyFiles,
    private readonly openProject: OpenProject,
  ) {}

  async execute({ path }: { readonly path: string }): Promise<E.Either<LoadProjectError, Project>> {
    if (!this.settings.local) return E.left({ _tag: "NotLocalServer", action: "load" });
    const read = await this.files.read(path);
    if (E.isLeft(read)) return read;
    const opened = await this.openProject.execute({ projectId: read.right.projectId });
    // The path names no project, so a project deleted between its read and its opening is the file's failure, not a 404.
    if (E.isRight(opened)) return opened;
    return E.left(opened.left._tag === "ProjectNotFound" ? { _tag: "TopologyNotLoaded", path, reason: "its project was deleted while it was being opened" } : opened.left);
  }
}

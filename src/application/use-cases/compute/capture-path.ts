import * as E from "fp-ts/lib/Either.js";
import type { ErrorOf } from "../../errors.js";
import type { HostNodeType } from "../../../domain/switching/node-kind.js";
import { nodeFilesFolder } from "../../../domain/topology/node.js";

/**
 * The directory of the compute role's projects, inside the projects path but apart from the
 * controller's (ADR 0060): the controller never reads it and never keeps a project in it, so the
 * compute API cannot reach a controller project, nor make one.
 */
const COMPUTE_PROJECTS_DIRECTORY = ".netemu-compute";

/** `<projects path>/.netemu-compute`: where compute projects (their uploads and captures) live. */
export function computeProjectsPath(projectsPath: string): string {
  return `${projectsPath}/${COMPUTE_PROJECTS_DIRECTORY}`;
}

/**
 * A host's working directory when the compute API makes it, laid out as GNS3's:
 * `<compute projects path>/<project id>/project-files/<kind's folder>/<node id>` (a cloud's under `builtin`).
 */
export function computeNodeDirectory(projectsPath: string, projectId: string, nodeType: HostNodeType, nodeId: string): string {
  return `${computeProjectsPath(projectsPath)}/${projectId}/project-files/${nodeFilesFolder(nodeType)}/${nodeId}`;
}

/**
 * Captures live in <compute projects path>/<project id>/project-files/captures, laid out as in GNS3.
 * A file name is a plain name: no directory part, no "..", no control characters, so it cannot escape.
 */
export function capturePath(projectsPath: string, projectId: string, fileName: string): E.Either<ErrorOf<"CaptureFileNameInvalid">, string> {
  // eslint-disable-next-line no-control-regex
  if (fileName === "." || fileName === ".." || /[/\\\u0000-\u001f]/.test(fileName) || fileName.length > 255) {
    return E.left({ _tag: "CaptureFileNameInvalid", fileName });
  }
  return E.right(`${computeProjectsPath(projectsPath)}/${projectId}/project-files/captures/${fileName}`);
}

import * as E from "fp-ts/lib/Either.js";
import type { ErrorOf } from "../../errors.js";

/**
 * Captures live in <projects path>/<project id>/project-files/captures, as in GNS3. A file name
 * is a plain name: no directory part, no "..", no control characters, so it cannot escape.
 */
export function capturePath(projectsPath: string, projectId: string, fileName: string): E.Either<ErrorOf<"CaptureFileNameInvalid">, string> {
  // eslint-disable-next-line no-control-regex
  if (fileName === "." || fileName === ".." || /[/\\\u0000-\u001f]/.test(fileName) || fileName.length > 255) {
    return E.left({ _tag: "CaptureFileNameInvalid", fileName });
  }
  return E.right(`${projectsPath}/${projectId}/project-files/captures/${fileName}`);
}

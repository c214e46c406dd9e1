import * as E from "fp-ts/lib/Either.js";

/**
 * A path inside a project's directory as a client names it (`project-files/captures/a.pcap`):
 * normalised like Python's os.path.normpath, and refused when it would leave the directory
 * (absolute, or more ".." than depth) or holds a NUL or control character, as GNS3 refuses it
 * with 403. The result has no "." or ".." parts and no leading or doubled "/".
 */
export function projectRelativePath(raw: string): E.Either<"outside", string> {
  // eslint-disable-next-line no-control-regex
  if (raw.startsWith("/") || /[\u0000-\u001f]/.test(raw)) return E.left("outside");
  const parts: string[] = [];
  for (const part of raw.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return E.left("outside");
      parts.pop();
    } else parts.push(part);
  }
  return E.right(parts.join("/"));
}

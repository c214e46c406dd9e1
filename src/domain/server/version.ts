import * as E from "fp-ts/lib/Either.js";

export interface VersionMismatch {
  readonly _tag: "VersionMismatch";
  readonly clientVersion: string;
  readonly serverVersion: string;
}

/** GNS3 clients demand an exact match (no "+build" stripping), as GNS3 2.2's `!=` compare does. */
export function checkClientVersion(clientVersion: string, serverVersion: string): E.Either<VersionMismatch, string> {
  return clientVersion === serverVersion ? E.right(serverVersion) : E.left({ _tag: "VersionMismatch", clientVersion, serverVersion });
}

import * as E from "fp-ts/lib/Either.js";
import { type RemoteConsole, parseRemoteConsole } from "../../../domain/switching/cloud-node.js";
import type { ErrorOf } from "../../errors.js";

/** GNS3's remote_console_* keys, each optional. */
export interface RemoteConsoleInput {
  readonly remoteConsoleHost?: string | undefined;
  readonly remoteConsolePort?: number | null | undefined;
  readonly remoteConsoleType?: string | undefined;
  readonly remoteConsoleHttpPath?: string | undefined;
}

/** A cloud's remote console: `base` with what the input gives, checked by the domain; errors name GNS3's keys. */
export function remoteConsoleOf(base: RemoteConsole, input: RemoteConsoleInput): E.Either<ErrorOf<"InvalidConfiguration">, RemoteConsole> {
  const raw = {
    host: input.remoteConsoleHost ?? base.host,
    port: input.remoteConsolePort === undefined ? base.port : input.remoteConsolePort,
    type: input.remoteConsoleType ?? base.type,
    httpPath: input.remoteConsoleHttpPath ?? base.httpPath,
  };
  return E.mapLeft((e: ErrorOf<"InvalidConfiguration">) => ({ ...e, field: e.field.replace(/^remote_console\.(\w+)$/, (_, k: string) => `remote_console_${k === "httpPath" ? "http_path" : k}`) }))(parseRemoteConsole(raw, "remote_console"));
}


import type * as E from "fp-ts/lib/Either.js";
import type { ErrorOf } from "../errors.js";

/** Time, identity and the host facts that the core must not read directly. */
export interface Clock {
  nowMs(): number;
}

export interface IdGenerator {
  uuid(): string;
}

export interface SystemInfo {
  readonly lines: readonly string[];
}

export interface SystemInfoProvider {
  collect(): Promise<SystemInfo>;
}

export interface DebugBundleFile {
  readonly name: string;
  readonly content: string;
}

export interface DebugBundleWriter {
  /** Replaces <config dir>/debug with the given files; answers the directory written. */
  write(files: readonly DebugBundleFile[]): Promise<E.Either<ErrorOf<"DebugBundleUnwritable">, string>>;
}

export interface Lifecycle {
  /** Starts the orderly stop of the whole server; resolves once it is scheduled. */
  requestShutdown(): void;
}

/** How much a logger says, most to least severe; silent says nothing. */
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

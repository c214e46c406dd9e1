import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { readArray, readInteger, readString } from "../../../domain/configuration/read.js";
import { itemOf } from "../../../domain/configuration/invalid-configuration.js";
import type { HostCommandResult } from "../../ports/namespace-hosts.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";
import { LinuxHostRuntime } from "./linux-host-runtime.js";

export const EXEC_IN_LINUX_HOST_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "InvalidConfiguration", "NodeNotStarted", "LinuxHostFailed"] as const;
export type ExecInLinuxHostError = Refusal<typeof EXEC_IN_LINUX_HOST_REFUSALS>;

/** A command to run inside a host: argv (no shell), a time bound in seconds, an output bound in bytes. */
export interface ExecInput {
  readonly argv: unknown;
  readonly timeout?: unknown;
  readonly maxOutputBytes?: unknown;
}

/** Bounds of exec: a command runs at most 10 minutes, its output is kept up to 16 MiB (stdout and stderr together). */
export const EXEC_LIMITS = { argvItems: 256, argLength: 65_536, defaultTimeoutSeconds: 30, maxTimeoutSeconds: 600, defaultOutputBytes: 1 << 20, maxOutputBytes: 16 << 20 } as const;

/** A command run inside a started Linux host (`POST .../netemu_host/nodes/{id}/exec`, ADR 0087). */
@injectable()
export class ExecInLinuxHost {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly runtime: LinuxHostRuntime,
  ) {}

  /** Runs a command inside a started host: argv as given (no shell), bounded in time and output. */
  execute({ projectId, nodeId, ...input }: ExecInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<ExecInLinuxHostError, HostCommandResult>> {
    // No lock: a command may run for minutes; a stop meanwhile kills it with the namespace.
    return (async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "netemu_host");
      if (E.isLeft(found)) return found;
      const argvList = readArray(input.argv, "argv", EXEC_LIMITS.argvItems);
      if (E.isLeft(argvList)) return argvList;
      if (argvList.right.length === 0) return E.left({ _tag: "InvalidConfiguration", field: "argv", rule: { rule: "min_length" as const, limit: 1 }, got: argvList.right });
      const argv: string[] = [];
      for (const [i, raw] of argvList.right.entries()) {
        const arg = readString(raw, itemOf("argv", i), i === 0 ? 1 : 0, EXEC_LIMITS.argLength);
        if (E.isLeft(arg)) return arg;
        argv.push(arg.right);
      }
      const timeout = input.timeout === undefined || input.timeout === null ? E.right(EXEC_LIMITS.defaultTimeoutSeconds) : readInteger(input.timeout, "timeout", 1, EXEC_LIMITS.maxTimeoutSeconds);
      if (E.isLeft(timeout)) return timeout;
      const bound = input.maxOutputBytes === undefined || input.maxOutputBytes === null ? E.right(EXEC_LIMITS.defaultOutputBytes) : readInteger(input.maxOutputBytes, "max_output_bytes", 1, EXEC_LIMITS.maxOutputBytes);
      if (E.isLeft(bound)) return bound;
      if (found.right.status !== "started") return E.left({ _tag: "NodeNotStarted", nodeName: found.right.name, nodeType: "netemu_host" });
      return this.runtime.exec(found.right, argv, timeout.right * 1000, bound.right);
    })();
  }
}

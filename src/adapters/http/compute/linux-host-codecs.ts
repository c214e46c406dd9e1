import { EXEC_LIMITS } from "../../../application/use-cases/compute/exec-in-linux-host.js";
import type { HostCommandResult } from "../../../application/ports/namespace-hosts.js";
import { jsonArray, jsonBoolean, jsonClosedObject, jsonInteger, jsonString, nullable } from "../schema.js";
import { Uuid } from "./codecs.js";

/** The bodies and answers of netemu's Linux host routes (ADR 0087), on the compute and the controller. */
/** One interface of a Linux host in a body: the domain parse checks each field (ADR 0087). */
export const HostInterfaceBody = jsonClosedObject("LinuxHostInterfaceBody", { name: jsonString({ minLength: 1, maxLength: 15 }) }, { address: nullable(jsonString()), mac: nullable(jsonString()) });
const hostSettings = { interfaces: nullable(jsonArray(HostInterfaceBody)), gateway: nullable(jsonString()) };

export const LinuxHostCreateBody = jsonClosedObject("LinuxHostCreate", { name: jsonString({ minLength: 1 }) }, { node_id: Uuid, ...hostSettings });
export const LinuxHostUpdateBody = jsonClosedObject("LinuxHostUpdate", {}, { name: nullable(jsonString({ minLength: 1 })), ...hostSettings });

/** A command run inside a host: its argv (no shell), a time bound in seconds, an output bound in bytes. */
export const ExecBody = jsonClosedObject(
  "HostExec",
  { argv: jsonArray(jsonString()) },
  { timeout: jsonInteger({ minimum: 1, maximum: EXEC_LIMITS.maxTimeoutSeconds }), max_output_bytes: jsonInteger({ minimum: 1, maximum: EXEC_LIMITS.maxOutputBytes }) },
);
/** What the command did: its exit code (null when a signal ended it), its output, whether a bound cut it. */
export const ExecAnswer = jsonClosedObject(
  "HostExecResult",
  { exit_code: nullable(jsonInteger({ nullable: true })), signal: nullable(jsonString()), stdout: jsonString(), stderr: jsonString(), timed_out: jsonBoolean, truncated: jsonBoolean },
  {},
);

export function presentExec(r: HostCommandResult) {
  return { exit_code: r.exitCode, signal: r.signal, stdout: r.stdout, stderr: r.stderr, timed_out: r.timedOut, truncated: r.truncated };
}


import type * as E from "fp-ts/lib/Either.js";

/**
 * Linux hosts for the user's own programs (ADR 0083, Mininet's model): a network namespace per host
 * with a real TCP/IP stack, its interfaces TAP devices that netemu's data plane opens itself
 * (nio_tap), addresses and a default route, commands run inside. Groundwork for netemu's own host
 * node kind: nothing above this port knows about `ip`.
 */

/** One interface of a host: a TAP made in netemu's namespace as `tap`, named `inside` once moved in. */
interface HostInterfaceSpec {
  /** The TAP device's name while netemu's data plane opens it (nio_tap's `tap_device`): at most 15 bytes. */
  readonly tap: string;
  /** Its name inside the host ("eth0"). */
  readonly inside: string;
  /** Addresses with their prefix length ("10.0.0.1/24", "fd00::1/64"). */
  readonly addresses: readonly string[];
  /** The interface's MAC address, when the lab gives one. */
  readonly macAddress?: string;
}

export interface HostSpec {
  /** The host's name; its namespace's name is derived from it (and is what `ip netns` lists). */
  readonly name: string;
  readonly interfaces: readonly HostInterfaceSpec[];
  /** The default route's gateway, if any. */
  readonly gateway?: string;
}

/** A host that exists: its namespace and the TAP devices made for it. */
export interface NamespaceHost {
  readonly name: string;
  readonly namespace: string;
  readonly taps: readonly string[];
}

/** Why a host could not be made, wired or used. */
export type HostProblem =
  /** Namespaces and TAP devices need root (CAP_SYS_ADMIN and CAP_NET_ADMIN): netemu does not run as root. */
  | { readonly problem: "not_root" }
  /** A host of that name, or a namespace or device of the name it would take, exists already. */
  | { readonly problem: "exists"; readonly what: string }
  | { readonly problem: "not_found"; readonly name: string }
  /** A name that cannot be a namespace's or an interface's. */
  | { readonly problem: "invalid_name"; readonly name: string }
  /** A step failed: the command and what it said. Whatever the step had made is removed. */
  | { readonly problem: "command_failed"; readonly command: string; readonly detail: string };

/** What a command run inside a host did, its output cut at the bound given. */
export interface HostCommandResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly truncated: boolean;
}

export interface HostCommandOptions {
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

export interface NamespaceHosts {
  /**
   * Makes the host's namespace (loopback up) and its TAP devices, persistent, in netemu's own
   * namespace, where the data plane opens them as nio_tap. Recorded before anything is made, so that
   * a netemu killed meanwhile removes them at its next start.
   */
  create(spec: HostSpec): Promise<E.Either<HostProblem, NamespaceHost>>;
  /**
   * Once the data plane holds its TAPs open: moves them into the host's namespace, names them, gives
   * them their MAC and addresses, brings them up and sets the default route.
   */
  plug(name: string): Promise<E.Either<HostProblem, void>>;
  /** Runs `argv` inside the host (no shell), bounded in time and output. */
  exec(name: string, argv: readonly string[], options: HostCommandOptions): Promise<E.Either<HostProblem, HostCommandResult>>;
  /** Removes the host's namespace and TAP devices (whatever of them is left) and its record. */
  destroy(name: string): Promise<E.Either<HostProblem, void>>;
  list(): readonly NamespaceHost[];
  /** Removes every host this netemu made (shutdown). */
  close(): Promise<void>;
  /**
   * Removes what a netemu that is gone (killed) recorded and left behind: only the namespaces and
   * devices in its records. Called at start; answers what was removed.
   */
  removeLeftovers(): Promise<readonly string[]>;
}

import * as E from "fp-ts/lib/Either.js";

/** The oldest VPCS netemu runs: Debian's 0.5b2, whose options and daemon were checked (ADR 0088). */
const MINIMUM = [0, 5] as const;
/** From 0.6.1 VPCS stays in the foreground when told (`-F`); older ones always daemonize with `-p`. */
const FOREGROUND_FLAG_FROM = [0, 6, 1] as const;
/** From 0.8b VPCS relays frames between its instances unless told not to (`-R`). */
const RELAY_FLAG_FROM = [0, 8] as const;

export interface VpcsVersion {
  readonly text: string;
  readonly parts: readonly number[];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The version `vpcs -v` prints ("Welcome to Virtual PC Simulator, version 0.8.3"). GNS3 wants 0.6.1 (for
 * `-F`); netemu also runs Debian's 0.5b2, which daemonizes, by finding its daemon (ADR 0088). Older ones
 * were never seen: refused.
 */
export function parseVpcsVersion(output: string): E.Either<string, VpcsVersion> {
  const match = /Welcome to Virtual PC Simulator, version ([0-9a-z.]+)/.exec(output);
  if (match === null) return E.left("it does not print a VPCS version (`-v`)");
  const text = match[1] as string;
  const parts = text.split(/[.a-z]+/).filter((p) => p !== "").map(Number);
  if (compare(parts, MINIMUM) < 0) return E.left(`VPCS ${text} is too old: netemu needs 0.5b2 or later (GNS3 needs 0.6.1)`);
  return E.right({ text, parts });
}

interface VpcsLaunch {
  /** The telnet console's TCP port (VPCS listens on it itself). */
  readonly consolePort: number;
  /** The MAC offset: the node's MAC is 00:50:79:66:68:<macId+1>. */
  readonly macId: number;
  /** VPCS's own UDP port, and netemu's end of the tunnel it sends to. */
  readonly localPort: number;
  readonly remotePort: number;
  readonly remoteHost: string;
  /** The startup script's file name in the working directory, when there is one. */
  readonly script?: string;
}

/** How a VPCS runs: in the foreground as netemu's child, or as a daemon netemu must find (before 0.6.1). */
interface VpcsCommand {
  readonly args: readonly string[];
  readonly daemonizes: boolean;
}

/**
 * VPCS's arguments, as GNS3's compute builds them (`vpcs_vm.py` `_build_command`). A VPCS before 0.6.1
 * has no `-F`: with `-p` it forks a daemon (the console) and an instance (the UDP socket), and the
 * command it was started with exits at once.
 */
export function vpcsCommand(version: VpcsVersion, launch: VpcsLaunch): VpcsCommand {
  const daemonizes = compare(version.parts, FOREGROUND_FLAG_FROM) < 0;
  const args = ["-p", String(launch.consolePort), "-m", String(launch.macId), "-i", "1"];
  if (!daemonizes) args.push("-F");
  if (compare(version.parts, RELAY_FLAG_FROM) >= 0) args.push("-R");
  args.push("-s", String(launch.localPort), "-c", String(launch.remotePort), "-t", launch.remoteHost);
  if (launch.script !== undefined) args.push(launch.script);
  return { args, daemonizes };
}

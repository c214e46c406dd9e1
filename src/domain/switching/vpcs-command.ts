import * as E from "fp-ts/lib/Either.js";

/** The oldest VPCS GNS3 2.2 runs (`-F`, stay in the foreground, came with 0.6.1). */
const MINIMUM = [0, 6, 1] as const;
/** From 0.8b VPCS relays frames between its instances unless told not to (`-R`). */
const RELAY_FLAG_FROM = [0, 8] as const;

interface VpcsVersion {
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
 * The version `vpcs -v` prints ("Welcome to Virtual PC Simulator, version 0.8.3"), checked as GNS3
 * checks it: at least 0.6.1. Debian's 0.5b2 has no `-F` and daemonizes, so its pid could not be kept.
 */
export function parseVpcsVersion(output: string): E.Either<string, VpcsVersion> {
  const match = /Welcome to Virtual PC Simulator, version ([0-9a-z.]+)/.exec(output);
  if (match === null) return E.left("it does not print a VPCS version (`-v`)");
  const text = match[1] as string;
  const parts = text.split(/[.a-z]+/).filter((p) => p !== "").map(Number);
  if (compare(parts, MINIMUM) < 0) return E.left(`VPCS ${text} is too old: netemu, as GNS3, needs 0.6.1 or later (it stays in the foreground with -F)`);
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

/** VPCS's arguments, as GNS3's compute builds them (`vpcs_vm.py` `_build_command`). */
export function vpcsArguments(version: VpcsVersion, launch: VpcsLaunch): string[] {
  const args = ["-p", String(launch.consolePort), "-m", String(launch.macId), "-i", "1", "-F"];
  if (compare(version.parts, RELAY_FLAG_FROM) >= 0) args.push("-R");
  args.push("-s", String(launch.localPort), "-c", String(launch.remotePort), "-t", launch.remoteHost);
  if (launch.script !== undefined) args.push(launch.script);
  return args;
}

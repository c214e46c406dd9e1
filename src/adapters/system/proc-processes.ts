import { accessSync, constants, readFileSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

/**
 * A process as netemu knows it: a pid is signalled only while it still names the same process (the
 * same start time and program), so a pid the kernel has given to another process since is left alone.
 */
export interface KnownProcess {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot. */
  readonly started: string;
  /** Its program, as /proc/<pid>/exe names it. */
  readonly exe: string;
}

interface Stat {
  readonly state: string;
  readonly ppid: number;
  readonly started: string;
}

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: the fields after the last ")" are fixed.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0] as string, ppid: Number(fields[1]), started: fields[19] as string };
  } catch {
    return undefined;
  }
}

function link(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** The process with this pid now, undefined when there is none (a zombie has ended: it counts as none). */
export function knownProcess(pid: number): KnownProcess | undefined {
  const s = stat(pid);
  const exe = link(`/proc/${pid}/exe`);
  if (s === undefined || exe === undefined || s.state === "Z") return undefined;
  return { pid, started: s.started, exe };
}

/** Whether the process still runs: same pid, same start time, same program. */
export function stillRuns(p: KnownProcess): boolean {
  const now = knownProcess(p.pid);
  return now !== undefined && now.started === p.started && now.exe === p.exe;
}

/** Sends a signal to the process only while it is still the one known; answers whether it was sent. */
export function signalKnown(p: KnownProcess, signal: NodeJS.Signals): boolean {
  if (!stillRuns(p)) return false;
  try {
    process.kill(p.pid, signal);
    return true;
  } catch {
    return false;
  }
}

export function parentOf(pid: number): number | undefined {
  return stat(pid)?.ppid;
}

/** The file a program name runs (PATH searched as execvp does), its links resolved; undefined when none. */
export function programFile(program: string): string | undefined {
  const candidates = program.includes("/") ? [resolve(program)] : (process.env["PATH"] ?? "").split(delimiter).filter(isAbsolute).map((d) => join(d, program));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return realpathSync(file);
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

/** The socket inodes bound on a local UDP port (IPv4 and IPv6), from /proc/net/udp{,6}. */
function udpInodes(port: number): Set<string> {
  return socketInodes(["/proc/net/udp", "/proc/net/udp6"], port);
}

/** The inodes of the sockets listening on a local TCP port (state 0A, LISTEN), from /proc/net/tcp{,6}. */
function tcpListenInodes(port: number): Set<string> {
  return socketInodes(["/proc/net/tcp", "/proc/net/tcp6"], port, "0A");
}

function socketInodes(tables: readonly string[], port: number, state?: string): Set<string> {
  const inodes = new Set<string>();
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of tables) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] local address:port, f[3] state, f[9] inode.
      if (f.length > 9 && f[1]?.endsWith(`:${hex}`) && (state === undefined || f[3] === state) && f[9] !== "0") inodes.add(f[9] as string);
    }
  }
  return inodes;
}

/** The socket inodes a process holds open. */
function socketsOf(pid: number): Set<string> {
  const held = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return held;
  }
  for (const fd of fds) {
    const inode = /^socket:\[(\d+)\]$/.exec(link(`/proc/${pid}/fd/${fd}`) ?? "")?.[1];
    if (inode !== undefined) held.add(inode);
  }
  return held;
}

/**
 * Whether these processes (a VPCS and the console child it forked) listen on the TCP port and hold the
 * UDP port bound: a VPCS that does has passed each step that makes it exit at its start (its arguments,
 * its console's bind, its UDP socket).
 */
export function listenOn(pids: readonly number[], tcpPort: number, udpPort: number): boolean {
  const tcp = tcpListenInodes(tcpPort);
  const udp = udpInodes(udpPort);
  if (tcp.size === 0 || udp.size === 0) return false;
  const held = pids.map(socketsOf);
  return held.some((h) => [...h].some((i) => tcp.has(i))) && held.some((h) => [...h].some((i) => udp.has(i)));
}

/**
 * The processes running `exe` in `cwd`, and which of them holds a socket bound on the UDP `port`: how a
 * VPCS that daemonized is found (ADR 0088). Only processes of that program in that directory are looked at.
 */
export function processesOf(exe: string, cwd: string, port: number): { readonly all: readonly number[]; readonly boundPort: readonly number[] } {
  const inodes = udpInodes(port);
  const all: number[] = [];
  const boundPort: number[] = [];
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return { all, boundPort };
  }
  for (const entry of pids) {
    const pid = Number(entry);
    if (link(`/proc/${pid}/exe`) !== exe || link(`/proc/${pid}/cwd`) !== cwd || stat(pid)?.state === "Z") continue;
    all.push(pid);
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    if (fds.some((fd) => inodes.has(/^socket:\[(\d+)\]$/.exec(link(`/proc/${pid}/fd/${fd}`) ?? "")?.[1] ?? ""))) boundPort.push(pid);
  }
  return { all, boundPort };
}

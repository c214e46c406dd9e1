import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createSocket } from "node:dgram";
import { existsSync, readdirSync, readFileSync } from "node:fs";

/**
 * A bed of real TCP/IP hosts for end-to-end tests (ADR 0049, docs/host-bed.md): each host is a Linux
 * network namespace with one TAP interface, and a socat process in the root namespace carries that
 * TAP's frames, one per UDP datagram, to and from a UDP NIO of netemu on 127.0.0.1.
 *
 *   const bed = await HostBed.open();                     // cleans what a crashed run left
 *   const a = await bed.addHost("10.12.0.1/24", netemuLport);   // then give netemu's NIO rport = a.udpPort
 *   await a.ping("10.12.0.2", { count: 3 });              // { transmitted, received, rttsMs }
 *   await bed.iperf3(a, b, { seconds: 2 });               // TCP a → b; { udp }, { reverse } too
 *   await bed.close();                                    // in after/afterEach: ends socat, removes namespaces
 *
 * Needs root, /dev/net/tun, `ip` (iproute2), `socat`, `ping` (iputils-ping) and `iperf3`:
 * `requireHostBed(this)` in a `before` skips without them, or fails under CI=true.
 */

/** Names are `netemu-bed-<pid>-<n>` (namespaces) and `nb<pid>t<n>` (TAPs, at most 15 characters). */
const NAMESPACE_PATTERN = /^netemu-bed-(\d+)-\d+$/;
const TAP_PATTERN = /^nb(\d+)t\d+$/;

/**
 * socat's UDP socket buffers (the kernel caps them at net.core.rmem_max / wmem_max): the default
 * 208 KiB lost up to 0.5 % of a 50 Mbit/s iperf3 UDP stream on a busy 2-core machine.
 */
const SOCKET_BUFFER = 4 * 1024 * 1024;

const TOOLS: readonly { readonly tool: string; readonly pkg: string }[] = [
  { tool: "ip", pkg: "iproute2" },
  { tool: "socat", pkg: "socat" },
  { tool: "ping", pkg: "iputils-ping" },
  { tool: "iperf3", pkg: "iperf3" },
];

/** What the bed lacks on this machine, each with how to get it; empty when it can run. */
export function hostBedShortcomings(): string[] {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push("root (network namespaces and TAP interfaces need it: run the tests as root)");
  if (!existsSync("/dev/net/tun")) missing.push("/dev/net/tun (load the tun module: modprobe tun)");
  const absent = TOOLS.filter(({ tool }) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  if (absent.length > 0) {
    missing.push(`${absent.map((t) => t.tool).join(", ")} (apt-get update && apt-get install -y ${absent.map((t) => t.pkg).join(" ")})`);
  }
  return missing;
}

/** Skips the suite, saying what is missing and how to install it; under CI=true a missing piece fails instead. */
export function requireHostBed(ctx: Mocha.Context): void {
  const missing = hostBedShortcomings();
  if (missing.length === 0) return;
  const message = `the host bed cannot run: it lacks ${missing.join("; ")}`;
  if (process.env["CI"] === "true") throw new Error(`${message} (CI=true: a missing tool fails the run)`);
  console.log(`      skipped: ${message}`);
  ctx.skip();
}

export interface CommandResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command without blocking the event loop (netemu may be forwarding in this very process), and
 * ends it by pid after `timeoutMs`.
 */
export function runCommand(file: string, args: readonly string[], timeoutMs = 10_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      resolve({ status, stdout, stderr });
    });
  });
}

async function mustRun(file: string, args: readonly string[], timeoutMs = 10_000): Promise<string> {
  const r = await runCommand(file, args, timeoutMs);
  if (r.status !== 0) throw new Error(`${file} ${args.join(" ")} failed (status ${r.status}): ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function tryKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits up to `ms` for a child to exit; answers whether it did. */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Ends a child by its pid: SIGTERM, then SIGKILL after a second. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  if (await exited(child, 0)) return;
  tryKill(child.pid, "SIGTERM");
  if (await exited(child, 1000)) return;
  tryKill(child.pid, "SIGKILL");
  await exited(child, 1000);
}

/**
 * Removes what an earlier run of the bed left when its process died: namespaces and root-namespace
 * TAPs whose names carry a pid that no longer runs, and socat processes still serving such a TAP.
 * Answers the names it removed.
 */
async function removeLeftovers(): Promise<string[]> {
  const removed: string[] = [];
  const dead = (name: string, pattern: RegExp): boolean => {
    const m = pattern.exec(name);
    return m !== null && Number(m[1]) !== process.pid && !isAlive(Number(m[1]));
  };
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number)) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    if (!/(^|\/)socat$/.test(argv[0] ?? "")) continue;
    const tap = /tun-name=(nb\d+t\d+)/.exec(argv.join(" "))?.[1];
    if (tap !== undefined && dead(tap, TAP_PATTERN)) {
      tryKill(pid, "SIGKILL");
      removed.push(`socat ${pid} (${tap})`);
    }
  }
  for (const name of (await mustRun("ip", ["netns", "list"])).split("\n").map((l) => l.split(" ")[0] ?? "")) {
    if (!dead(name, NAMESPACE_PATTERN)) continue;
    await mustRun("ip", ["netns", "del", name]);
    removed.push(name);
  }
  for (const name of existsSync("/sys/class/net") ? readdirSync("/sys/class/net") : []) {
    if (!dead(name, TAP_PATTERN)) continue;
    await runCommand("ip", ["link", "del", name]);
    removed.push(name);
  }
  return removed;
}

/** A free UDP port on 127.0.0.1 (bind port 0, read it, close); socat binds it right after. */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket("udp4");
    socket.once("error", reject);
    socket.bind(0, "127.0.0.1", () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

export interface PingOptions {
  readonly count?: number;
  /** Seconds between echoes (ping -i; below 0.2 only as root, which the bed is). */
  readonly intervalS?: number;
  /** Seconds to wait for each reply (ping -W). */
  readonly waitS?: number;
  /** Payload bytes (ping -s). */
  readonly size?: number;
}

export interface PingResult {
  readonly transmitted: number;
  readonly received: number;
  /** One round-trip time per reply, in the order they came. */
  readonly rttsMs: readonly number[];
  readonly output: string;
}

/** Parses iputils ping's output: its summary line and each reply's `time=`. */
function parsePing(output: string): PingResult {
  const summary = /(\d+) packets transmitted, (\d+) received/.exec(output);
  if (summary === null) throw new Error(`ping printed no summary: ${output}`);
  const rttsMs = [...output.matchAll(/bytes from .*? time=([\d.]+) ms/g)].map((m) => Number(m[1]));
  return { transmitted: Number(summary[1]), received: Number(summary[2]), rttsMs, output };
}

/** One host: a network namespace with a TAP `tap` holding `ip`, bridged by socat to netemu's `peerPort`. */
export class BedHost {
  constructor(
    /** The network namespace's name. */
    readonly namespace: string,
    readonly tap: string,
    /** The host's IPv4 address, without the prefix length. */
    readonly ip: string,
    readonly mac: string,
    /** socat's UDP port on 127.0.0.1: the rport of netemu's NIO. */
    readonly udpPort: number,
    /** netemu's UDP port (the NIO's lport) socat sends to. */
    readonly peerPort: number,
    private readonly socat: ChildProcess,
  ) {}

  /** Runs a command inside the host's namespace. */
  exec(args: readonly string[], timeoutMs = 10_000): Promise<CommandResult> {
    return runCommand("ip", ["netns", "exec", this.namespace, ...args], timeoutMs);
  }

  /** Starts a long-running command inside the namespace; the caller reads (or resumes) its stdout and stderr and ends it by pid. */
  spawn(args: readonly string[]): ChildProcess {
    return spawn("ip", ["netns", "exec", this.namespace, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  }

  async ping(target: string, options: PingOptions = {}): Promise<PingResult> {
    const count = options.count ?? 3;
    const interval = options.intervalS ?? 0.2;
    const wait = options.waitS ?? 1;
    const args = ["ping", "-n", "-c", String(count), "-i", String(interval), "-W", String(wait)];
    if (options.size !== undefined) args.push("-s", String(options.size));
    const r = await this.exec([...args, target], (count * interval + wait + 5) * 1000);
    return parsePing(r.stdout);
  }

  /** The MAC address the host's ARP cache holds for `ip`, or undefined when it has none (or an incomplete entry). */
  async neighbour(ip: string): Promise<string | undefined> {
    const r = await this.exec(["ip", "neigh", "show", ip, "dev", this.tap]);
    return /lladdr ([0-9a-f:]{17})/.exec(r.stdout)?.[1];
  }

  /**
   * Fixes the MAC the host uses for `ip` (a permanent neighbour entry): a test that drops frames on
   * purpose for seconds (a link down 2 s every 10 s) must not see ARP's own probes fall in a window and
   * take probes outside it with them. ICMP never confirms a neighbour, so ping alone ages an entry to
   * STALE after ~30 s and sends ARP again.
   */
  async pinNeighbour(ip: string, mac: string): Promise<void> {
    const r = await this.exec(["ip", "neigh", "replace", ip, "lladdr", mac, "dev", this.tap, "nud", "permanent"]);
    if (r.status !== 0) throw new Error(`ip neigh replace ${ip} in ${this.namespace} failed: ${r.stderr.trim()}`);
  }

  /** Ends socat by its pid; the namespace (and the TAP in it) goes with `HostBed.close`. */
  stopBridge(): Promise<void> {
    return stopChild(this.socat);
  }

  /** socat's pid. */
  get bridgePid(): number | undefined {
    return this.socat.pid;
  }

  /** Whether socat still runs (it ends on a fatal error of its TAP or socket). */
  get bridged(): boolean {
    return this.socat.exitCode === null && this.socat.signalCode === null;
  }
}

export interface Iperf3Options {
  /** Test length in seconds (iperf3 -t); default 2. With `blocks`, how long the run is expected to take (its time limit is this + 8 s). */
  readonly seconds?: number;
  /** Sends exactly this many blocks (iperf3 -k: datagrams for UDP) instead of running for `seconds`. */
  readonly blocks?: number;
  /** UDP at this many bits per second (iperf3 -u -b); TCP when absent. */
  readonly udpBitrate?: number;
  /** Datagram size for UDP (iperf3 -l). */
  readonly udpLength?: number;
  /** The server sends and the client receives (iperf3 -R). */
  readonly reverse?: boolean;
  /** TCP port of the server (default 5201, iperf3's). */
  readonly port?: number;
  /** Runs, in all, when iperf3 stalls and prints nothing (default 3; see `HostBed.iperf3`). */
  readonly attempts?: number;
  /**
   * Socket buffers (iperf3 -w, e.g. "4M"): a receive window that does not cap TCP, so its cwnd fills a long
   * queue. UDP runs get 4 MiB (socat's) when absent, so the receiver's socket never adds losses of its own.
   */
  readonly window?: string;
  /** TCP's congestion control for the test's sockets (iperf3 -C, e.g. "cubic"); the host's default when absent. */
  readonly congestion?: string;
  /** Parallel streams (iperf3 -P): the end's sums cover them all, `json.end.streams` each one. */
  readonly parallel?: number;
}

export interface Iperf3UdpFigures {
  /** Datagrams the sender sent. */
  readonly sentPackets: number;
  /** Datagrams the receiver expected (the highest sequence number it saw), lost and received out of order, as it counts them. */
  readonly packets: number;
  readonly lostPackets: number;
  readonly lostPercent: number;
  readonly outOfOrder: number;
  readonly jitterMs: number;
}

export interface Iperf3Result {
  /** Bits per second the receiver got (end.sum_received). */
  readonly receivedBps: number;
  /** Bits per second the sender sent (end.sum_sent). */
  readonly sentBps: number;
  /** UDP only: the receiver's counts, whichever side received (the server, or the client with `reverse`). */
  readonly udp?: Iperf3UdpFigures;
  /** The client's whole `iperf3 -J` document; the server's is in its `server_output_json`. */
  readonly json: any;
  /** How many runs it took (more than 1 when iperf3 stalled; see `HostBed.iperf3`). */
  readonly attempts: number;
  /**
   * When the successful attempt's client ran, on this process's clock (performance.timeOrigin +
   * performance.now(), netemu's own): from just before it was started to just after it exited. Its
   * intervals count from its test's start, somewhere between.
   */
  readonly client: { readonly startedMs: number; readonly endedMs: number };
}

/**
 * The summary of a client's `iperf3 -J --get-server-output` document (iperf 3.12's layout), the
 * server run with -J too. iperf 3.12 exits 0 with -J even when it fails: its `error` field tells.
 * Out-of-order counts come from the receiver's own document: iperf3 does not send them back to a
 * sending client.
 */
function summariseIperf3(json: any, udp: boolean, reverse: boolean): Omit<Iperf3Result, "attempts" | "client"> {
  if (typeof json?.error === "string") throw new Error(`iperf3 failed: ${json.error}`);
  const end = json?.end;
  if (end?.sum_received === undefined || end?.sum_sent === undefined) {
    throw new Error(`iperf3 -J has no end.sum_received and end.sum_sent: ${JSON.stringify(json).slice(0, 500)}`);
  }
  const result = { receivedBps: end.sum_received.bits_per_second as number, sentBps: end.sum_sent.bits_per_second as number, json };
  if (!udp) return result;
  const receiver = reverse ? json : json.server_output_json;
  const received = receiver?.end?.sum_received;
  if (received === undefined) throw new Error(`iperf3 gave no receiver's document: ${JSON.stringify(json).slice(0, 500)}`);
  const streams: any[] = receiver.end.streams ?? [];
  return {
    ...result,
    udp: {
      sentPackets: end.sum_sent.packets,
      packets: received.packets,
      lostPackets: received.lost_packets,
      lostPercent: received.lost_percent,
      outOfOrder: streams.reduce((n: number, st: any) => n + (st.udp?.out_of_order ?? 0), 0),
      jitterMs: received.jitter_ms,
    },
  };
}

export interface HostOptions {
  /** Locally administered by default: 02:12:<pid bytes>:<n>. */
  readonly mac?: string;
  /** socat's own UDP port; a free one by default. */
  readonly udpPort?: number;
}

/** The namespaces of one test suite; `close` removes them all, whatever happened. */
export class HostBed {
  private readonly hosts: BedHost[] = [];
  private readonly children = new Set<ChildProcess>();
  private next = 0;

  private constructor(readonly removedLeftovers: readonly string[]) {}

  /** Cleans what crashed runs left (see `removeLeftovers`), then answers an empty bed. */
  static async open(): Promise<HostBed> {
    return new HostBed(await removeLeftovers());
  }

  /**
   * Adds a host with `cidr` (e.g. 10.12.0.1/24) whose frames go to netemu's UDP port `peerPort` on
   * 127.0.0.1; the host's own UDP port (`udpPort`) is the rport to give netemu's NIO.
   */
  async addHost(cidr: string, peerPort: number, options: HostOptions = {}): Promise<BedHost> {
    const n = this.next++;
    const namespace = `netemu-bed-${process.pid}-${n}`;
    const tap = `nb${process.pid}t${n}`;
    const mac = options.mac ?? `02:12:${hex(process.pid >> 8)}:${hex(process.pid)}:${hex(n >> 8)}:${hex(n)}`;
    await mustRun("ip", ["netns", "add", namespace]);
    try {
      const inside = (...args: string[]): Promise<string> => mustRun("ip", ["netns", "exec", namespace, ...args]);
      // IPv6 off before the TAP arrives (it takes the namespace's defaults): no router solicitations or
      // DAD frames to count among the test's own.
      await inside("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
      const { socat, udpPort, log } = await this.startBridge(tap, peerPort, options.udpPort);
      const host = new BedHost(namespace, tap, cidr.split("/")[0] as string, mac, udpPort, peerPort, socat);
      this.hosts.push(host);
      try {
        await mustRun("ip", ["link", "set", tap, "netns", namespace]);
        await inside("ip", "link", "set", "lo", "up");
        await inside("ip", "link", "set", tap, "address", mac);
        await inside("ip", "addr", "add", cidr, "dev", tap);
        await inside("ip", "link", "set", tap, "up");
      } catch (e) {
        // The TAP lives only as long as socat holds it: say what became of socat.
        await exited(socat, 200);
        const state = host.bridged ? "socat still runs" : `socat ended (${socat.exitCode ?? socat.signalCode}): ${log().trim()}`;
        throw new Error(`${(e as Error).message}; ${state}`);
      }
      return host;
    } catch (e) {
      await runCommand("ip", ["netns", "del", namespace]);
      throw e;
    }
  }

  /**
   * socat creates the TAP in the root namespace, where its UDP socket must live (netemu listens on the
   * root namespace's 127.0.0.1); the caller then moves the TAP into the host's namespace, and socat's
   * descriptor keeps serving it there. A port taken between probing and binding gets another try.
   */
  private async startBridge(tap: string, peerPort: number, fixedPort: number | undefined): Promise<{ socat: ChildProcess; udpPort: number; log: () => string }> {
    let failure = "";
    for (let attempt = 0; attempt < (fixedPort === undefined ? 3 : 1); attempt++) {
      const udpPort = fixedPort ?? (await freeUdpPort());
      const socat = spawn(
        "socat",
        [`TUN,tun-type=tap,tun-name=${tap},iff-no-pi`, `UDP:127.0.0.1:${peerPort},bind=127.0.0.1:${udpPort},rcvbuf=${SOCKET_BUFFER},sndbuf=${SOCKET_BUFFER}`],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      this.children.add(socat);
      let stderr = "";
      socat.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        if (socat.exitCode !== null || socat.signalCode !== null) break;
        if (existsSync(`/sys/class/net/${tap}`)) return { socat, udpPort, log: () => stderr };
        await sleep(20);
      }
      await stopChild(socat);
      this.children.delete(socat);
      failure = stderr.trim() || `socat made no TAP ${tap} within 5 s`;
    }
    throw new Error(`socat could not bridge ${tap} to 127.0.0.1:${peerPort}: ${failure}`);
  }

  /**
   * Runs `iperf3 -c` in `client` against `iperf3 -s -1` in `server` and answers the client's JSON
   * summary. TCP by default; `udpBitrate` for UDP; `reverse` makes the server the sender.
   *
   * iperf 3.12 opens a UDP stream with one datagram each way and no retry (esnet/iperf#351): when a
   * lossy link drops either, client and server wait for ever, or one of them gives up with "unable to
   * read from stream socket". An attempt that prints nothing within the test's length + 8 s is ended
   * by pid; it, or one whose error names the stream, is run again with a fresh server, up to
   * `attempts` (default 3) in all; the result says how many it took. Any other failure iperf3 reports
   * (such as "unable to connect to server", for its TCP control connection) is thrown at once.
   */
  async iperf3(client: BedHost, server: BedHost, options: Iperf3Options = {}): Promise<Iperf3Result> {
    const attempts = options.attempts ?? 3;
    const stalls: string[] = [];
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const { json, startedMs, endedMs } = await this.iperf3Once(client, server, options);
      if (typeof json === "string") {
        stalls.push(json);
        continue;
      }
      if (typeof json?.error === "string" && /stream/.test(json.error)) {
        stalls.push(json.error);
        continue;
      }
      return { ...summariseIperf3(json, options.udpBitrate !== undefined, options.reverse === true), attempts: attempt, client: { startedMs, endedMs } };
    }
    throw new Error(`iperf3 from ${client.ip} to ${server.ip} could not open its stream in ${attempts} attempts: ${stalls.join("; ")}`);
  }

  /** One client run against a fresh one-off server: its JSON document, or why it printed none, and when the client ran. */
  private async iperf3Once(client: BedHost, server: BedHost, options: Iperf3Options): Promise<{ json: any; startedMs: number; endedMs: number }> {
    const seconds = options.seconds ?? 2;
    const port = options.port ?? 5201;
    const daemon = server.spawn(["iperf3", "-s", "-1", "-J", "-p", String(port)]);
    this.children.add(daemon);
    // Its -J document reaches the client through --get-server-output; drain the pipes so it never blocks.
    daemon.stdout?.resume();
    daemon.stderr?.resume();
    try {
      await this.waitForListener(server, port, daemon);
      const length = options.blocks === undefined ? ["-t", String(seconds)] : ["-k", String(options.blocks)];
      const args = ["iperf3", "-c", server.ip, "-p", String(port), ...length, "-J", "--get-server-output"];
      if (options.udpBitrate !== undefined) args.push("-u", "-b", String(options.udpBitrate));
      if (options.udpLength !== undefined) args.push("-l", String(options.udpLength));
      if (options.reverse === true) args.push("-R");
      // A UDP test measures the path, not the receiving host: iperf3's own socket (208 KiB by default)
      // overflows when the receiver is descheduled while a burst comes (the sender catching up after its
      // own stall), and those losses (the namespace's Udp RcvbufErrors) would be counted as the path's.
      const window = options.window ?? (options.udpBitrate !== undefined ? `${SOCKET_BUFFER}` : undefined);
      if (window !== undefined) args.push("-w", window);
      if (options.congestion !== undefined) args.push("-C", options.congestion);
      if (options.parallel !== undefined) args.push("-P", String(options.parallel));
      const startedMs = performance.timeOrigin + performance.now();
      const r = await client.exec(args, (seconds + 8) * 1000);
      const endedMs = performance.timeOrigin + performance.now();
      try {
        return { json: JSON.parse(r.stdout) as unknown, startedMs, endedMs };
      } catch {
        return { json: `status ${r.status}${r.stderr === "" ? "" : `, ${r.stderr.trim()}`}`, startedMs, endedMs };
      }
    } finally {
      await stopChild(daemon);
      this.children.delete(daemon);
    }
  }

  private async waitForListener(host: BedHost, port: number, daemon: ChildProcess): Promise<void> {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      if (daemon.exitCode !== null) throw new Error(`iperf3 -s in ${host.namespace} exited with ${daemon.exitCode}`);
      const r = await host.exec(["ss", "-Hltn", `sport = :${port}`]);
      if (r.stdout.trim() !== "") return;
      await sleep(50);
    }
    throw new Error(`iperf3 -s in ${host.namespace} was not listening on ${port} within 5 s`);
  }

  /** Ends every process the bed started (by pid) and removes its namespaces and TAPs; safe to call twice. */
  async close(): Promise<void> {
    await Promise.all([...this.hosts.map((h) => h.stopBridge()), ...[...this.children].map(stopChild)]);
    this.children.clear();
    for (const host of this.hosts.splice(0)) {
      await runCommand("ip", ["netns", "del", host.namespace]);
      // Still in the root namespace when adding failed before the move.
      if (existsSync(`/sys/class/net/${host.tap}`)) await runCommand("ip", ["link", "del", host.tap]);
    }
  }
}

const hex = (n: number): string => (n & 0xff).toString(16).padStart(2, "0");

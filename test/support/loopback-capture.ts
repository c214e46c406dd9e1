import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pcapRecords, type PcapRecord } from "./capture-files.js";

/** One datagram tcpdump saw on `lo`: the kernel's timestamp in ns, its UDP ports and payload. */
export interface LoopbackDatagram {
  readonly atNs: bigint;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly payload: Buffer;
}

/**
 * tcpdump on the root namespace's loopback, writing a nanosecond pcap of the UDP datagrams sent to
 * `dstPorts`: where netemu's NIOs and the host bed's socat meet, so each frame's time into netemu and out
 * of it is the kernel's, not a host's. Started before the traffic, stopped by pid (SIGINT flushes it).
 */
export class LoopbackCapture {
  private constructor(private readonly child: ChildProcess, private readonly dir: string, private readonly file: string) {}

  static async start(dstPorts: readonly number[]): Promise<LoopbackCapture> {
    const dir = await mkdtemp(join(tmpdir(), "netemu-lo-capture-"));
    const file = join(dir, "lo.pcap");
    const filter = `udp and (${dstPorts.map((p) => `dst port ${p}`).join(" or ")})`;
    const child = spawn("tcpdump", ["-i", "lo", "-n", "-U", "--immediate-mode", "-s", "256", "--time-stamp-precision=nano", "-w", file, filter], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    const listening = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5000);
      child.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString("utf8");
        if (/listening on lo/.test(stderr)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once("exit", () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    const capture = new LoopbackCapture(child, dir, file);
    if (!listening) {
      await capture.stop().catch(() => undefined);
      throw new Error(`tcpdump did not start capturing on lo within 5 s: ${stderr.trim()}`);
    }
    return capture;
  }

  /** Captures while `work` runs; tcpdump is ended whatever `work` does. */
  static async during<T>(dstPorts: readonly number[], work: () => Promise<T>): Promise<{ result: T; datagrams: LoopbackDatagram[] }> {
    const capture = await LoopbackCapture.start(dstPorts);
    let result: T;
    try {
      result = await work();
    } catch (e) {
      await capture.stop().catch(() => undefined);
      throw e;
    }
    return { result, datagrams: await capture.stop() };
  }

  /** Ends tcpdump and answers what it wrote; the file goes with it. */
  async stop(): Promise<LoopbackDatagram[]> {
    await endChild(this.child);
    try {
      return udpDatagrams(pcapRecords(await readFile(this.file), this.file));
    } finally {
      await rm(this.dir, { recursive: true, force: true });
    }
  }
}

function endChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    process.kill(child.pid!, "SIGINT");
  });
}

/** Where the IPv4 packet of an untagged Ethernet frame carrying `protocol` has its payload; undefined for any other frame. */
function ipv4PayloadAt(frame: Buffer, protocol: number): number | undefined {
  if (frame.length < 14 + 20 || frame.readUInt16BE(12) !== 0x0800 || frame[14 + 9] !== protocol) return undefined;
  return 14 + (frame[14]! & 0x0f) * 4;
}

/** The UDP datagrams among a capture's Ethernet (lo's link type) frames. */
function udpDatagrams(records: readonly PcapRecord[]): LoopbackDatagram[] {
  const out: LoopbackDatagram[] = [];
  for (const { atNs, data: frame } of records) {
    const udp = ipv4PayloadAt(frame, 17);
    if (udp === undefined || frame.length < udp + 8) continue;
    out.push({ atNs, srcPort: frame.readUInt16BE(udp), dstPort: frame.readUInt16BE(udp + 2), payload: frame.subarray(udp + 8) });
  }
  return out;
}

/** The ICMP echo request an Ethernet frame carries (untagged IPv4), as "id/seq"; undefined for any other frame. */
export function echoRequestKey(frame: Buffer): string | undefined {
  const icmp = ipv4PayloadAt(frame, 1);
  if (icmp === undefined || frame.length < icmp + 8 || frame[icmp] !== 8) return undefined;
  return `${frame.readUInt16BE(icmp + 4)}/${frame.readUInt16BE(icmp + 6)}`;
}

/**
 * Each echo request's time across netemu in µs: from the datagram that carried it in (to `inPort`) to the
 * one that carried it out (to `outPort`), for the requests seen both ways.
 */
export function echoRequestTransitsUs(datagrams: readonly LoopbackDatagram[], inPort: number, outPort: number): number[] {
  const into = new Map<string, bigint>();
  const transits: number[] = [];
  for (const d of datagrams) {
    const key = echoRequestKey(d.payload);
    if (key === undefined) continue;
    if (d.dstPort === inPort) into.set(key, d.atNs);
    else if (d.dstPort === outPort) {
      const at = into.get(key);
      if (at !== undefined) transits.push(Number(d.atNs - at) / 1000);
    }
  }
  return transits;
}

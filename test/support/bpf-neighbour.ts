import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import * as E from "fp-ts/lib/Either.js";
import type { DataPlane } from "../../src/application/ports/data-plane.js";
import { parseFilterSettings } from "../../src/domain/filters/filter-settings.js";
import { attachNio, type ComputeNode } from "../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { UdpPeer, ethernetFrame, freeUdpPort } from "./udp-peer.js";

/** What one measuring window saw. */
export interface NeighbourWindow {
  /** The bystander's frames: one every BYSTANDER_EVERY_MS, each timed from its send to its arrival. */
  readonly bystander: { readonly sent: number; readonly received: number; readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number };
  /** The flooded switch's ingress port: frames per second it took in, handled (not shed for overload), and forwarded out. */
  readonly flooded: { readonly inPerSecond: number; readonly handledPerSecond: number; readonly forwardedPerSecond: number; readonly overload: number };
}

const BYSTANDER_EVERY_MS = 5;

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * Two switches on one data plane (for a worker data plane of 1 thread, on the same worker): a flooded
 * one, fed by a frame source in a child process (udp-flood.ts) on its port 0, and a bystander whose
 * port-0 peer sends it a frame every 5 ms, timed to its port-1 peer. The flooded port's filters are
 * changed by `filter` between windows, so the same machine, sockets and flood are measured with and
 * without the costly filter (issue 25).
 */
export class BpfNeighbours {
  private constructor(
    private readonly dp: Pick<DataPlane, "sync" | "counters">,
    private readonly child: ChildProcessByStdio<Writable, Readable, null>,
    private flooded: ComputeNode,
    private readonly bystander: ComputeNode,
    private readonly peers: [UdpPeer, UdpPeer],
    private readonly bystanderLport: number,
  ) {}

  static async start(dp: Pick<DataPlane, "sync" | "counters">, floodRate: number): Promise<BpfNeighbours> {
    const sw = (name: string): ComputeNode => ({
      ...createEthernetSwitch({ nodeId: randomUUID(), projectId: randomUUID(), name, console: null, consoleType: "none", portsMapping: defaultPortsMapping() }),
      status: "started",
    });
    const peers = [await UdpPeer.open(), await UdpPeer.open()] as [UdpPeer, UdpPeer];
    const bystanderLports = [await freeUdpPort(), await freeUdpPort()] as [number, number];
    const bystander = wire(sw("bystander"), bystanderLports, [peers[0].port, peers[1].port]);
    const floodLports = [await freeUdpPort(), await freeUdpPort()] as [number, number];
    const script = fileURLToPath(new URL("./udp-flood.js", import.meta.url));
    const child = spawn(process.execPath, [script, String(floodLports[0]), String(floodRate), "128"], { stdio: ["pipe", "pipe", "inherit"] });
    const hello = await new Promise<{ sender: number; sink: number }>((resolve, reject) => {
      child.once("error", reject);
      child.stdout.once("data", (d: Buffer) => resolve(JSON.parse(d.toString("utf8").split("\n")[0] as string) as { sender: number; sink: number }));
    });
    const flooded = wire(sw("flooded"), floodLports, [hello.sender, hello.sink]);
    const rig = new BpfNeighbours(dp, child, flooded, bystander, peers, bystanderLports[0]);
    await rig.sync(bystander);
    await rig.sync(flooded);
    return rig;
  }

  private async sync(node: ComputeNode): Promise<void> {
    const r = await this.dp.sync(node);
    if (E.isLeft(r)) throw new Error(`sync: ${JSON.stringify(r.left)}`);
  }

  /** The flooded switch's port 0 with these bpf lines (none: no filter). */
  async filter(bpf: readonly string[] | undefined): Promise<void> {
    const settings = parseFilterSettings(bpf === undefined ? {} : { bpf: [bpf.join("\n")] });
    if (E.isLeft(settings)) throw new Error(JSON.stringify(settings.left));
    const port0 = this.flooded.nios.get(0);
    if (port0 === undefined || port0.type !== "nio_udp") throw new Error("the flooded switch has no port 0");
    const nios = new Map(this.flooded.nios);
    nios.set(0, { ...port0, filters: settings.right });
    this.flooded = { ...this.flooded, nios } as ComputeNode;
    await this.sync(this.flooded);
  }

  /** Times the bystander's frames for `ms` while the flood goes on. */
  async measure(ms: number): Promise<NeighbourWindow> {
    const [from, to] = this.peers;
    const sentAt = new Map<number, number>();
    const latencies: number[] = [];
    const onMessage = (m: Buffer): void => {
      const at = sentAt.get(m.readUInt32BE(20));
      if (at !== undefined) latencies.push(performance.now() - at);
    };
    to.socket.on("message", onMessage);
    const before = await this.dp.counters(this.flooded.nodeId);
    const started = performance.now();
    let id = 0;
    try {
      while (performance.now() - started < ms) {
        const frame = ethernetFrame("ff:ff:ff:ff:ff:ff", "02:00:00:00:0b:01", { payload: 64 });
        frame.writeUInt32BE(++id, 20);
        sentAt.set(id, performance.now());
        from.socket.send(frame, this.bystanderLport, "127.0.0.1");
        await new Promise((resolve) => setTimeout(resolve, BYSTANDER_EVERY_MS));
      }
      const seconds = (performance.now() - started) / 1000;
      const after = await this.dp.counters(this.flooded.nodeId);
      // The last frames' way back, and any the flood still holds up.
      const deadline = performance.now() + 1000;
      while (latencies.length < id && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const sorted = [...latencies].sort((a, b) => a - b);
      const delta = (port: number, pick: (c: { framesIn: number; framesOut: number; drops: Record<string, number> }) => number): number => {
        const a = after.get(port);
        const b = before.get(port);
        return (a === undefined ? 0 : pick(a)) - (b === undefined ? 0 : pick(b));
      };
      const overload = delta(0, (c) => c.drops["overload"] ?? 0);
      const taken = delta(0, (c) => c.framesIn);
      return {
        bystander: { sent: id, received: latencies.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted[sorted.length - 1] ?? Number.NaN },
        flooded: { inPerSecond: taken / seconds, handledPerSecond: (taken - overload) / seconds, forwardedPerSecond: delta(1, (c) => c.framesOut) / seconds, overload },
      };
    } finally {
      to.socket.off("message", onMessage);
    }
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => (this.child.exitCode !== null ? resolve() : this.child.once("exit", () => resolve())));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
    await Promise.all(this.peers.map((p) => p.close()));
  }
}

function wire(node: ComputeNode, lports: [number, number], peers: [number, number]): ComputeNode {
  let wired = node;
  for (let i = 0; i < 2; i++) {
    const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(wired, i, { type: "nio_udp", lport: lports[i] as number, rhost: "127.0.0.1", rport: peers[i] as number, filters: {}, suspend: false });
    if (E.isLeft(attached)) throw new Error(attached.left._tag);
    wired = attached.right;
  }
  return wired;
}

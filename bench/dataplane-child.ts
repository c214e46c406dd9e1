/**
 * The processes of the data-plane benchmark, one role per process (argv[2]):
 *   gen   sends Ethernet frames at a paced rate to a device port (one connected UDP socket);
 *   sink  receives them, counts them and records their one-way latency;
 *   dut   the device under test: a netemu switch (`netemu`) or a bare node:dgram relay (`relay`).
 * Each frame carries, after its 14-byte Ethernet header: a magic number, a run id, its send time on
 * CLOCK_MONOTONIC (which every process of the machine shares) and a sequence number. They sit before
 * the middle quarter of the payload, the bytes the corrupt filter alters (from byte 33 of a 64-byte frame).
 */
import "reflect-metadata";
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { serveIpc, monoMs, percentile } from "./lib/util.js";
import type { RawFilterSettings } from "../src/domain/filters/filter-settings.js";
import type { UdpEndpoint } from "../src/application/ports/udp-transport.js";

export const MAGIC = 0x6e65746d;
export const MAC_GEN = [0x02, 0, 0, 0, 0, 0x01] as const;
export const MAC_SINK = [0x02, 0, 0, 0, 0, 0x02] as const;
const ETHERTYPE = 0x88b5; // IEEE local experimental
const HEADER = 14;
export const MIN_FRAME = HEADER + 20;

function frameTemplate(size: number, dst: readonly number[], src: readonly number[]): Buffer {
  const b = Buffer.alloc(size, 0x5a);
  b.set(dst, 0);
  b.set(src, 6);
  b.writeUInt16BE(ETHERTYPE, 12);
  b.writeUInt32BE(MAGIC, HEADER);
  return b;
}

function bindSocket(bufferBytes: number, port = 0): Promise<Socket> {
  const socket = createSocket({ type: "udp4", recvBufferSize: bufferBytes, sendBufferSize: bufferBytes });
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind({ port, address: "127.0.0.1", exclusive: true }, () => {
      socket.off("error", reject);
      socket.on("error", () => undefined);
      resolve(socket);
    });
  });
}

function connect(socket: Socket, port: number): Promise<void> {
  try {
    socket.disconnect();
  } catch {
    /* not connected yet */
  }
  return new Promise((resolve, reject) => socket.connect(port, "127.0.0.1", (err?: Error) => (err ? reject(err) : resolve())));
}

const LOAD_BUFFER = 8 * 1024 * 1024;

async function gen(): Promise<void> {
  // Bound to an explicit port: Linux gives an auto-bound (port 0) socket a new port when it is
  // disconnected, and the generator reconnects to every new device under test.
  const probe = await bindSocket(LOAD_BUFFER);
  const port = probe.address().port;
  await new Promise<void>((r) => probe.close(() => r()));
  const socket = await bindSocket(LOAD_BUFFER, port);
  socket.on("message", () => undefined); // the sink's hello frame, flooded back
  const RING = 4096;
  let ring: Buffer[] = [];
  let ringSize = 0;
  serveIpc({
    info: () => ({ port: socket.address().port }),
    target: async (a: { port: number }) => {
      await connect(socket, a.port);
      return true;
    },
    /** Sends `rate` frames/s for `durationMs` (or `count` frames), in bursts on a ~1 ms timer tick. */
    run: (a: { rate: number; durationMs: number; size: number; runId: number; count?: number }) =>
      new Promise((resolve) => {
        if (ringSize !== a.size) {
          const t = frameTemplate(a.size, MAC_SINK, MAC_GEN);
          ring = Array.from({ length: RING }, () => Buffer.from(t));
          ringSize = a.size;
        }
        const total = a.count ?? Math.round((a.rate * a.durationMs) / 1000);
        const cpu0 = process.cpuUsage();
        const start = monoMs();
        let sent = 0;
        let maxBurst = 0;
        const tick = (): void => {
          const now = monoMs();
          const due = Math.min(total, Math.floor(((now - start) * a.rate) / 1000));
          maxBurst = Math.max(maxBurst, due - sent);
          while (sent < due) {
            const b = ring[sent % RING] as Buffer;
            b.writeUInt32BE(a.runId, HEADER + 4);
            b.writeDoubleLE(monoMs(), HEADER + 8);
            b.writeUInt32BE(sent >>> 0, HEADER + 16);
            socket.send(b);
            sent++;
          }
          if (sent < total) setTimeout(tick, 1);
          else {
            const wallMs = monoMs() - start;
            const c = process.cpuUsage(cpu0);
            resolve({ sent, wallMs, achievedRate: (sent / wallMs) * 1000, maxBurst, cpuPct: ((c.user + c.system) / 1000 / wallMs) * 100 });
          }
        };
        tick();
      }),
  }, async () => void socket.close());
}

async function sink(): Promise<void> {
  const socket = await bindSocket(LOAD_BUFFER);
  const MAX_SAMPLES = 2_000_000;
  const samples = new Float64Array(MAX_SAMPLES);
  let runId = -1;
  let received = 0;
  let bytes = 0;
  let stray = 0;
  let n = 0;
  let lastArrival = 0;
  let cpu0 = process.cpuUsage();
  let t0 = monoMs();
  socket.on("message", (msg: Buffer) => {
    const now = monoMs();
    if (msg.length < MIN_FRAME || msg.readUInt32BE(HEADER) !== MAGIC || msg.readUInt32BE(HEADER + 4) !== runId) {
      stray++;
      return;
    }
    received++;
    bytes += msg.length;
    lastArrival = now;
    if (n < MAX_SAMPLES) samples[n++] = now - msg.readDoubleLE(HEADER + 8);
  });
  serveIpc({
    info: () => ({ port: socket.address().port }),
    /** Sends one frame from the sink's MAC so the switch learns where it is. */
    hello: async (a: { port: number }) => {
      const f = frameTemplate(64, MAC_GEN, MAC_SINK);
      await new Promise<void>((resolve) => socket.send(f, a.port, "127.0.0.1", () => resolve()));
      return true;
    },
    reset: (a: { runId: number }) => {
      runId = a.runId;
      received = 0;
      bytes = 0;
      stray = 0;
      n = 0;
      lastArrival = 0;
      cpu0 = process.cpuUsage();
      t0 = monoMs();
      return true;
    },
    report: (a: { latency?: boolean }) => {
      const sorted = a.latency === true ? samples.slice(0, n).sort() : new Float64Array(0);
      const wall = monoMs() - t0;
      const c = process.cpuUsage(cpu0);
      return {
        received,
        bytes,
        stray,
        lastArrival,
        now: monoMs(),
        cpuPct: ((c.user + c.system) / 1000 / wall) * 100,
        latency: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: percentile(sorted, 100), min: percentile(sorted, 0) },
      };
    },
  }, async () => void socket.close());
}

interface DutArgs {
  mode: "netemu" | "relay" | "relay-cb" | "addon-relay";
  bufferBytes: number;
  lports: [number, number];
  peers: [number, number];
  http: boolean;
  workers: number;
  chain: number;
  placement: "alternate" | "together";
  balance: boolean;
}

async function dut(a: DutArgs): Promise<void> {
  let cpu0 = process.cpuUsage();
  let t0 = monoMs();
  const common = {
    mem: () => {
      const m = process.memoryUsage();
      return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
    },
    cpuReset: () => {
      cpu0 = process.cpuUsage();
      t0 = monoMs();
      return true;
    },
    cpu: () => {
      const c = process.cpuUsage(cpu0);
      return { cpuPct: ((c.user + c.system) / 1000 / (monoMs() - t0)) * 100, cpuUs: c.user + c.system };
    },
    gc: () => {
      (globalThis as { gc?: () => void }).gc?.();
      return true;
    },
  };
  if (a.mode === "addon-relay") {
    // The runtime's floor on the batched path: netemu's own UDP transport on its addon, each frame given
    // straight to the other NIO's endpoint, no switch (issue 30's "where the CPU goes", ADR 0114).
    const { BatchedUdpTransport, loadUdpBatchAddon } = await import("../src/adapters/transport/batched-udp-transport.js");
    const transport = new BatchedUdpTransport({ bindHost: "127.0.0.1", receiveBufferBytes: a.bufferBytes, sendBufferBytes: a.bufferBytes }, loadUdpBatchAddon());
    const ends: UdpEndpoint[] = [];
    for (const i of [0, 1] as const) {
      const other = 1 - i;
      const end = await transport.open({ lport: a.lports[i], rhost: "127.0.0.1", rport: a.peers[i], onFrame: (frame) => ends[other]?.send(frame) });
      if (E.isLeft(end)) throw new Error(`addon-relay: ${end.left}`);
      ends.push(end.right);
    }
    serveIpc({ ...common, setFilters: () => ({ applied: false }), counters: () => ({}) }, async () => {
      await Promise.all(ends.map((e) => e.close()));
    });
    return;
  }
  if (a.mode !== "netemu") {
    // The runtime's ceiling: the same socket options as netemu's NIOs (bound, connected, buffers).
    const [s0, s1] = await Promise.all(a.lports.map((p) => bindSocket(a.bufferBytes, p)));
    if (s0 === undefined || s1 === undefined) throw new Error("no sockets");
    await connect(s0, a.peers[0]);
    await connect(s1, a.peers[1]);
    if (a.mode === "relay") {
      s0.on("message", (m) => s1.send(m));
      s1.on("message", (m) => s0.send(m));
    } else {
      const ignore = (err: unknown): void => void err;
      s0.on("message", (m) => s1.send(m, ignore));
      s1.on("message", (m) => s0.send(m, ignore));
    }
    serveIpc({ ...common, setFilters: () => ({ applied: false }), counters: () => ({}) }, async () => {
      s0.close();
      s1.close();
    });
    return;
  }
  const { createNetemu } = await import("../src/adapters/composition-root.js");
  const { workerIndexOf } = await import("../src/adapters/threads/data-plane/worker-data-plane.js");
  const { TOKENS } = await import("../src/application/ports/tokens.js");
  const { chooseUdpTransport } = await import("../src/adapters/transport/batched-udp-transport.js");
  // The datagram path this process's environment gets (the data-plane workers choose the same way).
  const udpPath = chooseUdpTransport({ bindHost: "127.0.0.1", receiveBufferBytes: 0, sendBufferBytes: 0 }).path;
  const configDir = mkdtempSync(join(tmpdir(), "netemu-bench-"));
  // A chain of switches: gen → SW1 port 0, SW1 port 1 ↔ SW2 port 0, …, SWn port 1 → sink. The links
  // inside the chain use free ports of the machine, found by binding port 0.
  const inner: number[] = [];
  for (let i = 0; i < 2 * (a.chain - 1); i++) {
    const probe = await bindSocket(0);
    inner.push(probe.address().port);
    await new Promise<void>((r) => probe.close(() => r()));
  }
  const netemu = createNetemu({
    logLevel: "silent",
    settings: { configDir, udpPortRange: { start: Math.min(...a.lports), end: Math.max(...a.lports) } },
    udpBufferBytes: a.bufferBytes,
    dataPlaneWorkers: a.workers,
    dataPlaneBalance: a.balance,
  });
  const uc = netemu.useCases;
  const project = await uc.createComputeProject.execute({ name: "bench" });
  if (E.isLeft(project)) throw new Error(JSON.stringify(project.left));
  const projectId = project.right.projectId;
  const chain: string[] = [];
  for (let i = 0; i < a.chain; i++) {
    // With workers, the chain alternates them (switch i on worker i mod N): a node's worker is a hash
    // of its id, so the bench picks ids, where a lab's random ids spread evenly only on average.
    let nodeId: string | undefined;
    // "together": all on worker 0, as a lab's random ids may put them (what placement by load undoes).
    const wanted = a.placement === "together" ? 0 : i % a.workers;
    while (a.workers > 1 && (nodeId === undefined || workerIndexOf(nodeId, a.workers) !== wanted)) nodeId = randomUUID();
    const sw = await uc.createSwitch.execute({ projectId, name: `SW${i + 1}`, nodeId });
    if (E.isLeft(sw)) throw new Error(JSON.stringify(sw.left));
    chain.push(sw.right.nodeId);
  }
  const nodeId = chain[0] as string;
  /** Port `portNumber` (0 or 1) of the chain's `index`-th switch: its local port and its peer's. */
  const ends = (index: number, portNumber: 0 | 1): { lport: number; rport: number } => {
    if (index === 0 && portNumber === 0) return { lport: a.lports[0], rport: a.peers[0] };
    if (index === a.chain - 1 && portNumber === 1) return { lport: a.lports[1], rport: a.peers[1] };
    // Link k joins switch k's port 1 (inner[2k]) and switch k+1's port 0 (inner[2k+1]).
    const link = portNumber === 1 ? index : index - 1;
    const [left, right] = [inner[2 * link] as number, inner[2 * link + 1] as number];
    return portNumber === 1 ? { lport: left, rport: right } : { lport: right, rport: left };
  };
  const at = (portNumber: number, node = nodeId) => ({ projectId, nodeId: node, adapterNumber: 0, portNumber });
  const nio = (i: 0 | 1, filters?: RawFilterSettings, index = 0) => ({ type: "nio_udp" as const, ...ends(index, i), rhost: "127.0.0.1", filters });
  for (const [index, node] of chain.entries()) {
    for (const i of [0, 1] as const) {
      const r = await uc.addNio.execute({ port: at(i, node), nio: nio(i, undefined, index) });
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left));
    }
  }
  let url: string | undefined;
  if (a.http) url = (await netemu.listen(0, "127.0.0.1")).url;
  const dataPlane = netemu.container.resolve<{
    counters(id: string): ReadonlyMap<number, { framesIn: number; framesOut: number; drops: Readonly<Record<string, number>> }>;
    nodeLoads?(): readonly { nodeId: string; worker: number }[];
  }>(TOKENS.DataPlane);
  /** The worker each switch runs on now: as last reported (it may have moved, ADR 0069), else its hash's. */
  const split = (): number[] | undefined => {
    if (a.workers === 0) return undefined;
    const reported = new Map((dataPlane.nodeLoads?.() ?? []).map((l) => [l.nodeId, l.worker]));
    return chain.map((id) => reported.get(id) ?? workerIndexOf(id, a.workers));
  };
  const threads = netemu.container.resolve<{ eventLoopDelays(): Promise<readonly { worker: number; p99Seconds: number; maxSeconds: number }[]> }>(TOKENS.DataPlaneThreads);
  serveIpc({
    ...common,
    info: () => ({ url, nodeId, projectId, udpPath, split: split() }),
    split: () => split(),
    /** Sets `filters` on the NIOs of `ports`; answers, per port, the NIO or the refusal. */
    setFilters: async (f: { filters: RawFilterSettings; ports: number[] }) => {
      const out: Record<number, unknown> = {};
      for (const p of f.ports) {
        const r = await uc.updateNio.execute({ port: at(p), nio: nio(p as 0 | 1, f.filters) });
        out[p] = E.isLeft(r) ? { refused: r.left } : { filters: (r.right as { filters?: unknown }).filters };
      }
      return out;
    },
    /**
     * The workers' event-loop delay since the previous call (ms; none with the data plane on the main
     * thread), beyond the monitor's 10 ms tick, which Node's histogram includes. A worker samples from the
     * first load reading (each second) that saw frames move (ADR 0113): NaN when it carried none.
     */
    loopDelays: async () => (await threads.eventLoopDelays()).map((l) => ({ worker: l.worker, p99: l.p99Seconds * 1000 - 10, max: l.maxSeconds * 1000 - 10 })),
    counters: async () => Object.fromEntries([...(await dataPlane.counters(nodeId))].map(([k, v]) => [k, { framesIn: v.framesIn, framesOut: v.framesOut, drops: v.drops }])),
  }, async () => {
    await netemu.shutdown();
    rmSync(configDir, { recursive: true, force: true });
  });
}

const role = process.argv[2];
if (role === "gen") await gen();
else if (role === "sink") await sink();
else if (role === "dut") await dut(JSON.parse(process.argv[3] ?? "{}") as DutArgs);
else throw new Error(`unknown role ${role}`);

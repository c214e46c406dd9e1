/**
 * What moving a node between data-plane workers costs (ADR 0069): how long `moveNode` takes, and the
 * frames lost while the node's sockets are closed on one worker and not yet bound on the other.
 * A switch with two UDP NIOs on 127.0.0.1, frames numbered in order at a steady rate from one peer to
 * the other, a period without moves (the baseline loss), then MOVES moves back and forth.
 * On the batched path a move hands the sockets over (nothing is lost); NETEMU_UDP_PATH=dgram measures
 * the fallback's close/bind gap.
 * Run: npm run bench:node-move (node build/bench/node-move.bench.js [--rate N] [--moves N])
 */
import "reflect-metadata";
import { createSocket, type Socket } from "node:dgram";
import * as E from "fp-ts/lib/Either.js";
import { WorkerDataPlane, workerIndexOf } from "../src/adapters/threads/data-plane/worker-data-plane.js";
import { DEFAULT_DATA_PLANE_OPTIONS } from "../src/application/dataplane/switch-data-plane.js";
import { FilterPrograms } from "../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { NotificationHub } from "../src/application/notification-hub.js";
import { attachNio, type ComputeNode } from "../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../src/domain/switching/port.js";
import { chooseUdpTransport } from "../src/adapters/transport/batched-udp-transport.js";
import { median, percentile } from "./lib/util.js";

const argv = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) || fallback : fallback;
};
const RATE = arg("--rate", 10_000);
const MOVES = arg("--moves", 20);
const NODE = "aaaaaaaa-0000-4000-8000-00000000d001";

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string, f?: unknown) => console.error(m, f) };

async function bound(): Promise<Socket> {
  const s = createSocket({ type: "udp4" });
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
  return s;
}
const portOf = (s: Socket): number => s.address().port;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const dp = new WorkerDataPlane({
    workers: 2,
    dataPlane: DEFAULT_DATA_PLANE_OPTIONS,
    transport: { bindHost: "127.0.0.1", receiveBufferBytes: 4 << 20, sendBufferBytes: 4 << 20 },
    notifications: new NotificationHub(),
    logger: silent,
    programs: new FilterPrograms(new InlineBpfCompiler()),
  });
  const [gen, sink] = [await bound(), await bound()];
  const lports: number[] = [];
  for (let i = 0; i < 2; i++) {
    const probe = await bound();
    lports.push(portOf(probe));
    await new Promise<void>((r) => probe.close(() => r()));
  }
  let node: ComputeNode = createEthernetSwitch({ nodeId: NODE, projectId: "77777777-3333-4444-8555-77777777d001", name: "SW", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  for (const [i, peer] of [gen, sink].entries()) {
    const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, i, { type: "nio_udp", lport: lports[i] as number, rhost: "127.0.0.1", rport: portOf(peer), filters: {}, suspend: false });
    if (E.isLeft(attached)) throw new Error(attached.left._tag);
    node = attached.right;
  }
  if (E.isLeft(await dp.sync(node))) throw new Error("sync refused");

  // Frames numbered in their payload; the sink records the numbers it got.
  const got: number[] = [];
  sink.on("message", (m) => got.push(m.readUInt32BE(14)));
  const frame = Buffer.alloc(64);
  Buffer.from("ffffffffffff005079666801", "hex").copy(frame, 0);
  frame.writeUInt16BE(0x0800, 12);
  let seq = 0;
  let sending = true;
  const perTick = Math.max(1, Math.round(RATE / 1000));
  const sender = (async () => {
    const start = performance.now();
    while (sending) {
      // Paced: catch up to RATE × elapsed, one millisecond at a time.
      const due = Math.floor(((performance.now() - start) / 1000) * RATE);
      for (let i = 0; i < perTick && seq < due; i++) {
        // A copy each: dgram sends later, and would send the last number written.
        const numbered = Buffer.from(frame);
        numbered.writeUInt32BE(seq++, 14);
        gen.send(numbered, lports[0] as number, "127.0.0.1");
      }
      await sleep(1);
    }
  })();

  const lostBetween = (from: number, to: number): number => {
    const seen = new Set(got.filter((n) => n >= from && n < to));
    return to - from - seen.size;
  };
  await sleep(500);
  const baseFrom = seq;
  await sleep(2000);
  const baseTo = seq;
  const durations: number[] = [];
  const lostPerMove: number[] = [];
  const home = workerIndexOf(NODE, 2);
  for (let i = 0; i < MOVES; i++) {
    const before = seq;
    const t = performance.now();
    const moved = await dp.moveNode(NODE, i % 2 === 0 ? 1 - home : home);
    durations.push(performance.now() - t);
    if (!moved) throw new Error("a move failed");
    await sleep(200);
    lostPerMove.push(lostBetween(before, seq - Math.ceil(RATE / 100))); // leave the last 10 ms in flight
  }
  sending = false;
  await sender;
  await sleep(100);
  const baseLost = lostBetween(baseFrom, baseTo);
  const baseRate = baseLost / Math.max(1, baseTo - baseFrom);
  const fmt = (x: number) => x.toFixed(2);
  durations.sort((a, b) => a - b);
  lostPerMove.sort((a, b) => a - b);
  const path = chooseUdpTransport({ bindHost: "127.0.0.1", receiveBufferBytes: 0, sendBufferBytes: 0 }).path;
  console.log(`## Moving a node between 2 data-plane workers (${MOVES} moves, ${RATE} frames/s of 64 B through it; ${path.kind === "batched" ? "batched path" : `node:dgram path (${path.reason})`})`);
  console.log("");
  console.log("| | p50 | p90 | max |");
  console.log("| --- | --- | --- | --- |");
  console.log(`| moveNode (ms) | ${fmt(median(durations))} | ${fmt(percentile(durations, 90))} | ${fmt(Math.max(...durations))} |`);
  console.log(`| frames lost per move | ${median(lostPerMove)} | ${percentile(lostPerMove, 90)} | ${Math.max(...lostPerMove)} |`);
  console.log(`| time without forwarding per move (ms, lost / rate) | ${fmt((median(lostPerMove) / RATE) * 1000)} | ${fmt((percentile(lostPerMove, 90) / RATE) * 1000)} | ${fmt((Math.max(...lostPerMove) / RATE) * 1000)} |`);
  console.log("");
  console.log(`Baseline without moves: ${baseLost} of ${baseTo - baseFrom} frames lost (${(baseRate * 100).toFixed(3)} %).`);
  gen.close();
  sink.close();
  await dp.close();
}

await main();

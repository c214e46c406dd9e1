/**
 * The frame path's CPU time per frame, in process, two builds of netemu alternating in one process
 * (issue 26, ADR 0077: the split of SwitchDataPlane must cost nothing per frame). Each build's real
 * SwitchDataPlane (on in-memory time and a counting transport) forwards broadcast frames (60 B unless told) from
 * port 0 to port 1 of a 2-port switch; the rounds alternate between the builds and CPU time (user +
 * system, not wall time: the machine is shared) is divided by the frames.
 *
 *   node build/bench/frame-path-ab.bench.js <buildA> <buildB> [rounds] [frame bytes, 60 by default] [port 1's filters, JSON]
 *   (e.g. a build of the parent commit copied to build-before/, against build/)
 *
 * With filters on port 1 (e.g. '{"bandwidth":[100000,10000]}', issue 28's queue delay), time moves 1 ms
 * every 64 frames, so a rate limit queues each burst of 64 and lets it go as the time passes.
 */
import "reflect-metadata";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Support from "../test/support/in-memory-data-plane.js";
import type * as Nodes from "../src/domain/switching/compute-node.js";
import type * as Switches from "../src/domain/switching/ethernet-switch.js";
import type * as Ports from "../src/domain/switching/port.js";
import type * as E from "fp-ts/lib/Either.js";
import type { UdpEndpointOptions } from "../src/application/ports/udp-transport.js";

const [A, B, roundsArg, bytesArg, filtersArg] = process.argv.slice(2);
if (A === undefined || B === undefined) throw new Error("usage: frame-path-ab.bench.js <buildA> <buildB> [rounds] [frame bytes]");
const ROUNDS = Number(roundsArg ?? 21);
const FRAMES = 300_000;
const FRAME_BYTES = Math.max(60, Number(bytesArg ?? 60));
const PORT1_FILTERS = JSON.parse(filtersArg ?? "{}") as Record<string, unknown>;
const TIMED = Object.keys(PORT1_FILTERS).length > 0;

const load = async <T>(build: string, path: string): Promise<T> => (await import(pathToFileURL(resolve(build, path)).href)) as T;

/** A 2-port switch of that build, and a run that sends FRAMES frames through it: CPU ns per frame. */
async function rig(build: string): Promise<() => number> {
  const support = await load<typeof Support>(build, "test/support/in-memory-data-plane.js");
  const nodes = await load<typeof Nodes>(build, "src/domain/switching/compute-node.js");
  const switches = await load<typeof Switches>(build, "src/domain/switching/ethernet-switch.js");
  const ports = await load<typeof Ports>(build, "src/domain/switching/port.js");
  const parts = support.inMemoryDataPlane();
  const onFrames = new Map<number, (frame: Uint8Array) => void>();
  let sent = 0;
  // Counts instead of copying what is sent: only the data plane's own work is measured.
  (parts.dp as unknown as { transport: unknown }).transport = {
    open: async (o: UdpEndpointOptions) => {
      onFrames.set(o.lport, o.onFrame);
      return { _tag: "Right", right: { send: () => void sent++, close: async () => undefined } };
    },
  };
  let node: Nodes.ComputeNode = switches.createEthernetSwitch({ nodeId: "aaaaaaaa-0000-4000-8000-0000000000f1", projectId: "77777777-3333-4444-8555-77777777777c", name: "SW", console: null, consoleType: "none", portsMapping: ports.defaultPortsMapping() });
  for (const [i, lport] of [20000, 20001].entries()) {
    const attached: E.Either<{ _tag: string }, Nodes.ComputeNode> = nodes.attachNio(node, i, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 30000 + i, filters: i === 1 ? PORT1_FILTERS : {}, suspend: false });
    if (attached._tag === "Left") throw new Error(attached.left._tag);
    node = attached.right;
  }
  const synced = await parts.dp.sync(node);
  if (synced._tag === "Left") throw new Error(synced.left._tag);
  const onFrame = onFrames.get(20000);
  if (onFrame === undefined) throw new Error("port 0 not opened");
  const frame = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0x50, 0x79, 0x66, 0x68, 1, 0x08, 0x00, ...new Array<number>(FRAME_BYTES - 14).fill(0)]);
  return () => {
    const before = sent;
    const cpu = process.cpuUsage();
    for (let i = 0; i < FRAMES; i++) {
      onFrame(frame);
      // What the intake kept for its next turn (ADR 0075) is handed on as the event loop would.
      if ((i & 63) === 63) {
        parts.time.runDeferred();
        if (TIMED) parts.time.advance(1);
      }
    }
    parts.time.runDeferred();
    // What a rate limit still holds leaves once its time has come.
    if (TIMED) parts.time.advance(10_000);
    const used = process.cpuUsage(cpu);
    if (sent - before !== FRAMES) throw new Error(`${build}: ${sent - before} of ${FRAMES} frames sent`);
    return ((used.user + used.system) * 1000) / FRAMES;
  };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const runs = new Map([
  [A, await rig(A)],
  [B, await rig(B)],
]);
for (const run of runs.values()) for (let i = 0; i < 3; i++) run(); // JIT warm-up
const got = new Map<string, number[]>([
  [A, []],
  [B, []],
]);
for (let r = 0; r < ROUNDS; r++) for (const k of r % 2 === 0 ? [A, B] : [B, A]) got.get(k)?.push((runs.get(k) as () => number)());
for (const [k, xs] of got) console.log(`${k}: CPU ns/frame median ${median(xs).toFixed(1)}, min ${Math.min(...xs).toFixed(1)} (${xs.map((x) => x.toFixed(0)).join(", ")})`);
const [a, b] = [got.get(A) as number[], got.get(B) as number[]];
console.log(`ratio ${B} / ${A}: median ${(median(b) / median(a)).toFixed(3)}, min ${(Math.min(...b) / Math.min(...a)).toFixed(3)}`);

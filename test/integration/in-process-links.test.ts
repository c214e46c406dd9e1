import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkerDataPlane, workerIndexOf } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import type { SwitchDataPlane } from "../../src/application/dataplane/switch-data-plane.js";
import type { UdpEndpoint, UdpTransport } from "../../src/application/ports/udp-transport.js";
import { attachNio, type ComputeNode } from "../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { pcapFrames } from "../support/capture-files.js";
import { isPairingBarrier } from "../support/pairing-barrier.js";
import { testSwitchDataPlane, testWorkerDataPlane } from "../support/live-data-planes.js";
import { UdpPeer, ethernetFrame, freeUdpPort } from "../support/udp-peer.js";

const PROJECT = "77777777-3333-4444-8555-7777777730a1";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const inProcess = process.env["NETEMU_IN_PROCESS_LINKS"] !== "off";

/** Two ids that the hash puts on the same one of 2 workers (ADR 0041), the first of them ids SW1's. */
function idsOnOneWorker(): [string, string] {
  const ids: string[] = [];
  for (let i = 0; ids.length < 2; i++) {
    const id = `aaaaaaaa-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
    if (workerIndexOf(id, 2) === 0) ids.push(id);
  }
  return ids as [string, string];
}

/** Two ids that the hash puts on different ones of 2 workers: SW1's on worker 0, SW2's on worker 1. */
function idsOnTwoWorkers(): [string, string] {
  const [first] = idsOnOneWorker();
  for (let i = 0; ; i++) {
    const id = `bbbbbbbb-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
    if (workerIndexOf(id, 2) === 1) return [first, id];
  }
}

function withNio(node: ComputeNode, portNumber: number, lport: number, rport: number): ComputeNode {
  const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, portNumber, { type: "nio_udp", lport, rhost: "127.0.0.1", rport, filters: {}, suspend: false });
  if (E.isLeft(attached)) throw new Error(attached.left._tag);
  return attached.right;
}

/** P1 — SW1 (port 0 | port 1) — link — SW2 (port 1 | port 0) — P2, every address 127.0.0.1. */
interface Chain {
  readonly sw1: ComputeNode;
  readonly sw2: ComputeNode;
  readonly p1: UdpPeer;
  readonly p2: UdpPeer;
  /** SW1's port 0 (where P1 sends), and the link's two local ports (SW1's, SW2's). */
  readonly ingress: number;
  readonly link: readonly [number, number];
  /** SW2's port 0, towards P2. */
  readonly egress: number;
}

async function chain(dp: Pick<SwitchDataPlane, "sync">, ids: readonly [string, string], opened: UdpPeer[]): Promise<Chain> {
  const p1 = await UdpPeer.open();
  const p2 = await UdpPeer.open();
  opened.push(p1, p2);
  const [ingress, a, b, egress] = [await freeUdpPort(), await freeUdpPort(), await freeUdpPort(), await freeUdpPort()] as [number, number, number, number];
  const make = (nodeId: string, name: string) => createEthernetSwitch({ nodeId, projectId: PROJECT, name, console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  const sw1 = withNio(withNio(make(ids[0], "SW1"), 0, ingress, p1.port), 1, a, b);
  const sw2 = withNio(withNio(make(ids[1], "SW2"), 1, b, a), 0, egress, p2.port);
  expect(E.isRight(await dp.sync(sw1))).to.equal(true);
  expect(E.isRight(await dp.sync(sw2))).to.equal(true);
  return { sw1, sw2, p1, p2, ingress, link: [a, b], egress };
}

/** `count` broadcast frames numbered from `from` (the 4 bytes after the ethertype). */
async function sendNumbered(c: Chain, from: number, count: number): Promise<void> {
  const frame = ethernetFrame(BROADCAST, "00:50:79:66:68:30", { payload: 46 });
  for (let n = from; n < from + count; n++) {
    frame.writeUInt32BE(n, 14);
    await c.p1.send(frame, c.ingress);
  }
}

const numbers = (frames: readonly Buffer[]): number[] => frames.map((f) => f.readUInt32BE(14));
const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** About 2,000 frames/s, numbered, from P1 until stopped; `stop` says how many were sent. */
function numberedStream(c: Chain): { stop(): Promise<number> } {
  let sent = 0;
  let sending = true;
  const running = (async () => {
    while (sending) {
      await sendNumbered(c, sent, 4);
      sent += 4;
      await sleep(2);
    }
  })();
  return {
    async stop() {
      sending = false;
      await running;
      return sent;
    },
  };
}

/** Every frame of a stream across a node's moves, in order, on the batched path; node:dgram loses its close/bind gap's (ADR 0069), the rest in order. */
async function expectArrivedAcrossMoves(c: Chain, sent: number): Promise<void> {
  const dgram = process.env["NETEMU_UDP_PATH"] === "dgram";
  const arrived = numbers(await c.p2.waitFor(sent, dgram ? 1000 : 5000).catch(() => c.p2.received));
  if (dgram) {
    expect(arrived.length).to.be.greaterThan(sent / 2);
    expect(arrived).to.deep.equal([...arrived].sort((x, y) => x - y));
  } else expect(arrived).to.deep.equal(upTo(sent));
}

/** The chosen path's transport, counting the frames each socket (by local port) gave it to send; a pairing's barrier is not one. */
class CountingSockets implements UdpTransport {
  readonly sent = new Map<number, number>();
  constructor(private readonly inner: UdpTransport) {}
  async open(o: Parameters<UdpTransport["open"]>[0]): ReturnType<UdpTransport["open"]> {
    const opened = await this.inner.open(o);
    if (E.isLeft(opened)) return opened;
    const inner = opened.right;
    const endpoint: UdpEndpoint = {
      send: (frame) => {
        if (!isPairingBarrier(frame)) this.sent.set(o.lport, (this.sent.get(o.lport) ?? 0) + 1);
        inner.send(frame);
      },
      close: () => inner.close(),
    };
    return E.right(endpoint);
  }
}

describe("in-process links: two switches of one process joined by a UDP link (real sockets on 127.0.0.1, ADR 0105, 0111)", function () {
  this.timeout(30_000);
  const opened: UdpPeer[] = [];
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-in-process-"));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((p) => p.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  describe("on the main thread (SwitchDataPlane)", () => {
    let dp: SwitchDataPlane | undefined;
    afterEach(async () => {
      await dp?.close();
      dp = undefined;
    });

    it("passes frames from outside across both switches, in order, counted and captured on the link's ports, without the kernel", async () => {
      let sockets: CountingSockets | undefined;
      dp = testSwitchDataPlane({ sockets: (chosen) => (sockets = new CountingSockets(chosen)) });
      const c = await chain(dp, idsOnOneWorker(), opened);
      const file = join(dir, "link.pcap");
      expect(E.isRight(await dp.start(c.sw2.nodeId, 1, file))).to.equal(true);
      await sendNumbered(c, 0, 200);
      expect(numbers(await c.p2.waitFor(200, 5000))).to.deep.equal(upTo(200));
      await dp.stop(c.sw2.nodeId, 1);
      const out = (await dp.counters(c.sw1.nodeId)).get(1);
      const into = (await dp.counters(c.sw2.nodeId)).get(1);
      expect([out?.framesOut, into?.framesIn]).to.deep.equal([200, 200]);
      expect(numbers(await pcapFrames(file))).to.deep.equal(upTo(200));
      expect(sockets?.sent.get(c.egress), "P2's frames leave through SW2's socket").to.equal(200);
      const overLink = (sockets?.sent.get(c.link[0]) ?? 0) + (sockets?.sent.get(c.link[1]) ?? 0);
      if (inProcess) expect(overLink, "the link's sockets sent nothing").to.equal(0);
      else expect(overLink).to.equal(200);
    });

    it("falls back to the link's sockets when one switch goes, and pairs again when it comes back", async function () {
      if (!inProcess) this.skip();
      let sockets: CountingSockets | undefined;
      dp = testSwitchDataPlane({ sockets: (chosen) => (sockets = new CountingSockets(chosen)) });
      const c = await chain(dp, idsOnOneWorker(), opened);
      // SW2 is served by another netemu now: its ports, bound there, are P2's way; SW1's end stays and sends to its socket.
      await dp.removeNode(c.sw2.nodeId);
      const elsewhere = await UdpPeer.open(c.link[1]);
      opened.push(elsewhere);
      await sendNumbered(c, 0, 10);
      expect(numbers(await elsewhere.waitFor(10))).to.deep.equal(upTo(10));
      expect(sockets?.sent.get(c.link[0])).to.equal(10);
      // And what comes from there is read, as from any peer.
      await elsewhere.send(ethernetFrame(BROADCAST, "00:50:79:66:68:31", { payload: 46 }), c.link[0]);
      expect(numbers(await c.p1.waitFor(1))).to.have.length(1);
      await elsewhere.close();
      opened.pop();
      expect(E.isRight(await dp.sync(c.sw2))).to.equal(true);
      await sendNumbered(c, 10, 10);
      expect(numbers(await c.p2.waitFor(10))).to.deep.equal(upTo(20).slice(10));
      expect(sockets?.sent.get(c.link[0]), "back in memory").to.equal(10);
    });
  });

  describe("in a data-plane worker (WorkerDataPlane)", () => {
    let dp: WorkerDataPlane | undefined;
    afterEach(async () => {
      await dp?.close();
      dp = undefined;
      delete process.env["NETEMU_TEST_SENDS_FILE"];
      if (scopeBefore === undefined) delete process.env["NETEMU_IN_PROCESS_LINKS"];
      else process.env["NETEMU_IN_PROCESS_LINKS"] = scopeBefore;
    });

    /** What every worker's sockets gave the kernel, by local port (send-counting-data-plane-worker.ts), after its next report. */
    async function kernelSends(): Promise<Map<number, number>> {
      await sleep(60);
      const sent = new Map<number, number>();
      for (const name of readdirSync(dir).filter((f) => f.startsWith("sends.json.") && !f.endsWith(".tmp"))) {
        for (const [port, n] of Object.entries(JSON.parse(readFileSync(join(dir, name), "utf8")) as Record<string, number>)) sent.set(Number(port), (sent.get(Number(port)) ?? 0) + n);
      }
      return sent;
    }

    const scopeBefore = process.env["NETEMU_IN_PROCESS_LINKS"];
    /** Links between the two workers in shared memory too (NETEMU_IN_PROCESS_LINKS=threads, ADR 0111), unless this run has in-process links off. */
    const betweenThreads = (): void => {
      if (inProcess) process.env["NETEMU_IN_PROCESS_LINKS"] = "threads";
    };

    function workers(): WorkerDataPlane {
      // Read by the workers as they start: their environment is a copy of this thread's.
      process.env["NETEMU_TEST_SENDS_FILE"] = join(dir, "sends.json");
      return testWorkerDataPlane({ workers: 2, loadIntervalMs: 0, workerScript: new URL("../support/send-counting-data-plane-worker.js", import.meta.url) });
    }

    for (const [where, ids, count, captured] of [
      ["", idsOnOneWorker, 200, "sw1"],
      [" in two workers, through shared memory (ADR 0111)", idsOnTwoWorkers, 2000, "sw2"],
    ] as const) {
      it(`passes frames from outside across both switches${where}, in order, counted and captured on the link's ports, without the kernel`, async () => {
        if (ids === idsOnTwoWorkers) betweenThreads();
        dp = workers();
        const c = await chain(dp, ids(), opened);
        // Between two workers the pairing is made over the threads' channel once both ends opened.
        await sleep(100);
        const before = await kernelSends();
        const file = join(dir, "link.pcap");
        const node = c[captured].nodeId;
        expect(E.isRight(await dp.start(node, 1, file))).to.equal(true);
        await sendNumbered(c, 0, count);
        expect(numbers(await c.p2.waitFor(count, 5000))).to.deep.equal(upTo(count));
        await dp.stop(node, 1);
        const out = (await dp.counters(c.sw1.nodeId)).get(1);
        const into = (await dp.counters(c.sw2.nodeId)).get(1);
        expect([out?.framesOut, into?.framesIn]).to.deep.equal([count, count]);
        expect(numbers(await pcapFrames(file))).to.deep.equal(upTo(count));
        const sent = await kernelSends();
        const since = (port: number): number => (sent.get(port) ?? 0) - (before.get(port) ?? 0);
        expect(since(c.egress), "P2's frames leave through SW2's socket").to.equal(count);
        const overLink = since(c.link[0]) + since(c.link[1]);
        if (inProcess) expect(overLink, "the link's sockets sent nothing").to.equal(0);
        else expect(overLink).to.equal(count);
      });
    }

    it("falls back to the link's sockets when the switch in the other worker goes, and pairs again when it comes back", async function () {
      if (!inProcess) this.skip();
      betweenThreads();
      dp = workers();
      const c = await chain(dp, idsOnTwoWorkers(), opened);
      await sleep(100);
      await dp.removeNode(c.sw2.nodeId);
      const elsewhere = await UdpPeer.open(c.link[1]);
      opened.push(elsewhere);
      const before = await kernelSends();
      await sendNumbered(c, 0, 10);
      expect(numbers(await elsewhere.waitFor(10))).to.deep.equal(upTo(10));
      expect(((await kernelSends()).get(c.link[0]) ?? 0) - (before.get(c.link[0]) ?? 0), "through SW1's socket").to.equal(10);
      await elsewhere.close();
      opened.pop();
      expect(E.isRight(await dp.sync(c.sw2))).to.equal(true);
      await sleep(100);
      const paired = await kernelSends();
      await sendNumbered(c, 10, 10);
      expect(numbers(await c.p2.waitFor(10))).to.deep.equal(upTo(20).slice(10));
      expect((await kernelSends()).get(c.link[0]), "in shared memory again").to.equal(paired.get(c.link[0]));
    });

    it("pairs again with a switch whose worker died and came back (its ends open again as new ones), the link in memory again (ADR 0111)", async function () {
      if (!inProcess) this.skip();
      betweenThreads();
      process.env["NETEMU_TEST_SENDS_FILE"] = join(dir, "sends.json");
      dp = testWorkerDataPlane({
        workers: 2,
        loadIntervalMs: 0,
        workerScript: new URL("../support/heap-hog-send-counting-data-plane-worker.js", import.meta.url),
        resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 },
      });
      const c = await chain(dp, idsOnTwoWorkers(), opened);
      await sleep(100);
      await sendNumbered(c, 0, 10);
      expect(numbers(await c.p2.waitFor(10))).to.deep.equal(upTo(10));
      // A sync that fills SW2's worker's heap: it dies without closing anything, and comes back with SW2.
      let oom = 0;
      while (workerIndexOf(`cccccccc-0000-4000-8000-${oom.toString(16).padStart(12, "0")}`, 2) !== 1) oom++;
      const hog = createEthernetSwitch({ nodeId: `cccccccc-0000-4000-8000-${oom.toString(16).padStart(12, "0")}`, projectId: PROJECT, name: "oom-flood", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
      await dp.sync(hog).then(
        () => expect.fail("the worker answered a sync that exhausts its heap"),
        () => undefined,
      );
      let next = 10;
      const deadline = Date.now() + 15_000;
      while (c.p2.received.length <= 10 && Date.now() < deadline) {
        await sendNumbered(c, next++, 1);
        await sleep(50);
      }
      expect(c.p2.received.length, "SW2 forwards again").to.be.greaterThan(10);
      await sleep(200);
      const before = await kernelSends();
      const from = next;
      await sendNumbered(c, from, 100);
      const arrived = numbers(await c.p2.waitFor(c.p2.received.length + 100, 5000).catch(() => c.p2.received));
      expect(arrived.slice(-100)).to.deep.equal(upTo(from + 100).slice(from));
      const sent = await kernelSends();
      expect((sent.get(c.link[0]) ?? 0) - (before.get(c.link[0]) ?? 0), "in shared memory again").to.equal(0);
    });

    it("falls back to UDP when a switch moves to the other worker, losing no frame on the batched path, and pairs again when it moves back", async function () {
      dp = workers();
      const c = await chain(dp, idsOnOneWorker(), opened);
      const stream = numberedStream(c);
      await sleep(50);
      expect(await dp.moveNode(c.sw2.nodeId, 1)).to.equal(true);
      await sleep(100);
      const away = await kernelSends();
      expect(away.get(c.link[0]) ?? 0, "SW1 sends to SW2's socket, now another thread's").to.be.greaterThan(0);
      expect(await dp.moveNode(c.sw2.nodeId, 0)).to.equal(true);
      await sleep(100);
      const back = await kernelSends();
      await sleep(100);
      const sent = await stream.stop();
      await expectArrivedAcrossMoves(c, sent);
      const last = await kernelSends();
      if (inProcess) expect(last.get(c.link[0]), "in memory again since SW2 came back").to.equal(back.get(c.link[0]));
    });

    for (const [start, label] of [
      ["one", "from its partner's worker to the other one and back"],
      ["two", "onto its partner's worker and back"],
    ] as const) {
      it(`moves a switch ${label} under a stream, losing no frame on the batched path, its link in memory all along once paired (ADR 0111)`, async function () {
        betweenThreads();
        dp = workers();
        const c = await chain(dp, start === "one" ? idsOnOneWorker() : idsOnTwoWorkers(), opened);
        await sleep(100);
        const quiet = await kernelSends();
        const stream = numberedStream(c);
        const home = start === "one" ? 0 : 1;
        await sleep(50);
        expect(await dp.moveNode(c.sw2.nodeId, 1 - home)).to.equal(true);
        await sleep(150);
        expect(await dp.moveNode(c.sw2.nodeId, home)).to.equal(true);
        await sleep(150);
        const sent = await stream.stop();
        await expectArrivedAcrossMoves(c, sent);
        const dgram = process.env["NETEMU_UDP_PATH"] === "dgram";
        const last = await kernelSends();
        const overLink = (last.get(c.link[0]) ?? 0) + (last.get(c.link[1]) ?? 0) - (quiet.get(c.link[0]) ?? 0) - (quiet.get(c.link[1]) ?? 0);
        // On the batched path an end paired across threads takes its pairing along with its socket: not one
        // frame through the kernel. One paired in its thread gives its frames back to the sockets as it goes
        // and pairs again over the channel where it lands: the frames of that moment (12-16 of 650 here).
        if (inProcess && !dgram) expect(overLink, "frames through the link's sockets").to.be.at.most(start === "two" ? 0 : sent / 10);
        if (!inProcess) expect(overLink).to.be.at.least(sent);
      });
    }
  });
});

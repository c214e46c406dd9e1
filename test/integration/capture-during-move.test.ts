import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkerDataPlane, workerIndexOf } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { twoDataPlaneWorkers, wiredSwitch } from "../support/two-data-plane-workers.js";
import { UdpPeer } from "../support/udp-peer.js";
import { openPcapFiles, pcapFrames } from "../support/capture-files.js";

const PROJECT = "77777777-3333-4444-8555-77777777777c";
const NODE = "aaaaaaaa-0000-4000-8000-0000000000e1";
const HOME = workerIndexOf(NODE, 2);
const ROUNDS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A broadcast frame from 00:50:79:66:68:0c carrying `seq` right after its EtherType (0x88b5, local experimental). */
function numbered(seq: number): Buffer {
  const frame = Buffer.alloc(64);
  Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x50, 0x79, 0x66, 0x68, 0x0c]).copy(frame, 0);
  frame.writeUInt16BE(0x88b5, 12);
  frame.writeUInt32BE(seq, 14);
  return frame;
}
const seqOf = (frame: Buffer): number | undefined => (frame.length >= 18 && frame.readUInt16BE(12) === 0x88b5 ? frame.readUInt32BE(14) : undefined);

/**
 * Sends numbered frames from `peer` to `lport` every millisecond or so until stopped: real UDP
 * frames flowing through the switch while captures start and the node moves.
 */
function flowing(peer: UdpPeer, lport: number): { next: () => number; stop: () => Promise<number> } {
  let seq = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      await peer.send(numbered(seq++), lport);
      await sleep(1);
    }
  })();
  return {
    next: () => seq,
    stop: async () => {
      running = false;
      await loop;
      return seq - 1;
    },
  };
}

/**
 * A capture and a move of the same node are ordered (ADR 0074): a capture started while the node
 * moves between workers either comes after the move (and runs where the node went) or before it (and
 * the node stays while it runs); it records every frame sent after its start answered, and its file
 * is closed when its stop answers.
 */
describe("captures started while their node moves between data-plane workers (real workers, sockets and files)", function () {
  this.timeout(60_000);
  let dp: WorkerDataPlane;
  let dir: string;
  const opened: UdpPeer[] = [];

  beforeEach(async () => {
    dp = twoDataPlaneWorkers({ logger: new RecordingLogger(), loadIntervalMs: 0 });
    dir = await mkdtemp(join(tmpdir(), "netemu-capture-move-"));
  });
  afterEach(async () => {
    await dp.close();
    await Promise.all(opened.splice(0).map((p) => p.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it(`each of ${ROUNDS} captures, started just before or just after a move, records every frame sent after its start answered, and its file is closed once stopped`, async () => {
    const sw = await wiredSwitch(dp, createEthernetSwitch({ nodeId: NODE, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() }), opened);
    const [p0, p1] = sw.peers;
    let on = HOME;
    let moves = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const file = join(dir, `round-${round}.pcap`);
      p1.received.length = 0;
      const traffic = flowing(p0, sw.lports[0]);
      await sleep(5);
      // Both asked in the same turn, in either order: the start and the move race as they did.
      let firstAfterStart = -1;
      const start = () =>
        dp.start(NODE, 0, file).then((started) => {
          firstAfterStart = traffic.next();
          return started;
        });
      const move = () => dp.moveNode(NODE, 1 - on);
      const [started, moved] = round % 2 === 0 ? await Promise.all([start(), move()]) : (await Promise.all([move(), start()])).reverse() as [Awaited<ReturnType<typeof start>>, boolean];
      expect(E.isRight(started), `round ${round}: the capture started`).to.equal(true);
      if (moved) {
        moves++;
        on = 1 - on;
      }
      await sleep(30);
      const last = await traffic.stop();
      // Every frame sent has passed the switch (port 1's peer has the last one), so the capture saw it.
      for (let i = 0; i < 100 && !p1.received.some((f) => seqOf(f) === last); i++) await sleep(10);
      await dp.stop(NODE, 0);
      expect(await openPcapFiles(dir), `round ${round}: no descriptor left on its file once stopped`).to.deep.equal([]);
      const recorded = new Set((await pcapFrames(file)).map(seqOf));
      const missing = [];
      for (let seq = firstAfterStart; seq <= last; seq++) if (!recorded.has(seq)) missing.push(seq);
      expect(missing, `round ${round} (${round % 2 === 0 ? "capture asked first" : "move asked first"}): frames ${firstAfterStart}..${last} sent after the start answered, not recorded`).to.deep.equal([]);
    }
    // The node did move between workers: every move asked before its capture went through.
    expect(moves).to.be.at.least(ROUNDS / 2);
  });
});

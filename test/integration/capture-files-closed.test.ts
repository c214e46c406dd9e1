import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { workerIndexOf } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { httpWiredSwitch } from "../support/http-nios.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { twoDataPlaneWorkers, wiredSwitch } from "../support/two-data-plane-workers.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";
import { openPcapFiles, pcapFrames } from "../support/capture-files.js";
import * as E from "fp-ts/lib/Either.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PROJECT = "66666666-3333-4444-8555-77777777778d";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const A = "00:50:79:66:68:0e";

/** Each way a capture ends, and what over HTTP (or the embedding API) ends it. */
const ENDINGS: readonly { readonly name: string; readonly end: (s: TestServer, base: string) => Promise<unknown> }[] = [
  { name: "stop_capture", end: (s, base) => s.request("POST", `${base}/adapters/0/ports/0/stop_capture`) },
  { name: "DELETE of its NIO", end: (s, base) => s.request("DELETE", `${base}/adapters/0/ports/0/nio`) },
  { name: "DELETE of its node", end: (s, base) => s.request("DELETE", base) },
  { name: "the close of its project", end: (s) => s.request("POST", `/v2/compute/projects/${PROJECT}/close`) },
  { name: "netemu's shutdown", end: (s) => s.netemu.shutdown() },
];

/**
 * A capture's file is closed by whatever ends the capture (ADR 0074), with the frames it recorded
 * in it, whichever thread runs its node.
 */
for (const workers of [0, 2]) {
  describe(`a capture's file is closed by whatever ends the capture, data plane ${workers === 0 ? "on the main thread" : `in ${workers} worker threads`} (real sockets and files)`, function () {
    this.timeout(20_000);
    let s: TestServer;
    const opened: UdpPeer[] = [];

    beforeEach(async () => {
      s = await startTestServer({ dataPlaneWorkers: workers });
      await s.request("POST", "/v2/compute/projects", { name: "closing", project_id: PROJECT });
    });
    afterEach(async () => {
      await s.close();
      await Promise.all(opened.splice(0).map((p) => p.close()));
    });

    for (const ending of ENDINGS) {
      it(`closes it on ${ending.name}, with the frames it recorded`, async () => {
        const { base, peers, lports } = await httpWiredSwitch(s, PROJECT, "SW1", opened);
        const started = await s.request("POST", `${base}/adapters/0/ports/0/start_capture`, { capture_file_name: "ending.pcap", data_link_type: "DLT_EN10MB" });
        expect(started.status, started.text).to.equal(200);
        const file = started.json.pcap_file_path as string;
        expect(await openPcapFiles(file), "open while it captures").to.have.length(1);
        await peers[0].send(ethernetFrame(BROADCAST, A, { payload: 46 }), lports[0]);
        await peers[1].waitFor(1);
        await ending.end(s, base);
        expect(await openPcapFiles(file), "closed once the request answered").to.deep.equal([]);
        expect(await pcapFrames(file)).to.have.length(1);
      });
    }
  });
}

describe("a data-plane worker that dies closes the capture files of its nodes (real workers, sockets and files)", function () {
  this.timeout(20_000);
  const opened: UdpPeer[] = [];

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  it("leaves no descriptor on a capture file of a node whose worker died, and the node captures again once restored", async () => {
    const dir = await mkdtemp(join(tmpdir(), "netemu-capture-death-"));
    const logger = new RecordingLogger();
    const dp = twoDataPlaneWorkers({ logger, loadIntervalMs: 0, workerScript: new URL("../support/crashing-data-plane-worker.js", import.meta.url) });
    try {
      const nodeId = randomUUID();
      const sw = await wiredSwitch(dp, createEthernetSwitch({ nodeId, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() }), opened);
      const file = join(dir, "dies.pcap");
      expect(E.isRight(await dp.start(nodeId, 0, file))).to.equal(true);
      expect(await openPcapFiles(dir)).to.have.length(1);
      let crasher: string;
      do crasher = randomUUID();
      while (workerIndexOf(crasher, 2) !== workerIndexOf(nodeId, 2));
      await dp.sync(createEthernetSwitch({ nodeId: crasher, projectId: PROJECT, name: "crash-me", console: null, consoleType: "none", portsMapping: defaultPortsMapping() })).catch(() => undefined);
      for (let i = 0; i < 100 && (await openPcapFiles(dir)).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await openPcapFiles(dir), "the dead worker's capture file is closed").to.deep.equal([]);
      // Restored on the restarted worker (its capture stopped, as it is told): a new capture starts there.
      let again = await dp.start(nodeId, 0, join(dir, "again.pcap"));
      for (let i = 0; i < 50 && E.isLeft(again); i++) {
        await new Promise((r) => setTimeout(r, 20));
        again = await dp.start(nodeId, 0, join(dir, "again.pcap"));
      }
      expect(E.isRight(again)).to.equal(true);
      await sw.peers[0].send(ethernetFrame(BROADCAST, A), sw.lports[0]);
      await sw.peers[1].waitFor(1);
      await dp.stop(nodeId, 0);
      expect(await openPcapFiles(dir)).to.deep.equal([]);
    } finally {
      await dp.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("a worker data plane closed while a capture starts (real workers, sockets and files)", function () {
  this.timeout(20_000);
  const opened: UdpPeer[] = [];

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  it("answers the start before it closes, and leaves no descriptor on the capture's file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "netemu-capture-close-"));
    const dp = twoDataPlaneWorkers({ loadIntervalMs: 0 });
    try {
      const nodeId = randomUUID();
      await wiredSwitch(dp, createEthernetSwitch({ nodeId, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() }), opened);
      const starting = dp.start(nodeId, 0, join(dir, "closing.pcap"));
      await dp.close();
      const started = await starting;
      expect(E.isRight(started), `the start was answered, in its turn before the close: ${JSON.stringify(started)}`).to.equal(true);
      expect(await openPcapFiles(dir)).to.deep.equal([]);
    } finally {
      await dp.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

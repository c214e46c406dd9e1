import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNetemu, type Netemu } from "../../src/index.js";
import { type EmbeddedSwitch, openEmbeddedSwitch, rightOf as right } from "../support/embedded-switch.js";
import { type UdpPeer, ethernetFrame } from "../support/udp-peer.js";

/**
 * Trace replay with real frames (ADR 0103): a capacity trace uploaded once by name, named by a NIO's
 * filters, paces frames as its opportunities say, on the main thread and in a worker (the trace crosses
 * to the worker as plain data), on real sockets on 127.0.0.1 (both datagram paths: .mocharc.dgram.json).
 */
const A = "00:50:79:66:68:01";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
/** A full-size frame: 1,500 bytes past its Ethernet header, one delivery opportunity. */
const fullFrame = (i: number): Buffer => {
  const frame = ethernetFrame(BROADCAST, A, { payload: 1500 });
  frame.writeUInt16BE(i, frame.length - 2);
  return frame;
};

async function* textOf(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text, "utf8");
}

async function upload(netemu: Netemu, name: string, text: string) {
  return netemu.useCases.uploadTrace.execute({ name, content: textOf(text), declaredBytes: undefined });
}

for (const workers of [0, 1]) {
  describe(`trace replay on real frames (${workers === 0 ? "data plane on the main thread" : "data plane in a worker thread"})`, function () {
    this.timeout(60_000);
    let netemu: Netemu;
    let sw: EmbeddedSwitch;
    let peers: UdpPeer[];
    let lports: number[];

    beforeEach(async () => {
      sw = await openEmbeddedSwitch(workers, "traces");
      ({ netemu, peers, lports } = sw);
      for (let port = 0; port < 2; port++) {
        right("addNio", await netemu.useCases.addNio.execute({ port: sw.at(port), nio: { type: "nio_udp", lport: lports[port] as number, rhost: "127.0.0.1", rport: (peers[port] as UdpPeer).port } }));
      }
    });
    afterEach(() => sw.close());

    const sendBurst = async (count: number): Promise<number> => {
      const at = performance.now();
      for (let i = 0; i < count; i++) await (peers[0] as UdpPeer).send(fullFrame(i), lports[0] as number);
      return at;
    };

    it("delivers a burst at the trace's opportunities: one full-size frame each 25 ms, never earlier", async () => {
      right("upload", await upload(netemu, "every-25ms", "25\n"));
      right("filters", await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filtersOut: { capacity_trace: ["every-25ms"] } }));
      const sentAt = await sendBurst(8);
      const peer = peers[1] as UdpPeer;
      await peer.waitFor(8, 5000);
      // The trace starts at the first frame: frame i leaves at its (i+1)th opportunity, 25 ms apart. Never
      // early (a 2 ms allowance for the clock reads around the send); late only by the machine's load.
      const transit = peer.receivedAtMs.map((t) => t - sentAt);
      for (let i = 0; i < 8; i++) expect(transit[i], `frame ${i}`).to.be.at.least(25 * (i + 1) - 2);
      // The whole burst took the trace's 200 ms, not the few ms the path alone takes (generous: 2 cores shared).
      expect((transit[7] as number) - (transit[0] as number)).to.be.within(170, 400);
      // The answers say which trace the direction replays and where in its 25 ms loop it stands.
      const view = right("get", await netemu.useCases.getComputeNode.execute({ projectId: sw.projectId, nodeId: sw.nodeId }));
      const reading = view.counters.get(1)?.traces?.egress?.capacity;
      expect(reading?.name).to.equal("every-25ms");
      expect(reading?.positionMs).to.be.within(0, 25);
      expect(reading?.waitingFrames).to.equal(0);
      expect(view.counters.get(0)?.traces).to.equal(undefined);
    });

    it("drops the frames beyond the queue bound in frames, counted as bandwidth drops", async () => {
      right("upload", await upload(netemu, "slow", "50\n"));
      right("filters", await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filtersOut: { capacity_trace: ["slow", 3] } }));
      await sendBurst(10);
      const peer = peers[1] as UdpPeer;
      await peer.waitFor(3, 5000);
      expect(await peer.settle(300)).to.equal(3);
      const view = right("get", await netemu.useCases.getComputeNode.execute({ projectId: sw.projectId, nodeId: sw.nodeId }));
      expect(view.counters.get(1)?.drops).to.deep.include({ bandwidth: 7 });
    });

    it("refuses filters naming a trace that was not uploaded, naming it, and changes nothing", async () => {
      const refused = await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filtersOut: { capacity_trace: ["nowhere"] } });
      expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: "InvalidFilterSettings", problem: { problem: "unknown_trace", kind: "capacity_trace", name: "nowhere" } });
      await sendBurst(5);
      await (peers[1] as UdpPeer).waitFor(5, 2000);
    });

    it("refuses codel over a port whose direction replays a capacity trace, naming both kinds, and the port keeps the trace's pace", async () => {
      right("upload", await upload(netemu, "every-25ms", "25\n"));
      right("filters", await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filtersOut: { capacity_trace: ["every-25ms"] } }));
      // The port's both-ways filters meet its filters_out in the direction: the trace link would ignore codel (ADR 0103, 2026-11-26).
      const refused = await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filters: { queue_discipline: ["codel"] } });
      expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: "InvalidFilterSettings", problem: { problem: "queue_on_trace", kinds: ["queue_discipline", "capacity_trace"], discipline: "codel" } });
      const at = await sendBurst(3);
      await (peers[1] as UdpPeer).waitFor(3, 5000);
      // Still paced by the trace: the third frame leaves at the third opportunity (75 ms), not at once.
      expect(performance.now() - at).to.be.at.least(70);
    });

    it("refuses a value trace as a capacity trace", async () => {
      right("upload", await upload(netemu, "delays", "0 10\n100 20\n200\n"));
      const refused = await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filtersOut: { capacity_trace: ["delays"] } });
      expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: "InvalidFilterSettings" });
      expect(E.isLeft(refused) && (refused.left as { problem: { problem: string } }).problem.problem).to.equal("unfit_trace");
    });

    it("holds each frame for a delay trace's delay of the moment", async () => {
      right("upload", await upload(netemu, "delay-60", "0 60\n"));
      right("filters", await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filtersOut: { delay_trace: ["delay-60"] } }));
      const sentAt = await sendBurst(3);
      const peer = peers[1] as UdpPeer;
      await peer.waitFor(3, 5000);
      for (const t of peer.receivedAtMs) expect(t - sentAt).to.be.at.least(58);
    });

    it("loses every frame while a loss trace says 100 % and none once it says 0", async () => {
      right("upload", await upload(netemu, "loss", "0 100\n150 0\n"));
      right("filters", await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filtersOut: { loss_trace: ["loss"] } }));
      await sendBurst(5);
      expect(await (peers[1] as UdpPeer).settle(300)).to.equal(0);
      await sendBurst(5);
      await (peers[1] as UdpPeer).waitFor(5, 2000);
    });

    it("refuses to delete a trace a NIO names, and deletes it once no filter does", async () => {
      right("upload", await upload(netemu, "kept", "10\n"));
      right("filters", await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filtersOut: { capacity_trace: ["kept"] } }));
      const refused = await netemu.useCases.deleteTrace.execute("kept");
      expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: "TraceInUse", name: "kept" });
      const replaced = await upload(netemu, "kept", "20\n");
      expect(E.isLeft(replaced) && replaced.left._tag).to.equal("TraceInUse");
      right("filters", await netemu.useCases.updateNioFilters.execute({ port: sw.at(1), filtersOut: {} }));
      right("delete", await netemu.useCases.deleteTrace.execute("kept"));
      expect(right("list", await netemu.useCases.listTraces.execute()).map((t) => t.name)).to.not.include("kept");
    });
  });
}

describe("uploaded traces survive a restart", function () {
  this.timeout(30_000);
  it("reads the traces back from <configDir>/traces after netemu starts again", async () => {
    const configDir = mkdtempSync(join(tmpdir(), "netemu-traces-"));
    try {
      const first = createNetemu({ logLevel: "silent", settings: { configDir } });
      right("upload", await upload(first, "Verizon-like.down", "1\n1\n3\n"));
      await first.shutdown();
      expect(readFileSync(join(configDir, "traces", "Verizon-like.down"), "utf8")).to.equal("1\n1\n3\n");
      const second = createNetemu({ logLevel: "silent", settings: { configDir } });
      try {
        const listed = right("list", await second.useCases.listTraces.execute());
        expect(listed.map((t) => t.name)).to.deep.equal(["Verizon-like.down"]);
        expect(listed[0]?.trace).to.deep.equal({ kind: "capacity", opportunitiesMs: [1, 1, 3], periodMs: 3 });
      } finally {
        await second.shutdown();
      }
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});

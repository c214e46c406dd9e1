import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import type { SwitchDataPlane } from "../../../src/application/dataplane/switch-data-plane.js";
import type { BpfPrograms } from "../../../src/application/ports/bpf-compiler.js";
import type { ComputeNotification } from "../../../src/application/ports/notifications.js";
import type { RandomSourceFactory } from "../../../src/application/ports/timers.js";
import { type ComputeNode, attachNio, replaceNio, withStatus } from "../../../src/domain/switching/compute-node.js";
import { createEthernetHub, defaultHubPorts } from "../../../src/domain/switching/ethernet-hub.js";
import { createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import type { UdpNio } from "../../../src/domain/switching/nio.js";
import { defaultPortsMapping } from "../../../src/domain/switching/port.js";
import { BROADCAST, eth, hex } from "../switching/support.js";
import { presentNotification } from "../../../src/adapters/http/compute/presenters.js";
import {
  type InMemoryCaptureSink,
  type InMemoryUdpTransport,
  type ManualTime,
  type RecordingLogger,
  constantRandomness,
  inMemoryDataPlane,
} from "../../support/in-memory-data-plane.js";

const PROJECT = "11111111-2222-4333-8444-555555555555";
const H1 = 0x020000000001;
const H2 = 0x020000000002;

const noRandomness: RandomSourceFactory = constantRandomness(0.5);
const noBpf: BpfPrograms = { program: async () => E.left({ line: 1, message: "these tests use no bpf filter" }) };

function udpNio(lport: number, filters: FilterSettings = {}): UdpNio {
  return { type: "nio_udp", lport, rhost: "127.0.0.1", rport: lport + 1000, filters, suspend: false };
}

describe("data plane: node status, the MAC table on stop, and what it tells the user", () => {
  let transport: InMemoryUdpTransport;
  let sink: InMemoryCaptureSink;
  let time: ManualTime;
  let logger: RecordingLogger;
  let told: ComputeNotification[];
  let dp: SwitchDataPlane;

  beforeEach(() => {
    ({ dp, transport, sink, time, logger, told } = inMemoryDataPlane({ randomness: noRandomness, programs: noBpf }));
  });
  afterEach(async () => dp.close());

  const switchNode = (name = "SW1") =>
    createEthernetSwitch({ nodeId: "aaaaaaaa-0000-4000-8000-000000000001", projectId: PROJECT, name, console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  const hubNode = (name = "HUB1") =>
    createEthernetHub({ nodeId: "bbbbbbbb-0000-4000-8000-000000000002", projectId: PROJECT, name, portsMapping: defaultHubPorts() });

  /** Attaches a fake UDP NIO on ports 0..n-1 (lport 5000 + port). */
  async function wired<N extends ComputeNode>(node: N, ports: number, filters: FilterSettings = {}): Promise<N> {
    let withNios = node;
    for (let p = 0; p < ports; p++) {
      const attached = attachNio(withNios, p, udpNio(5000 + p, filters));
      if (E.isLeft(attached)) throw new Error(`attach port ${p}: ${attached.left._tag}`);
      withNios = attached.right;
    }
    const synced = await dp.sync(withNios);
    expect(E.isRight(synced), "sync").to.equal(true);
    return withNios;
  }
  const peer = (port: number) => transport.at(5000 + port);
  const sentTo = (port: number) => peer(port).sent.map(hex);
  const dropsOf = async (node: ComputeNode, port: number) => (await dp.counters(node.nodeId)).get(port)?.drops;
  /** What the user is told (peer unreachable, capture failed), as the GNS3 console line netemu words it. */
  const logs = () =>
    told
      .filter((n) => n.kind === "peer_unreachable" || n.kind === "capture_failed")
      .map((n) => {
        const line = presentNotification(n) as { action: string; event: { message: string }; project_id: string };
        return { kind: "log", severity: line.action.slice("log.".length), message: line.event.message, projectId: line.project_id, told: n };
      });

  describe("a switch", () => {
    it("forwards while it is started", async () => {
      await wired(switchNode(), 3);
      const frame = eth(BROADCAST, H1);
      peer(0).fromPeer(frame);
      expect(sentTo(1)).to.deep.equal([hex(frame)]);
      expect(sentTo(2)).to.deep.equal([hex(frame)]);
      expect(sentTo(0)).to.deep.equal([]);
    });

    for (const status of ["stopped", "suspended"] as const) {
      it(`forwards nothing once ${status} and counts each received frame as a "stopped" drop`, async () => {
        const sw = await wired(switchNode(), 3);
        await dp.sync(withStatus(sw, status));
        peer(0).fromPeer(eth(BROADCAST, H1));
        peer(1).fromPeer(eth(H1, H2));
        peer(1).fromPeer(eth(BROADCAST, H2, [], 100));
        for (const p of [0, 1, 2]) expect(sentTo(p), `port ${p}`).to.deep.equal([]);
        const counters = (await dp.counters(sw.nodeId));
        expect(counters.get(0)).to.deep.include({ framesIn: 1, bytesIn: 60, framesOut: 0, drops: { stopped: 1 } });
        expect(counters.get(1)).to.deep.include({ framesIn: 2, bytesIn: 60 + 114, framesOut: 0, drops: { stopped: 2 } });
        expect(counters.get(2)).to.deep.include({ framesIn: 0, framesOut: 0 });
      });

      it(`forwards again once started after being ${status}`, async () => {
        const sw = await wired(switchNode(), 2);
        await dp.sync(withStatus(sw, status));
        peer(0).fromPeer(eth(BROADCAST, H1));
        await dp.sync(withStatus(sw, "started"));
        const frame = eth(BROADCAST, H1, [], 64);
        peer(0).fromPeer(frame);
        expect(sentTo(1)).to.deep.equal([hex(frame)]);
        expect(await dropsOf(sw, 0)).to.deep.equal({ stopped: 1 });
      });
    }

    it("treats a NIO attached while the node is stopped as stopped too", async () => {
      const sw = withStatus(switchNode(), "stopped");
      await wired(sw, 2);
      peer(0).fromPeer(eth(BROADCAST, H1));
      expect(sentTo(1)).to.deep.equal([]);
      expect(await dropsOf(sw, 0)).to.deep.equal({ stopped: 1 });
    });

    it("drops a frame that was held by a delay filter when the node stopped meanwhile", async () => {
      const sw = await wired(switchNode(), 2, { delay: [50] });
      peer(0).fromPeer(eth(BROADCAST, H1));
      await dp.sync(withStatus(sw, "stopped"));
      time.advance(100);
      expect(sentTo(1)).to.deep.equal([]);
      expect(await dropsOf(sw, 0)).to.deep.equal({ stopped: 1 });
      expect((await dp.counters(sw.nodeId)).get(0), "received once, counted once").to.include({ framesIn: 1, bytesIn: 60 });
    });

    it("does not send a frame that its egress delay still held when the node stopped, and counts it as a stopped drop", async () => {
      const plain = await wired(switchNode(), 2);
      const delayedOut = replaceNio(plain, 1, udpNio(5001, { delay: [50] }));
      if (E.isLeft(delayedOut)) throw new Error("replace");
      await dp.sync(delayedOut.right);
      peer(0).fromPeer(eth(BROADCAST, H1));
      expect(sentTo(1), "held by port 1's delay").to.deep.equal([]);
      await dp.sync(withStatus(delayedOut.right, "stopped"));
      time.advance(100);
      expect(sentTo(1)).to.deep.equal([]);
      expect(await dropsOf(delayedOut.right, 1)).to.deep.equal({ stopped: 1 });
    });

    it("forgets its learned MAC addresses when stopped: unicast floods after the restart", async () => {
      const sw = await wired(switchNode(), 3);
      peer(1).fromPeer(eth(BROADCAST, H2));
      expect((await dp.macTable(sw.nodeId)).map((e) => e.port)).to.deep.equal([1]);
      await dp.sync(withStatus(sw, "stopped"));
      expect((await dp.macTable(sw.nodeId))).to.deep.equal([]);
      await dp.sync(withStatus(sw, "started"));
      const toH2 = eth(H2, H1);
      peer(0).fromPeer(toH2);
      expect(sentTo(2), "H2 unknown again: flooded").to.deep.equal([hex(eth(BROADCAST, H2)), hex(toH2)]);
    });

    it("keeps its MAC table when suspended: known unicast goes to one port after resuming", async () => {
      const sw = await wired(switchNode(), 3);
      peer(1).fromPeer(eth(BROADCAST, H2));
      await dp.sync(withStatus(sw, "suspended"));
      expect((await dp.macTable(sw.nodeId)).map((e) => e.port)).to.deep.equal([1]);
      await dp.sync(withStatus(sw, "started"));
      const toH2 = eth(H2, H1);
      peer(0).fromPeer(toH2);
      expect(sentTo(1)).to.deep.include(hex(toH2));
      expect(sentTo(2), "only the first broadcast reached port 2").to.have.length(1);
    });

    it("flushes the MAC table when a suspended switch is stopped", async () => {
      const sw = await wired(switchNode(), 2);
      peer(1).fromPeer(eth(BROADCAST, H2));
      await dp.sync(withStatus(sw, "suspended"));
      await dp.sync(withStatus(sw, "stopped"));
      expect((await dp.macTable(sw.nodeId))).to.deep.equal([]);
    });
  });

  describe("a hub", () => {
    it("repeats every frame, unicast included, to every other port while started", async () => {
      await wired(hubNode(), 3);
      const frame = eth(H2, H1);
      peer(1).fromPeer(eth(BROADCAST, H2)); // a learning switch would now know H2 is on port 1
      peer(0).fromPeer(frame);
      expect(sentTo(1)).to.include(hex(frame));
      expect(sentTo(2)).to.include(hex(frame));
      expect(sentTo(0)).to.deep.equal([hex(eth(BROADCAST, H2))]);
      expect((await dp.macTable(hubNode().nodeId)), "a hub has no MAC table").to.deep.equal([]);
    });

    it("forwards nothing while stopped or suspended, and again once started", async () => {
      const h = await wired(hubNode(), 2);
      await dp.sync(withStatus(h, "stopped"));
      peer(0).fromPeer(eth(BROADCAST, H1));
      await dp.sync(withStatus(h, "suspended"));
      peer(0).fromPeer(eth(BROADCAST, H1));
      expect(sentTo(1)).to.deep.equal([]);
      expect(await dropsOf(h, 0)).to.deep.equal({ stopped: 2 });
      await dp.sync(withStatus(h, "started"));
      peer(0).fromPeer(eth(BROADCAST, H1));
      expect(sentTo(1)).to.have.length(1);
    });
  });

  describe("telling the user", () => {
    it("warns once per episode that a port's peer is unreachable, with the node's project", async () => {
      await wired(switchNode(), 2);
      peer(1).fail("recvmsg ECONNREFUSED");
      peer(1).fail("recvmsg ECONNREFUSED");
      peer(1).fail("recvmsg ECONNREFUSED");
      expect(logs()).to.have.length(1);
      const warning = logs()[0]!;
      expect(warning).to.include({ kind: "log", severity: "warning", projectId: PROJECT });
      expect(warning.told).to.include({ kind: "peer_unreachable", portNumber: 1, peer: "127.0.0.1:6001", reason: "recvmsg ECONNREFUSED" });
      expect(warning.message).to.include("Ethernet switch SW1").and.include("port 1").and.include("127.0.0.1:6001").and.include("ECONNREFUSED");
      expect(logger.lines.filter((l) => l.level === "warn")).to.have.length(1);

      // Traffic towards the dead peer goes on, and is not told again.
      peer(0).fromPeer(eth(BROADCAST, H1));
      peer(1).fail("recvmsg ECONNREFUSED");
      expect(logs()).to.have.length(1);

      // The peer is back (a frame came from it): the next failure is a new episode.
      peer(1).fromPeer(eth(BROADCAST, H2));
      peer(1).fail("recvmsg ECONNREFUSED");
      expect(logs()).to.have.length(2);
      expect(logs()[1]).to.include({ severity: "warning", projectId: PROJECT });
    });

    it("keeps episodes apart per port", async () => {
      await wired(switchNode(), 3);
      peer(1).fail("recvmsg ECONNREFUSED");
      peer(2).fail("recvmsg ECONNREFUSED");
      peer(1).fail("recvmsg ECONNREFUSED");
      expect(logs().map((n) => n.message.match(/port (\d+)/)?.[1])).to.deep.equal(["1", "2"]);
    });

    it("names the node by its current name and kind", async () => {
      const h = await wired(hubNode("HUB1"), 2);
      await dp.sync({ ...h, name: "Backbone" });
      peer(0).fail("recvmsg ECONNREFUSED");
      expect(logs()[0]!.message).to.include("Ethernet hub Backbone port 0");
    });

    it("tells an error and ends the capture when its file can no longer be written", async () => {
      const sw = await wired(switchNode(), 2);
      const path = "/projects/p/project-files/captures/one.pcap";
      expect(E.isRight(await dp.start(sw.nodeId, 1, path))).to.equal(true);
      const writer = sink.writers[0]!;
      peer(0).fromPeer(eth(BROADCAST, H1));
      expect(writer.frames).to.have.length(1);

      writer.fail("ENOSPC: no space left on device, write");
      expect(logs()).to.have.length(1);
      expect(logs()[0]).to.include({ kind: "log", severity: "error", projectId: PROJECT });
      expect(logs()[0]!.message).to.include("Ethernet switch SW1 port 1").and.include(path).and.include("ENOSPC");
      expect(logger.lines.filter((l) => l.level === "error")).to.have.length(1);
      expect((await dp.fileOf(sw.nodeId, 1))).to.equal(undefined);
      expect((await dp.fileOf(sw.nodeId, 1)) !== undefined).to.equal(false);
      await Promise.resolve();
      expect(writer.closed, "the failed writer is closed").to.equal(true);

      // Frames keep flowing; the port can capture again.
      peer(0).fromPeer(eth(BROADCAST, H1));
      expect(sentTo(1)).to.have.length(2);
      expect(E.isRight(await dp.start(sw.nodeId, 1, path))).to.equal(true);
      expect((await dp.fileOf(sw.nodeId, 1))).to.equal(path);
    });

    it("ignores a failure reported by a capture that was already stopped", async () => {
      const sw = await wired(switchNode(), 2);
      await dp.start(sw.nodeId, 1, "/c/old.pcap");
      const old = sink.writers[0]!;
      await dp.stop(sw.nodeId, 1);
      await dp.start(sw.nodeId, 1, "/c/new.pcap");
      old.fail("EIO");
      expect(logs()).to.deep.equal([]);
      expect((await dp.fileOf(sw.nodeId, 1))).to.equal("/c/new.pcap");
    });
  });
});

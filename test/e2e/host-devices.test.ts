import { expect } from "chai";
import { spawn } from "node:child_process";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import * as E from "fp-ts/lib/Either.js";
import { workerIndexOf } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { attachNio } from "../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { twoDataPlaneWorkers } from "../support/two-data-plane-workers.js";
import { TestNamespace, leftovers, makeVeth, removeMade, requireRoot, sh, testName } from "../support/netns.js";

const PROJECT = "83838383-3333-4444-8555-666666666666";

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * nio_tap and nio_ethernet with real TCP/IP hosts (ADR 0083): two network namespaces, each joined to
 * a port of a netemu switch by a veth whose host end is the port's nio_ethernet, or by a TAP device
 * netemu opened (creating it) and the test moved into the namespace. Root only (CI is root): each
 * name holds the test's pid, and every one is removed by the test.
 */
describe("nio_tap and nio_ethernet between real TCP/IP hosts (network namespaces)", function () {
  this.timeout(60_000);

  before(function () {
    requireRoot(this, "making namespaces and devices needs root");
  });

  for (const workers of [0, 1]) {
    describe(workers === 0 ? "on the main thread" : "through a data-plane worker", () => {
      let s: TestServer;
      let base: string;
      let spaces: TestNamespace[];
      const hostEnds = [testName("ne", "h0"), testName("ne", "h1")];
      const taps = [testName("nt", "t0"), testName("nt", "t1")];

      beforeEach(async () => {
        s = await startTestServer({ dataPlaneWorkers: workers });
        expect((await s.request("POST", "/v2/compute/projects", { name: "hosts", project_id: PROJECT })).status).to.equal(201);
        const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
        base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
        spaces = [await TestNamespace.make(testName("nn", "a")), await TestNamespace.make(testName("nn", "b"))];
      });

      afterEach(async () => {
        await s.close();
        await removeMade(spaces, [...hostEnds, ...taps]);
        expect(await leftovers(), "what the test made, left behind").to.deep.equal([]);
      });

      /** Joins namespace i to switch port i by a veth whose host end is the port's nio_ethernet. */
      const joinByVeth = async (i: number): Promise<void> => {
        const peer = testName("np", `p${i}`);
        await makeVeth(hostEnds[i]!, peer);
        await spaces[i]!.takeInterface(peer, "eth0", `10.83.0.${i + 1}/24`);
        const r = await s.request("POST", `${base}/adapters/0/ports/${i}/nio`, { type: "nio_ethernet", ethernet_device: hostEnds[i] });
        expect(r.status, r.text).to.equal(201);
        expect(r.json).to.deep.equal({ type: "nio_ethernet", ethernet_device: hostEnds[i] });
      };

      /** Joins namespace i to switch port i by a TAP netemu opens (and so creates), then moved into the namespace. */
      const joinByTap = async (i: number): Promise<void> => {
        const r = await s.request("POST", `${base}/adapters/0/ports/${i}/nio`, { type: "nio_tap", tap_device: taps[i] });
        expect(r.status, r.text).to.equal(201);
        expect(r.json).to.deep.equal({ type: "nio_tap", tap_device: taps[i] });
        await spaces[i]!.takeInterface(taps[i]!, "eth0", `10.83.0.${i + 1}/24`);
      };

      it("carries pings between two namespaces joined by veths, and delays them by the port's impairment", async () => {
        await joinByVeth(0);
        await joinByVeth(1);
        const before = await spaces[0]!.pingMs("10.83.0.2", 5);
        expect(before, "every ping answered").to.have.length(5);
        const set = await s.netemu.useCases.setImpairment.execute({ project: "hosts", node: "SW1", port: "1", out: { delay: [100] } });
        expect(set._tag, JSON.stringify(set)).to.equal("Right");
        const delayed = await spaces[0]!.pingMs("10.83.0.2", 5);
        expect(delayed).to.have.length(5);
        // Each request waits 100 ms on its way out to B; the replies are not held.
        expect(Math.min(...delayed), `RTTs ${delayed.join(", ")} ms; before ${before.join(", ")} ms`).to.be.at.least(99);
        expect(median(delayed) - median(before), "what the delay added").to.be.within(95, 400);
      });

      it("carries pings and an iperf3 run between two namespaces joined by TAP devices netemu opened", async () => {
        await joinByTap(0);
        await joinByTap(1);
        expect(await spaces[0]!.pingMs("10.83.0.2", 3)).to.have.length(3);
        const server = spawn("ip", ["netns", "exec", spaces[1]!.name, "iperf3", "-s", "-1", "-B", "10.83.0.2"], { stdio: "ignore" });
        try {
          await new Promise((r) => setTimeout(r, 500));
          const report = JSON.parse(await spaces[0]!.exec("iperf3", "-c", "10.83.0.2", "-t", "2", "-J")) as { end: { sum_received: { bits_per_second: number } } };
          // A floor far under what two shared cores give (hundreds of Mbit/s): TCP works across netemu's switch.
          expect(report.end.sum_received.bits_per_second).to.be.above(5e6);
        } finally {
          server.kill();
        }
        await s.netemu.useCases.setImpairment.execute({ project: "hosts", node: "SW1", port: "0", in: { delay: [50] } });
        const delayed = await spaces[0]!.pingMs("10.83.0.2", 3);
        expect(Math.min(...delayed), `RTTs ${delayed.join(", ")} ms`).to.be.at.least(49);
      });

      it("removes a TAP it created when its NIO goes", async () => {
        const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_tap", tap_device: taps[0] });
        expect(r.status, r.text).to.equal(201);
        expect(await sh("ip", "link", "show", taps[0]!)).to.contain(taps[0]);
        expect((await s.request("DELETE", `${base}/adapters/0/ports/0/nio`)).status).to.equal(204);
        await sh("ip", "link", "show", taps[0]!).then(
          () => expect.fail("the TAP is still there"),
          (err: Error) => expect(err.message).to.match(/does not exist/),
        );
      });

      it("refuses a host interface that does not exist, naming it, and attaches nothing", async () => {
        const missing = testName("nx", "zz");
        const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_ethernet", ethernet_device: missing });
        expect(r.status).to.equal(409);
        expect(r.json).to.deep.equal({ message: `Ethernet interface ${missing} does not exist`, status: 409 });
        const again = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_null" });
        expect(again.status, "the port stayed free").to.equal(201);
      });

      it("refuses a TAP name held by an interface that is not a TAP, naming it", async () => {
        await makeVeth(hostEnds[0]!, testName("np", "p0"));
        const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_tap", tap_device: hostEnds[0] });
        expect(r.status).to.equal(409);
        expect(r.json.message).to.match(new RegExp(`^TAP interface ${hostEnds[0]} exists and is not a TAP device`));
      });

      it("refuses a TAP another port holds already", async () => {
        expect((await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_tap", tap_device: taps[0] })).status).to.equal(201);
        const r = await s.request("POST", `${base}/adapters/0/ports/1/nio`, { type: "nio_tap", tap_device: taps[0] });
        expect(r.status).to.equal(409);
        expect(r.json.message).to.equal(`TAP interface ${taps[0]} is already in use by another program or port`);
      });
    });
  }

  it("keeps a TAP moved into a namespace carrying frames when its node moves to another data-plane worker (the fd is handed over)", async () => {
    const NODE = "aaaaaaaa-0000-4000-8000-0000000000d3";
    const dp = twoDataPlaneWorkers();
    const spaces = [await TestNamespace.make(testName("nm", "a")), await TestNamespace.make(testName("nm", "b"))];
    const taps = [testName("nt", "m0"), testName("nt", "m1")];
    try {
      let node = createEthernetSwitch({ nodeId: NODE, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
      for (const i of [0, 1]) {
        const attached = attachNio(node, i, { type: "nio_tap", tapDevice: taps[i]!, filters: {}, suspend: false });
        if (E.isLeft(attached)) throw new Error(attached.left._tag);
        node = attached.right;
      }
      expect(await dp.sync(node)).to.deep.equal(E.right(undefined));
      for (const i of [0, 1]) await spaces[i]!.takeInterface(taps[i]!, "eth0", `10.83.1.${i + 1}/24`);
      expect(await spaces[0]!.pingMs("10.83.1.2", 2)).to.have.length(2);
      expect(await dp.moveNode(NODE, 1 - workerIndexOf(NODE, 2))).to.equal(true);
      // Opened again by name, the TAP would be a new one in netemu's namespace: the pings would go nowhere.
      expect(await spaces[0]!.pingMs("10.83.1.2", 2), "after the move").to.have.length(2);
    } finally {
      await dp.close();
      await removeMade(spaces, taps);
    }
    expect(await leftovers()).to.deep.equal([]);
  });
});

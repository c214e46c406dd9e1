import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { TestNamespace, leftovers, makeVeth, removeMade, requireRoot, testName } from "../support/netns.js";

const PROJECT = "82828282-3333-4444-8555-666666666666";

/**
 * A cloud's `ethernet` and `tap` ports with real TCP/IP hosts (ADR 0082 on ADR 0083's devices): namespace
 * A sits on a veth whose host end is the cloud's `ethernet` port, namespace B on the TAP the cloud's `tap`
 * port opens (netemu creates it when the port is linked; the test moves it into B). Both cloud ports are
 * linked to a switch, so A pings B across cloud, switch, cloud. Root only; every name holds the test's pid.
 */
describe("a cloud's ethernet and tap ports between real TCP/IP hosts (network namespaces)", function () {
  this.timeout(60_000);

  before(function () {
    requireRoot(this, "making namespaces and devices needs root");
  });

  for (const workers of [0, 1]) {
    it(`carries pings from a host interface to a TAP through the cloud and a switch, and lets the cloud's ports change once unlinked (${workers === 0 ? "main thread" : "data-plane worker"})`, async () => {
      const hostEnd = testName("ce", "h");
      const peer = testName("cp", "p");
      const tap = testName("ct", "t");
      let s: TestServer | undefined;
      const spaces: TestNamespace[] = [];
      try {
        s = await startTestServer({ dataPlaneWorkers: workers });
        const base = `/v2/compute/projects/${PROJECT}`;
        expect((await s.request("POST", "/v2/compute/projects", { name: "cloud-devices", project_id: PROJECT })).status).to.equal(201);
        spaces.push(await TestNamespace.make(testName("cn", "a")), await TestNamespace.make(testName("cn", "b")));
        await makeVeth(hostEnd, peer);
        await spaces[0]!.takeInterface(peer, "eth0", "10.82.0.1/24");
        const cloud = await s.request("POST", `${base}/cloud/nodes`, {
          name: "Cloud1",
          ports_mapping: [
            { name: "lan", port_number: 0, type: "ethernet", interface: hostEnd },
            { name: "tap", port_number: 1, type: "tap", interface: tap },
          ],
        });
        expect(cloud.status, cloud.text).to.equal(201);
        const sw = (await s.request("POST", `${base}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id as string;
        const links: string[] = [];
        for (const port of [0, 1]) {
          const [a, b] = [(await s.request("POST", `${base}/ports/udp`, {})).json.udp_port, (await s.request("POST", `${base}/ports/udp`, {})).json.udp_port];
          const c = await s.request("POST", `${base}/cloud/nodes/${cloud.json.node_id}/adapters/0/ports/${port}/nio`, { type: "nio_udp", lport: a, rhost: "127.0.0.1", rport: b });
          expect(c.status, c.text).to.equal(201);
          expect((await s.request("POST", `${base}/ethernet_switch/nodes/${sw}/adapters/0/ports/${port}/nio`, { type: "nio_udp", lport: b, rhost: "127.0.0.1", rport: a })).status).to.equal(201);
          links.push(`${base}/cloud/nodes/${cloud.json.node_id}/adapters/0/ports/${port}/nio`);
        }
        // The tap port's link made the TAP: B takes it.
        await spaces[1]!.takeInterface(tap, "eth0", "10.82.0.2/24");
        const rtts = await spaces[0]!.pingMs("10.82.0.2", 5);
        expect(rtts, "pings answered across the cloud's two devices").to.have.length.at.least(4);
        for (const link of links) expect((await s.request("DELETE", link)).status).to.equal(204);
        // Its ports unlinked, the cloud's ports can change again (GNS3's rule).
        expect((await s.request("PUT", `${base}/cloud/nodes/${cloud.json.node_id}`, { ports_mapping: [] })).status).to.equal(200);
      } finally {
        await s?.close();
        await removeMade(spaces, [hostEnd, tap]);
      }
      expect(await leftovers(), "what the test made, left behind").to.deep.equal([]);
    });
  }
});

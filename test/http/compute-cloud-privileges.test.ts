import { expect } from "chai";
import { InMemoryHostDevices } from "../support/in-memory-data-plane.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";

const PROJECT = "82828282-1111-4444-8555-666666666666";

/**
 * A cloud's TAP and host-interface ports on a netemu without the privilege they need (ADR 0082 on ADR
 * 0083's refusals, the host's devices a fake): the link on such a port is refused, naming the cloud, its
 * port, the device and the capability, and nothing is left attached. The real privilege drop is
 * test/integration/host-device-privileges.test.ts's.
 */
describe("a cloud's device ports without CAP_NET_ADMIN or CAP_NET_RAW", () => {
  let s: TestServer;
  afterEach(() => s.close());

  for (const [port, device, capability, what] of [
    [0, "tap7", "CAP_NET_ADMIN", "TAP interface tap7"],
    [1, "eth7", "CAP_NET_RAW", "Ethernet interface eth7"],
  ] as const) {
    it(`refuses a link on its ${what} with 409 naming the cloud, the port and ${capability}, and leaves the port free`, async () => {
      const devices = new InMemoryHostDevices();
      devices.refuse(device, { problem: "missing_capability", capability });
      s = await startTestServer({ overrides: { hostDevices: devices } });
      await s.request("POST", "/v2/compute/projects", { name: "p", project_id: PROJECT });
      const cloud = await s.request("POST", `/v2/compute/projects/${PROJECT}/cloud/nodes`, {
        name: "Cloud1",
        ports_mapping: [
          { name: "tap", port_number: 0, type: "tap", interface: "tap7" },
          { name: "lan", port_number: 1, type: "ethernet", interface: "eth7" },
        ],
      });
      expect(cloud.status, cloud.text).to.equal(201);
      const node = `/v2/compute/projects/${PROJECT}/cloud/nodes/${cloud.json.node_id}`;
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`, {})).json.udp_port;
      const r = await s.request("POST", `${node}/adapters/0/ports/${port}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
      expect(r.status, r.text).to.equal(409);
      expect(r.json).to.deep.equal({
        exception: "NodeError",
        message: `Cloud Cloud1: port ${port === 0 ? "tap" : "lan"} cannot be used: ${what} cannot be opened: netemu runs without ${capability} (run it as root, or grant the capability: setcap cap_net_admin,cap_net_raw+ep on its node binary)`,
        status: 409,
      });
      // Nothing attached: no NIO to delete, and the cloud's ports may still change.
      expect((await s.request("DELETE", `${node}/adapters/0/ports/${port}/nio`)).status).to.equal(409);
      expect((await s.request("PUT", node, { ports_mapping: [] })).status).to.equal(200);
    });
  }
});

import { expect } from "chai";
import { VpcsConsole } from "../support/vpcs-console.js";
import { Gns3Server, requireGns3Peer } from "../support/gns3-peer.js";

/** Proves the harness the GNS3-compatibility tests rely on: a real GNS3 2.2.59 with VPCS 0.8.3. */
describe("the GNS3 2.2.59 peer used by the end-to-end tests", function () {
  this.timeout(120_000);
  let server: Gns3Server | undefined;
  const consoles: VpcsConsole[] = [];

  before(function () {
    requireGns3Peer(this);
  });

  afterEach(async () => {
    await Promise.all(consoles.splice(0).map((c) => c.close()));
    await server?.stop();
    server = undefined;
  });

  it("runs two linked VPCS nodes on its local compute that ping each other through their consoles", async () => {
    const gns3 = (server = await Gns3Server.start());

    const version = await gns3.request("GET", "/v2/version");
    expect(version.status, version.text).to.equal(200);
    expect(version.json.version).to.equal("2.2.59");

    const project = await gns3.request("POST", "/v2/projects", { name: "gns3-peer-e2e" });
    expect(project.status, project.text).to.equal(201);
    const p = project.json.project_id as string;

    const createVpcs = async (name: string): Promise<string> => {
      const r = await gns3.request("POST", `/v2/projects/${p}/nodes`, { name, node_type: "vpcs", compute_id: "local" });
      expect(r.status, r.text).to.equal(201);
      return r.json.node_id;
    };
    const pc1 = await createVpcs("PC1");
    const pc2 = await createVpcs("PC2");

    const link = await gns3.request("POST", `/v2/projects/${p}/links`, {
      nodes: [
        { node_id: pc1, adapter_number: 0, port_number: 0 },
        { node_id: pc2, adapter_number: 0, port_number: 0 },
      ],
    });
    expect(link.status, link.text).to.equal(201);

    const started = await gns3.request("POST", `/v2/projects/${p}/nodes/start`);
    expect(started.status, `${started.text}\n${gns3.log()}`).to.equal(204);

    const openConsole = async (nodeId: string): Promise<VpcsConsole> => {
      const node = (await gns3.request("GET", `/v2/projects/${p}/nodes/${nodeId}`)).json;
      expect(node.status).to.equal("started");
      expect(node.console_type).to.equal("telnet");
      const c = await VpcsConsole.connect(node.console, node.console_host);
      consoles.push(c);
      return c;
    };
    const [c1, c2] = await Promise.all([openConsole(pc1), openConsole(pc2)]);

    // Both at once: each `ip` spends about 3 s checking for a duplicate address.
    await Promise.all([c1.setIp("10.0.0.1/24"), c2.setIp("10.0.0.2/24")]);
    const ping = await c1.ping("10.0.0.2", 3);
    expect(ping.replies, ping.output).to.be.at.least(2);
    expect(ping.rttsMs.every((ms) => ms >= 0 && ms < 1000), ping.output).to.equal(true);

    await Promise.all(consoles.splice(0).map((c) => c.close()));
    const closed = await gns3.request("POST", `/v2/projects/${p}/close`);
    expect(closed.status, closed.text).to.be.oneOf([201, 204]);
    const deleted = await gns3.request("DELETE", `/v2/projects/${p}`);
    expect(deleted.status, deleted.text).to.equal(204);
  });
});

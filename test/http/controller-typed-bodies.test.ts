import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";

/**
 * What the API's description says of a link's style and a node's properties is what the routes take
 * (issue 26): typed where GNS3's clients give them a type, free where a client adds its own keys.
 */
describe("HTTP: the controller's bodies read as the OpenAPI document types them", () => {
  let s: TestServer;
  let projectId: string;
  let sw1: string;
  let hub: string;
  const links = () => `/v2/projects/${projectId}/links`;
  const nodes = () => `/v2/projects/${projectId}/nodes`;
  const ends = () => [
    { node_id: sw1, adapter_number: 0, port_number: 1 },
    { node_id: hub, adapter_number: 0, port_number: 1 },
  ];

  beforeEach(async () => {
    s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() } });
    projectId = (await s.request("POST", "/v2/projects", { name: "typed" })).json.project_id;
    sw1 = (await s.request("POST", nodes(), { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
    hub = (await s.request("POST", nodes(), { name: "HUB1", node_type: "ethernet_hub", compute_id: "local" })).json.node_id;
  });
  afterEach(async () => s.close());

  it("keeps a link style as given, the keys a client adds among them", async () => {
    const style = { color: "#00ff00", width: 1.5, type: 2, dash: [4, 2], note: "uplink" };
    const created = await s.request("POST", links(), { nodes: ends(), link_style: style });
    expect(created.status).to.equal(201);
    expect(created.json.link_style).to.deep.equal(style);
    expect((await s.request("GET", `${links()}/${created.json.link_id}`)).json.link_style).to.deep.equal(style);
  });

  for (const [what, style, message] of [
    ["a color that is not a string", { color: 5 }, "5 is not of type 'string'"],
    ["a width that is not a number", { width: "2" }, "'2' is not of type 'number'"],
    ["a line type that is not an integer", { type: 1.5 }, "1.5 is not of type 'integer'"],
  ] as const) {
    it(`refuses a link style with ${what} with GNS3's 400, on create and on update, and keeps the style it had`, async () => {
      const refused = await s.request("POST", links(), { nodes: ends(), link_style: style });
      expect(refused.status).to.equal(400);
      expect(refused.json.message).to.include(message);
      expect(refused.json.path).to.equal("/v2/projects/{project_id}/links");
      expect((await s.request("GET", links())).json).to.deep.equal([]);
      const link = (await s.request("POST", links(), { nodes: ends(), link_style: { color: "#000000" } })).json;
      const update = await s.request("PUT", `${links()}/${link.link_id}`, { link_style: style });
      expect(update.status).to.equal(400);
      expect(update.json.message).to.include(message);
      expect((await s.request("GET", `${links()}/${link.link_id}`)).json.link_style).to.deep.equal({ color: "#000000" });
    });
  }

  it("refuses node properties whose entries fit neither a switch nor a hub, telling the deepest mismatch, and creates nothing", async () => {
    const vlan = await s.request("POST", nodes(), { name: "SW2", node_type: "ethernet_switch", compute_id: "local", properties: { ports_mapping: [{ name: "e0", port_number: 0, type: "access", vlan: 5000 }] } });
    expect(vlan.status).to.equal(400);
    expect(vlan.json.message).to.include("5000 is greater than the maximum of 4094");
    expect(vlan.json.path).to.equal("/v2/projects/{project_id}/nodes");
    const name = await s.request("PUT", `${nodes()}/${hub}`, { properties: { ports_mapping: [{ name: 5, port_number: 0 }] } });
    expect(name.status).to.equal(400);
    expect(name.json.message).to.include("5 is not of type 'string'");
    expect((await s.request("GET", nodes())).json.map((n: { name: string }) => n.name).sort()).to.deep.equal(["HUB1", "SW1"]);
  });

  it("refuses a hub's entries on a switch with the switch's own message once the node is found, and an unknown node with 404 first", async () => {
    const untyped = await s.request("PUT", `${nodes()}/${sw1}`, { properties: { ports_mapping: [{ name: "e0", port_number: 0 }] } });
    expect(untyped.status).to.equal(400);
    expect(untyped.json.message).to.include("'type' is a required property");
    expect(untyped.json.path).to.equal("/v2/projects/{project_id}/nodes/{node_id}");
    const unknown = await s.request("PUT", `${nodes()}/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee`, { properties: { ports_mapping: [{ name: "e0", port_number: 0 }] } });
    expect(unknown.json).to.deep.equal({ message: "Node ID aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee doesn't exist", status: 404 });
  });
});

import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";

const PROJECT = "68686868-1111-4222-8333-444444444444";
const TWIN_A = "68686868-1111-4222-8333-000000000001";
const TWIN_B = "68686868-1111-4222-8333-000000000002";
const PATH = "/v2/netemu/impairments";

describe("/v2/netemu/impairments: netemu's impairments on a GNS3 port, by the names the GUI shows (ADR 0067)", () => {
  let s: TestServer;
  let switchId: string;
  beforeEach(async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT });
    await s.request("POST", "/v2/compute/projects", { name: "twin", project_id: TWIN_A });
    await s.request("POST", "/v2/compute/projects", { name: "twin", project_id: TWIN_B });
    switchId = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "Switch1" })).json.node_id;
  });
  afterEach(() => s.close());

  it("sets a port's impairments per direction and answers them with the port's ids and names", async () => {
    const r = await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet2", filters_out: { delay: [50], bandwidth: [1000] } });
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.deep.equal({
      filters_in: {},
      filters_out: { delay: [50], bandwidth: [1000] },
      node_id: switchId,
      node_name: "Switch1",
      port_name: "Ethernet2",
      port_number: 2,
      project_id: PROJECT,
      project_name: "lab",
    });
  });

  it("lists them, all or those of a project, node or port given in the query string", async () => {
    await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet2", filters_out: { delay: [50] } });
    await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet0", filters_in: { packet_loss: [5] } });
    const all = await s.request("GET", PATH);
    expect(all.status).to.equal(200);
    expect(all.json.map((i: { port_name: string }) => i.port_name)).to.deep.equal(["Ethernet0", "Ethernet2"]);
    const one = await s.request("GET", `${PATH}?project=lab&node=Switch1&port=Ethernet2`);
    expect(one.json.map((i: { port_name: string }) => i.port_name)).to.deep.equal(["Ethernet2"]);
    expect((await s.request("GET", `${PATH}?project=other`)).json).to.deep.equal([]);
  });

  it("clears what the selection names and answers what it removed; clearing nothing is no error", async () => {
    await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet2", filters_out: { delay: [50] } });
    await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet0", filters_in: { packet_loss: [5] } });
    const cleared = await s.request("DELETE", `${PATH}?project=lab&port=2`);
    expect(cleared.status, cleared.text).to.equal(200);
    expect(cleared.json.map((i: { port_name: string }) => i.port_name)).to.deep.equal(["Ethernet2"]);
    expect((await s.request("GET", PATH)).json.map((i: { port_name: string }) => i.port_name)).to.deep.equal(["Ethernet0"]);
    expect((await s.request("DELETE", `${PATH}?project=nothing`)).json).to.deep.equal([]);
    expect((await s.request("DELETE", PATH)).json).to.have.length(1);
    expect((await s.request("GET", PATH)).json).to.deep.equal([]);
  });

  it("answers 404 naming the project, node or port it did not find, and sets nothing", async () => {
    for (const [body, message] of [
      [{ project: "nolab", node: "Switch1", port: "Ethernet2" }, 'Project "nolab" not found on this compute'],
      [{ project: "lab", node: "Switch9", port: "Ethernet2" }, 'Node "Switch9" not found in project "lab"'],
      [{ project: "lab", node: "Switch1", port: "Ethernet9" }, 'Port "Ethernet9" not found on node "Switch1"'],
    ] as const) {
      const r = await s.request("PUT", PATH, { ...body, filters_out: { delay: [50] } });
      expect([r.status, r.json]).to.deep.equal([404, { message, status: 404 }]);
    }
    expect((await s.request("GET", PATH)).json).to.deep.equal([]);
  });

  it("answers 409 for a name two projects share, telling to use the id, which then works", async () => {
    await s.request("POST", `/v2/compute/projects/${TWIN_A}/ethernet_hub/nodes`, { name: "Hub1" });
    const r = await s.request("PUT", PATH, { project: "twin", node: "Hub1", port: "Ethernet0", filters_in: { delay: [5] } });
    expect([r.status, r.json]).to.deep.equal([409, { message: '2 projects are named "twin": name the project by its id', status: 409 }]);
    expect((await s.request("PUT", PATH, { project: TWIN_A, node: "Hub1", port: "Ethernet0", filters_in: { delay: [5] } })).status).to.equal(200);
  });

  it("answers 400 for filters out of range, a pcap-filter that does not compile, no direction or an unknown key, and changes nothing", async () => {
    await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet2", filters_out: { delay: [50] } });
    const before = (await s.request("GET", PATH)).json;
    const cases: [unknown, string][] = [
      [{ project: "lab", node: "Switch1", port: "Ethernet2", filters_out: { packet_loss: [101] } }, "filters_out"],
      [{ project: "lab", node: "Switch1", port: "Ethernet2", filters_in: { bpf: ["tcp port ((("] } }, "filters_in"],
      [{ project: "lab", node: "Switch1", port: "Ethernet2" }, "at least one direction"],
      [{ project: "lab", node: "Switch1", port: "Ethernet2", filters_out: {}, speed: 1 }, "speed"],
      [{ project: "lab", node: "Switch1", filters_out: {} }, "'port' is a required property"],
      [{ project: "", node: "Switch1", port: "Ethernet2", filters_out: {} }, "project"],
    ];
    for (const [body, says] of cases) {
      const r = await s.request("PUT", PATH, body);
      expect(r.status, JSON.stringify(body)).to.equal(400);
      expect(r.json.message, JSON.stringify(body)).to.contain(says);
      expect(r.json.status).to.equal(400);
    }
    expect((await s.request("GET", `${PATH}?colour=red`)).status, "an unknown selection key").to.equal(400);
    expect((await s.request("GET", PATH)).json).to.deep.equal(before);
  });
});

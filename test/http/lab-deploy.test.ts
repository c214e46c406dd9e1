import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLabCommand } from "../../src/adapters/cli/lab/lab-command.js";
import { RouteLabApi, type LabApi } from "../../src/adapters/cli/lab/lab-api.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { freeTcpPort } from "../support/free-tcp-port.js";

interface Run {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

const LAB = `# yaml-language-server: $schema=../schemas/lab.schema.json
name: core
nodes:
  sw1:
    kind: ethernet_switch
    ports:
      - {port: 0, vlan: 10}
      - {port: 1, vlan: 20}
      - {port: 7, type: dot1q}
  sw2:
    kind: ethernet_switch
    ports:
      - {port: 0, vlan: 10}
      - {port: 7, type: dot1q}
  hub1: {kind: ethernet_hub, ports: 4}
links:
  - endpoints: [sw1:e7, sw2:e7]
    filters: {packet_loss: 1}
    a_to_b: {delay: [40, 5], bandwidth: 10000}
    b_to_a: {delay: 40}
  - endpoints: [hub1:e0, sw1:Ethernet0]
`;

describe("netemu lab against a real netemu: deploy, inspect, save, destroy (ADR 0084)", function () {
  this.timeout(30_000);
  let s: TestServer;
  let dir: string;
  let file: string;

  const lab = async (args: readonly string[], api?: (server: string) => LabApi): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runLabCommand([args[0] ?? "", "--server", s.url, ...args.slice(1)], {}, (l) => out.push(l), (l) => err.push(l), api === undefined ? undefined : (server) => api(server.url));
    return { code, out, err };
  };
  const projectId = async (name: string): Promise<string | undefined> => ((await s.request("GET", "/v2/projects")).json as { name: string; project_id: string }[]).find((p) => p.name === name)?.project_id;
  /** The project as the API shows it: nodes by name with type, status and ports; links by node names with filters. */
  const state = async (name: string) => {
    const p = await projectId(name);
    const nodes = (await s.request("GET", `/v2/projects/${p}/nodes`)).json as { node_id: string; name: string; node_type: string; status: string; properties: { ports_mapping: unknown } }[];
    const names = new Map(nodes.map((n) => [n.node_id, n.name]));
    const links = (await s.request("GET", `/v2/projects/${p}/links`)).json as { filters: unknown; suspend: boolean; nodes: { node_id: string; port_number: number; filters?: unknown }[] }[];
    return {
      nodes: nodes.map((n) => ({ name: n.name, type: n.node_type, status: n.status, ports: n.properties.ports_mapping })).sort((a, b) => a.name.localeCompare(b.name)),
      links: links.map((l) => ({ ends: l.nodes.map((e) => `${names.get(e.node_id)}:${e.port_number}`), filters: l.filters, out: l.nodes.map((e) => e.filters ?? {}), suspend: l.suspend })),
    };
  };

  beforeEach(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "netemu-lab-"));
    file = join(dir, "core.yml");
    writeFileSync(file, LAB);
  });
  afterEach(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("deploys a lab: its switches with their VLANs and trunks, a hub, links with each direction's impairments, all started", async () => {
    const r = await lab(["deploy", file]);
    expect(r.err).to.deep.equal([]);
    expect(r.code).to.equal(0);
    expect(r.out[0]).to.match(/^netemu lab: deployed lab core: 3 nodes, 2 links \(project [0-9a-f-]{36}\)$/);
    expect(r.out.slice(1)).to.deep.equal([
      "NODE  KIND             STATUS   CONSOLE  ADDRESSES",
      "sw1   ethernet_switch  started  -        -",
      "sw2   ethernet_switch  started  -        -",
      "hub1  ethernet_hub     started  -        -",
      "",
      "A        B       FILTERS        A->B                        B->A",
      "sw1:e7   sw2:e7  packet_loss=1  delay=40,5 bandwidth=10000  delay=40",
      "hub1:e0  sw1:e0  -              -                           -",
    ]);
    const deployed = await state("core");
    expect(deployed.nodes.map((n) => [n.name, n.type, n.status])).to.deep.equal([["hub1", "ethernet_hub", "started"], ["sw1", "ethernet_switch", "started"], ["sw2", "ethernet_switch", "started"]]);
    expect(deployed.nodes[1]?.ports).to.deep.equal([
      { name: "Ethernet0", port_number: 0, type: "access", vlan: 10 },
      { name: "Ethernet1", port_number: 1, type: "access", vlan: 20 },
      { name: "Ethernet7", port_number: 7, type: "dot1q", vlan: 1 },
    ]);
    // The impairments as the API shows them: GNS3's filters both ways, netemu's per end (what that end sends).
    expect(deployed.links).to.deep.equal([
      { ends: ["sw1:7", "sw2:7"], filters: { packet_loss: [1] }, out: [{ delay: [40, 5], bandwidth: [10000] }, { delay: [40] }], suspend: false },
      { ends: ["hub1:0", "sw1:0"], filters: {}, out: [{}, {}], suspend: false },
    ]);
  });

  it("says a lab exists and changes nothing; the same file again is no change, a changed one needs --reconfigure", async () => {
    await lab(["deploy", file]);
    const before = await state("core");
    const again = await lab(["deploy", file]);
    expect([again.code, again.out, again.err]).to.deep.equal([0, [`netemu lab: lab core is deployed already (project ${await projectId("core")}), as ${file} says: nothing to change`], []]);
    writeFileSync(file, LAB.replace("b_to_a: {delay: 40}", "b_to_a: {delay: 80}").replace("hub1: {kind: ethernet_hub, ports: 4}", "hub1: {kind: ethernet_hub, ports: 6}"));
    const refused = await lab(["deploy", file]);
    expect([refused.code, refused.out]).to.deep.equal([1, []]);
    expect(refused.err).to.deep.equal([`netemu lab: lab core exists (project ${await projectId("core")}); nothing changed. It differs from ${file} in 4 steps: give --reconfigure to make them`]);
    expect(await state("core")).to.deep.equal(before);
  });

  it("reconfigures a lab to what its file says: impairments changed in place, a hub's ports remapped with its link made again", async () => {
    await lab(["deploy", file]);
    writeFileSync(file, LAB.replace("b_to_a: {delay: 40}", "b_to_a: {delay: 80}").replace("hub1: {kind: ethernet_hub, ports: 4}", "hub1: {kind: ethernet_hub, ports: 6}").replace("  - endpoints: [hub1:e0, sw1:Ethernet0]\n", "  - endpoints: [hub1:e5, sw2:e0]\n    suspend: true\n"));
    const r = await lab(["deploy", file, "--reconfigure"]);
    expect(r.err).to.deep.equal([]);
    expect(r.out[0]).to.match(/^netemu lab: reconfigured \(4 steps\) lab core: 3 nodes, 2 links/);
    const after = await state("core");
    expect(after.nodes.find((n) => n.name === "hub1")?.ports).to.have.length(6);
    expect(after.links).to.deep.equal([
      { ends: ["sw1:7", "sw2:7"], filters: { packet_loss: [1] }, out: [{ delay: [40, 5], bandwidth: [10000] }, { delay: [80] }], suspend: false },
      { ends: ["hub1:5", "sw2:0"], filters: {}, out: [{}, {}], suspend: true },
    ]);
    const again = await lab(["deploy", file, "--reconfigure"]);
    expect(again.out[0]).to.match(/is deployed already .*nothing to change$/);
  });

  it("inspects a lab by name or by its file, and answers 1 for a lab that is not there", async () => {
    await lab(["deploy", file]);
    const byName = await lab(["inspect", "core"]);
    const byFile = await lab(["inspect", file]);
    expect(byName.code).to.equal(0);
    expect(byName.out[0]).to.equal(`lab core (project ${await projectId("core")}) on ${s.url}`);
    expect(byFile.out).to.deep.equal(byName.out);
    expect(byName.out).to.include("sw1:e7   sw2:e7  packet_loss=1  delay=40,5 bandwidth=10000  delay=40");
    const missing = await lab(["inspect", "nope"]);
    expect([missing.code, missing.err]).to.deep.equal([1, [`netemu lab: no lab nope on ${s.url}`]]);
  });

  it("saves a running lab as a file that deploys the same lab again after a destroy", async () => {
    await lab(["deploy", file]);
    const deployed = await state("core");
    const saved = await lab(["save", "core", "--schema", "../schemas/lab.schema.json"]);
    expect([saved.code, saved.err]).to.deep.equal([0, []]);
    expect(saved.out[0]).to.equal("# yaml-language-server: $schema=../schemas/lab.schema.json");
    const savedFile = join(dir, "saved.yml");
    writeFileSync(savedFile, `${saved.out.join("\n")}\n`);
    expect((await lab(["deploy", savedFile])).out[0]).to.match(/is deployed already .*nothing to change$/);
    const id = await projectId("core");
    const destroyed = await lab(["destroy", "core"]);
    expect(destroyed.out).to.deep.equal([`netemu lab: destroyed lab core (project ${id})`]);
    expect(await projectId("core")).to.equal(undefined);
    expect((await lab(["deploy", savedFile])).code).to.equal(0);
    expect(await state("core")).to.deep.equal(deployed);
  });

  it("destroys a lab by its file: its project, nodes and links are gone", async () => {
    await lab(["deploy", file]);
    const id = await projectId("core");
    const r = await lab(["destroy", file]);
    expect([r.code, r.out, r.err]).to.deep.equal([0, [`netemu lab: destroyed lab core (project ${id})`], []]);
    expect((await s.request("GET", "/v2/projects")).json).to.deep.equal([]);
    const again = await lab(["destroy", file]);
    expect([again.code, again.err]).to.deep.equal([1, [`netemu lab: no lab core on ${s.url}`]]);
  });

  it("stops at a step the server refuses, naming it, and a reconfigure takes it from there", async () => {
    // The server's own refusal of a link, passed through an API that swaps one port number for one the switch has not.
    const refusing = (server: string): LabApi => {
      const real = new RouteLabApi({ url: server });
      return Object.assign(Object.create(real) as LabApi, {
        createLink: (p: string, body: Readonly<Record<string, unknown>>) => real.createLink(p, { ...body, nodes: (body["nodes"] as Record<string, unknown>[]).map((n, i) => (i === 0 ? { ...n, port_number: 99 } : n)) }),
      });
    };
    const r = await lab(["deploy", file], refusing);
    expect(r.code).to.equal(1);
    expect(r.err).to.have.length(1);
    expect(r.err[0]).to.match(/^netemu lab: could not create a link: http:\/\/127\.0\.0\.1:\d+ answered 404: .*\(step 5 of 7: create link sw1:7 - sw2:7; the steps before it were made, `netemu lab deploy --reconfigure` takes it from there\)$/);
    const fixed = await lab(["deploy", file, "--reconfigure"]);
    expect([fixed.code, fixed.err]).to.deep.equal([0, []]);
    expect((await state("core")).links).to.have.length(2);
  });

  it("answers 2 with the file, line and field for a lab file that cannot be used, and asks the server nothing", async () => {
    writeFileSync(file, LAB.replace("vlan: 20", "vlan: 5000"));
    const r = await lab(["deploy", file]);
    expect([r.code, r.out, r.err]).to.deep.equal([2, [], [`netemu lab: ${file}:8:25: nodes.sw1.ports[1].vlan: 5000 is above the maximum of 4094`]]);
    expect((await s.request("GET", "/v2/projects")).json).to.deep.equal([]);
  });

  it("refuses exec on a node that is not a VPCS or a host, and on a node no lab has", async () => {
    await lab(["deploy", file]);
    const sw = await lab(["exec", "sw1", "--", "ping", "10.0.0.1"]);
    expect([sw.code, sw.err]).to.deep.equal([1, ["netemu lab: node sw1 is a node of type ethernet_switch: exec types into VPCS consoles (and Linux hosts) only"]]);
    const none = await lab(["exec", "--lab", "core", "pc9", "--", "ping"]);
    expect([none.code, none.err]).to.deep.equal([1, [`netemu lab: no node pc9 in lab core on ${s.url}`]]);
  });

  it("answers 2 when no server answers", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const closed = `http://127.0.0.1:${await freeTcpPort()}`;
    const code = await runLabCommand(["inspect", "core", "--server", closed], {}, (l) => out.push(l), (l) => err.push(l));
    expect([code, out]).to.deep.equal([2, []]);
    expect(err[0]).to.match(new RegExp(`^netemu lab: no answer from ${closed}: .*ECONNREFUSED`));
  });

  it("answers 2 for arguments it does not take, and 0 with its help", async () => {
    const run = async (args: string[]): Promise<Run> => {
      const out: string[] = [];
      const err: string[] = [];
      return { code: await runLabCommand(args, {}, (l) => out.push(l), (l) => err.push(l)), out, err };
    };
    expect(await run(["deploy", file, "--force"])).to.deep.include({ code: 2, err: ["netemu lab: Unknown option '--force'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--force\" (netemu lab --help)"] });
    expect(await run(["inspect", "x", "--reconfigure"])).to.deep.include({ code: 2, err: ["netemu lab: --reconfigure is not an option of inspect (netemu lab --help)"] });
    expect(await run(["exec", "pc1"])).to.deep.include({ code: 2, err: ["netemu lab: exec NODE -- COMMAND: give the command after -- (netemu lab --help)"] });
    expect(await run(["exec", "pc1", "--timeout", "soon", "--", "ping"])).to.deep.include({ code: 2, err: ["netemu lab: --timeout soon: give a number of seconds"] });
    expect(await run(["frobnicate"])).to.deep.include({ code: 2, err: ['netemu lab: unknown lab command "frobnicate" (netemu lab --help)'] });
    expect(await run(["inspect", "x", "--server", "localhost:3080"])).to.deep.include({ code: 2, err: ["netemu lab: --server localhost:3080: give the server's address, e.g. http://127.0.0.1:3080"] });
    const help = await run(["--help"]);
    expect([help.code, help.out[0]?.split("\n")[0]]).to.deep.equal([0, "usage: netemu lab deploy FILE [--reconfigure] [--wait SECONDS] [--server URL]"]);
  });
});

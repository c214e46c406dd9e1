import { expect } from "chai";
import { readFileSync } from "node:fs";
import * as E from "fp-ts/lib/Either.js";
import { GNS3_TOPOLOGY_REVISION, type ProjectTopology, describeProblem, parseProjectFile, renderProjectFile } from "../../../src/adapters/persistence/gns3-project-format.js";

/** Project files a real GNS3 2.2.59 wrote (../shared/gns3-peer/projects). */
const GNS3_WROTE = new URL("../../../../../shared/gns3-peer/projects/", import.meta.url);
const gns3File = (name: string): string => readFileSync(new URL(name, GNS3_WROTE), "utf8");

function parsed(text: string, path = "/p", filename = "lab.gns3"): ProjectTopology {
  const r = parseProjectFile(text, path, filename);
  if (E.isLeft(r)) throw new Error(describeProblem(r.left));
  return r.right;
}

function problem(text: string): string {
  const r = parseProjectFile(text, "/p", "lab.gns3");
  if (E.isRight(r)) throw new Error("expected the file to be refused");
  return describeProblem(r.left);
}

describe("GNS3 project files (.gns3, topology revision 9)", () => {
  it("reads a file GNS3 2.2 wrote: its switches, hub, ports_mapping, links, filters and suspend, the project closed", () => {
    const { project, nodes, links } = parsed(gns3File("switches-and-hub.gns3"), "/projects/02ae1f4f", "switches-and-hub.gns3");
    expect(project).to.deep.include({
      projectId: "02ae1f4f-ce48-4b47-a893-97a2af975372",
      name: "switches-and-hub",
      status: "closed",
      path: "/projects/02ae1f4f",
      filename: "switches-and-hub.gns3",
      autoClose: true,
      sceneWidth: 2000,
      gridSize: 75,
      unsupportedNodeTypes: [],
    });
    expect(nodes.map((n) => [n.name, n.nodeType, n.portsMapping.length])).to.deep.equal([
      ["SW1", "ethernet_switch", 8],
      ["SW2", "ethernet_switch", 8],
      ["HUB1", "ethernet_hub", 8],
    ]);
    expect(nodes[0]?.portsMapping[0]).to.deep.equal({ name: "Ethernet0", port_number: 0, type: "access", vlan: 10 });
    expect(nodes[2]?.portsMapping[0]).to.deep.equal({ name: "Ethernet0", port_number: 0 });
    expect(nodes[2]?.consoleType).to.equal(null);
    const byId = new Map(links.map((l) => [l.linkId, l]));
    expect(byId.get("43a405f8-e728-4975-895e-ce2c8ea0384f")?.filters).to.deep.equal({ delay: [40, 5], packet_loss: [2] });
    expect(byId.get("cd2ffb22-df52-4710-8fb7-ec995cfb4e3b")?.suspend).to.equal(true);
    expect(byId.get("a2f3a083-f894-46ce-b515-4b14056778fe")?.nodes.map((e) => [e.portNumber, e.label.text, e.udpPort])).to.deep.equal([
      [1, "0/1", 0],
      [1, "0/1", 0],
    ]);
  });

  it("lists the node types it does not run, and reads none of that project's nodes or links", () => {
    // GNS3's switch-and-vpcs project with its VPCS made QEMU VMs, which netemu does not run.
    const { project, nodes, links } = parsed(gns3File("switch-and-vpcs.gns3").replaceAll('"node_type": "vpcs"', '"node_type": "qemu"'));
    expect(project.unsupportedNodeTypes).to.deep.equal(["qemu"]);
    expect(nodes).to.deep.equal([]);
    expect(links).to.deep.equal([]);
  });

  it("reads the VPCS nodes GNS3 wrote, their one port and console kept, and writes them back with GNS3's keys (ADR 0081)", () => {
    const topology = parsed(gns3File("switch-and-vpcs.gns3"));
    const pcs = topology.nodes.filter((n) => n.nodeType === "vpcs");
    expect(pcs.map((n) => [n.name, n.console, n.consoleType, n.portsMapping, n.symbol])).to.deep.equal([
      ["PC1", 5001, "telnet", [{ name: "Ethernet0", port_number: 0 }], ":/symbols/computer.svg"],
      ["PC2", 5003, "telnet", [{ name: "Ethernet0", port_number: 0 }], ":/symbols/computer.svg"],
    ]);
    expect(topology.links).to.have.length(2);
    const theirs = JSON.parse(gns3File("switch-and-vpcs.gns3")).topology.nodes.find((n: { name: string }) => n.name === "PC1");
    const ours = JSON.parse(renderProjectFile(topology, "2.2.59")).topology.nodes.find((n: { name: string }) => n.name === "PC1");
    expect(ours).to.deep.equal(theirs);
  });

  it("writes what GNS3 writes: every key of GNS3's own file, keys sorted, four-space indents, revision 9", () => {
    const theirs = JSON.parse(gns3File("switches-and-hub.gns3")) as Record<string, unknown> & { topology: { nodes: Record<string, unknown>[]; links: Record<string, unknown>[] } };
    const text = renderProjectFile(parsed(gns3File("switches-and-hub.gns3")), "2.2.59");
    const ours = JSON.parse(text) as typeof theirs;
    expect(Object.keys(ours)).to.deep.equal(Object.keys(theirs));
    expect(Object.keys(ours.topology.nodes[0] as object)).to.deep.equal(Object.keys(theirs.topology.nodes[0] as object));
    expect(Object.keys(ours.topology.links[0] as object)).to.deep.equal(Object.keys(theirs.topology.links[0] as object));
    expect(ours).to.deep.include({ revision: GNS3_TOPOLOGY_REVISION, type: "topology", version: "2.2.59", project_id: theirs["project_id"] });
    expect(ours.topology.links).to.deep.equal(theirs.topology.links);
    expect(ours.topology.nodes.map((n) => n["properties"])).to.deep.equal(theirs.topology.nodes.map((n) => n["properties"]));
    expect(text.split("\n")[1]).to.match(/^ {4}"auto_close": true,$/);
  });

  it("reads back exactly what it wrote", () => {
    const first = parsed(gns3File("switches-and-hub.gns3"));
    expect(parsed(renderProjectFile(first, "2.2.59"))).to.deep.equal(first);
  });

  it("keeps netemu's one-way filters of a link end, and writes no such key where there are none", () => {
    const gns3s = parsed(gns3File("switches-and-hub.gns3"));
    const [link, ...others] = gns3s.links;
    if (link === undefined) throw new Error("no link");
    const withOneWay = { ...gns3s, links: [{ ...link, nodes: [{ ...link.nodes[0], filters: { bandwidth: [5000, 20] } }, link.nodes[1]] as const }, ...others] };
    const text = renderProjectFile(withOneWay, "2.2.59");
    expect(parsed(text)).to.deep.equal(withOneWay);
    const written = JSON.parse(text) as { topology: { links: { nodes: Record<string, unknown>[] }[] } };
    expect(written.topology.links.flatMap((l) => l.nodes).filter((n) => "filters" in n)).to.have.length(1);
  });

  it("keeps the template a node was made from, and drops a template_id that is not a template id's shape", () => {
    const gns3s = parsed(gns3File("switches-and-hub.gns3"));
    const [first, second, ...others] = gns3s.nodes;
    if (first === undefined || second === undefined) throw new Error("no nodes");
    const fromTemplate = { ...gns3s, nodes: [{ ...first, templateId: "1966b864-93e7-32d5-965f-001384eec461" }, second, ...others] };
    const text = renderProjectFile(fromTemplate, "2.2.59");
    expect(parsed(text)).to.deep.equal(fromTemplate);
    const written = JSON.parse(text) as { topology: { nodes: Record<string, unknown>[] } };
    expect(written.topology.nodes.map((n) => n["template_id"])).to.deep.equal(["1966b864-93e7-32d5-965f-001384eec461", null, null]);
    const odd = JSON.parse(gns3File("switches-and-hub.gns3")) as { topology: { nodes: Record<string, unknown>[] } };
    (odd.topology.nodes[0] as Record<string, unknown>)["template_id"] = "x".repeat(10_000);
    (odd.topology.nodes[1] as Record<string, unknown>)["template_id"] = 7;
    expect(parsed(JSON.stringify(odd)).nodes.map((n) => n.templateId)).to.deep.equal([undefined, undefined, undefined]);
  });

  it("refuses what is not a GNS3 2.2 project file, saying why", () => {
    const good = JSON.parse(gns3File("switches-and-hub.gns3")) as Record<string, unknown> & { topology: { links: { filters: unknown; nodes: unknown[] }[] } };
    expect(problem("{ not json")).to.match(/^not JSON: /);
    expect(problem(JSON.stringify({ ...good, topology: undefined }))).to.match(/^not a GNS3 project file: topology/);
    expect(problem(JSON.stringify({ ...good, type: "appliance" }))).to.match(/^not a GNS3 project file: type/);
    expect(problem(JSON.stringify({ ...good, revision: 10 }))).to.equal("topology revision 10 is newer than GNS3 2.2's (9)");
    const badFilters = structuredClone(good);
    (badFilters.topology.links[0] as { filters: unknown }).filters = { delay: [99999] };
    expect(problem(JSON.stringify(badFilters))).to.equal("link 43a405f8-e728-4975-895e-ce2c8ea0384f: filters: Filter delay: Latency must be between 0 and 32767 ms, got 99999");
    const threeEnds = structuredClone(good);
    const ends = threeEnds.topology.links[0]?.nodes as unknown[];
    ends.push(ends[0]);
    expect(problem(JSON.stringify(threeEnds))).to.equal("link 43a405f8-e728-4975-895e-ce2c8ea0384f: 3 ends");
  });
});

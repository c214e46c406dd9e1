import { expect } from "chai";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import * as E from "fp-ts/lib/Either.js";
import { describeProblem, parseProjectFile, renderProjectFile } from "../../../src/adapters/persistence/gns3-project-format.js";
import { CONFIGURATION_LIMITS } from "../../../src/domain/configuration/limits.js";
import { JSON_DEPTH_LIMIT } from "../../../src/adapters/shared/gns3-json.js";
import { FC_SEED } from "../../support/hardening-kit.js";

/**
 * The `.gns3` door: every value a project file holds goes through the domain's parse of that value,
 * within the same limits as HTTP; a refusal names where in the file, and says which rule.
 */
const GNS3_WROTE = new URL("../../../../../shared/gns3-peer/projects/", import.meta.url);
const L = CONFIGURATION_LIMITS;

interface GnsFile {
  project_id: string;
  variables: unknown;
  supplier: unknown;
  topology: {
    nodes: { node_id: string; name: string; properties: { ports_mapping: Record<string, unknown>[] } }[];
    links: { link_id: string; filters: Record<string, unknown>; nodes: Record<string, unknown>[] }[];
  };
  [key: string]: unknown;
}

/** A fresh copy of the file GNS3 2.2.59 wrote: SW1, SW2 and HUB1, three links. */
const gns3File = (): GnsFile => JSON.parse(readFileSync(new URL("switches-and-hub.gns3", GNS3_WROTE), "utf8")) as GnsFile;

function refusedFor(file: unknown): string {
  const r = parseProjectFile(typeof file === "string" ? file : JSON.stringify(file), "/p", "lab.gns3");
  if (E.isRight(r)) throw new Error("expected the file to be refused");
  return describeProblem(r.left);
}

function nested(levels: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

describe("the .gns3 door: project files read through the domain's parses, within the limits", () => {
  it("reads the file GNS3 wrote as it is (the baseline every case below changes one thing of)", () => {
    expect(E.isRight(parseProjectFile(JSON.stringify(gns3File()), "/p", "lab.gns3"))).to.equal(true);
  });

  it("refuses a switch port in VLAN 5000, naming the node, the field in the file and the rule", () => {
    const file = gns3File();
    const sw1 = file.topology.nodes[0]!;
    sw1.properties.ports_mapping[4]!["vlan"] = 5000;
    expect(refusedFor(file)).to.equal(`node ${sw1.node_id}: topology.nodes[0].properties.ports_mapping[4].vlan: 5000 is greater than the maximum of 4094`);
  });

  it("refuses a QinQ ethertype of 0xBEEF", () => {
    const file = gns3File();
    const sw2 = file.topology.nodes[1]!;
    Object.assign(sw2.properties.ports_mapping[2]!, { type: "qinq", ethertype: "0xBEEF" });
    expect(refusedFor(file)).to.equal(`node ${sw2.node_id}: topology.nodes[1].properties.ports_mapping[2].ethertype: '0xBEEF' is not one of ['', '0x8100', '0x88A8', '0x9100', '0x9200']`);
  });

  it("refuses two ports numbered 3, in a switch and in a hub, naming both", () => {
    for (const index of [0, 2]) {
      const file = gns3File();
      const node = file.topology.nodes[index]!;
      node.properties.ports_mapping[5]!["port_number"] = 3;
      expect(refusedFor(file)).to.equal(
        `node ${node.node_id}: topology.nodes[${index}].properties.ports_mapping[5].port_number: port number 3 is already given by topology.nodes[${index}].properties.ports_mapping[3].port_number`,
      );
    }
  });

  it(`refuses a node name of ${L.nameLength + 1} characters and a port of ${L.portsPerNode + 1} entries`, () => {
    const named = gns3File();
    named.topology.nodes[2]!.name = "n".repeat(L.nameLength + 1);
    expect(refusedFor(named)).to.include(`topology.nodes[2].name: is longer than ${L.nameLength} characters`);
    const big = gns3File();
    big.topology.nodes[0]!.properties.ports_mapping = Array.from({ length: L.portsPerNode + 1 }, (_, i) => ({ name: `E${i}`, port_number: i, type: "access", vlan: 1 }));
    expect(refusedFor(big)).to.include(`topology.nodes[0].properties.ports_mapping: has ${L.portsPerNode + 1} items, more than the ${L.portsPerNode} netemu allows`);
  });

  it("refuses a link filter line past the expression length, and too many lines on one end, naming the link and where", () => {
    // Whether a filter compiles (3,000 nested parentheses do not) is the project store's to ask: see the integration test.
    const long = gns3File();
    const link = long.topology.links[1]!;
    link.filters = { bpf: ["t".repeat(L.expressionLength + 1)] };
    expect(refusedFor(long)).to.equal(`link ${link.link_id}: filters: Filter bpf: line 1 has ${L.expressionLength + 1} characters, more than the ${L.expressionLength} an expression may have`);
    const lines = gns3File();
    const other = lines.topology.links[0]!;
    other.nodes[1]!["filters"] = { match: [Array.from({ length: L.filterLines + 1 }, () => "icmp").join("\n")] };
    expect(refusedFor(lines)).to.equal(`link ${other.link_id}: nodes[1].filters: Filter match: at most ${L.filterLines} expression lines, got ${L.filterLines + 1}`);
  });

  it(`refuses more than ${L.nodesPerProject} nodes or ${L.linksPerProject} links before decoding any of them`, () => {
    const nodes = gns3File();
    // Entries that are not nodes at all: the count is what refuses the file, before any entry is read.
    (nodes.topology as { nodes: unknown[] }).nodes = Array.from({ length: L.nodesPerProject + 1 }, () => 0);
    expect(refusedFor(nodes)).to.equal(`topology.nodes: has ${L.nodesPerProject + 1} items, more than the ${L.nodesPerProject} netemu allows`);
    const links = gns3File();
    (links.topology as { links: unknown[] }).links = Array.from({ length: L.linksPerProject + 1 }, () => "not a link");
    expect(refusedFor(links)).to.equal(`topology.links: has ${L.linksPerProject + 1} items, more than the ${L.linksPerProject} netemu allows`);
  });

  it(`reads a file nested ${JSON_DEPTH_LIMIT} levels deep and refuses one nested ${JSON_DEPTH_LIMIT + 1}, wherever the nesting is`, () => {
    // The file is level 1, its keys' values level 2.
    const at = (levels: number) => ({ ...gns3File(), extra: nested(levels - 1) });
    expect(E.isRight(parseProjectFile(JSON.stringify(at(JSON_DEPTH_LIMIT)), "/p", "lab.gns3"))).to.equal(true);
    expect(refusedFor(at(JSON_DEPTH_LIMIT + 1))).to.equal(`not JSON: nested deeper than ${JSON_DEPTH_LIMIT} levels`);
    // 200,000 levels in a link's style, written as text (JSON.stringify itself could not).
    const deepLink = gns3File();
    (deepLink.topology.links[0] as Record<string, unknown>)["link_style"] = "DEEP";
    const text = JSON.stringify(deepLink).replace('"DEEP"', "[".repeat(200_000) + "]".repeat(200_000));
    expect(refusedFor(text)).to.equal(`not JSON: nested deeper than ${JSON_DEPTH_LIMIT} levels`);
  });

  it("reads a link's style with the keys a client added, and refuses one whose color is not a string (the API's LinkStyle)", () => {
    const styled = gns3File();
    (styled.topology.links[0] as Record<string, unknown>)["link_style"] = { color: "#ff0000", width: 2.5, type: 1, dash: [2, 1] };
    const read = parseProjectFile(JSON.stringify(styled), "/p", "lab.gns3");
    if (E.isLeft(read)) throw new Error(describeProblem(read.left));
    expect(read.right.links.find((l) => l.linkId === styled.topology.links[0]!.link_id)?.linkStyle).to.deep.equal({ color: "#ff0000", width: 2.5, type: 1, dash: [2, 1] });
    const wrong = gns3File();
    (wrong.topology.links[0] as Record<string, unknown>)["link_style"] = { color: 5 };
    expect(refusedFor(wrong)).to.match(/link_style/);
  });

  it(`refuses variables or a supplier nested deeper than ${L.jsonDepth} levels, and takes them at ${L.jsonDepth}`, () => {
    for (const key of ["variables", "supplier"] as const) {
      const ok = gns3File();
      ok[key] = nested(L.jsonDepth);
      expect(E.isRight(parseProjectFile(JSON.stringify(ok), "/p", "lab.gns3")), key).to.equal(true);
      const deep = gns3File();
      deep[key] = nested(L.jsonDepth + 1);
      expect(refusedFor(deep)).to.equal(`${key}: is nested deeper than ${L.jsonDepth} levels`);
    }
  });

  it("refuses a __proto__ filter kind as any unknown kind, leaves a __proto__ key out of a port entry, and pollutes nothing", () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort().join(",");
    const text = JSON.stringify(gns3File());
    const withFilter = text.replace('"filters":{"delay"', '"filters":{"__proto__":{"polluted":true},"delay"');
    expect(withFilter).to.not.equal(text);
    expect(refusedFor(withFilter)).to.match(/Unknown filter type '__proto__'/);
    const withPort = text.replace('{"name":"Ethernet0","port_number":0,', '{"__proto__":{"vlan":5000,"polluted":true},"name":"Ethernet0","port_number":0,');
    expect(withPort).to.not.equal(text);
    const read = parseProjectFile(withPort, "/p", "lab.gns3");
    if (E.isLeft(read)) throw new Error(describeProblem(read.left));
    expect(read.right.nodes[0]?.portsMapping[0]).to.deep.equal({ name: "Ethernet0", port_number: 0, type: "access", vlan: 10 });
    expect(Object.getOwnPropertyNames(Object.prototype).sort().join(",")).to.equal(before);
    expect(({} as Record<string, unknown>)["polluted"]).to.equal(undefined);
  });

  it("reads back from its own rendering the topology it read from GNS3's file", () => {
    const first = parseProjectFile(JSON.stringify(gns3File()), "/p", "lab.gns3");
    if (E.isLeft(first)) throw new Error(describeProblem(first.left));
    const again = parseProjectFile(renderProjectFile(first.right, "2.2.59"), "/p", "lab.gns3");
    expect(again).to.deep.equal(first);
  });

  it("answers every mutation of GNS3's file with a topology or a reason, never a throw (fast-check, seeded)", () => {
    const all: (string | number)[][] = [];
    const walk = (v: unknown, prefix: (string | number)[]) => {
      all.push(prefix);
      if (typeof v === "object" && v !== null) for (const [k, x] of Object.entries(v)) walk(x, [...prefix, Array.isArray(v) ? Number(k) : k]);
    };
    walk(gns3File(), []);
    const junk = fc.oneof(fc.json().map((t) => JSON.parse(t) as unknown), fc.constantFrom(5000, -1, 65_536, "0xBEEF", "", null, [], {}, "(".repeat(3000)));
    fc.assert(
      fc.property(fc.nat({ max: all.length - 1 }), junk, (pick, value) => {
        const file = gns3File() as unknown as Record<string, unknown>;
        const path = all[pick] as (string | number)[];
        if (path.length === 0) return;
        let at: Record<string | number, unknown> = file;
        for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
        at[path[path.length - 1] as string | number] = value;
        const r = parseProjectFile(JSON.stringify(file), "/p", "lab.gns3");
        expect(E.isLeft(r) ? typeof describeProblem(r.left) : "read").to.be.oneOf(["string", "read"]);
      }),
      { numRuns: 300, seed: FC_SEED, endOnFailure: true },
    );
  });
});

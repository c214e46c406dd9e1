import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { readFileSync, readdirSync } from "node:fs";
import { describeLabFileInvalid, parseLab } from "../../../../src/application/labs/parse-lab.js";
import type { Lab } from "../../../../src/application/labs/lab.js";
import { type CurrentLab, type LabOperation, planDeploy } from "../../../../src/application/labs/plan-deploy.js";
import { renderLab } from "../../../../src/application/labs/render-lab.js";
import { type DeployedProject, labOfProject, propertiesOf, NODE_TYPE_OF } from "../../../../src/application/labs/gns3-nodes.js";

const LABS = new URL("../../../../../labs/", import.meta.url);

function lab(...lines: string[]): Lab {
  const r = parseLab(`${lines.join("\n")}\n`, "lab.yml");
  if (E.isLeft(r)) throw new Error(describeLabFileInvalid(r.left));
  return r.right;
}

const BASE = [
  "name: lab",
  "nodes:",
  "  sw1: {kind: ethernet_switch}",
  "  sw2: {kind: ethernet_switch}",
  "  hub1: {kind: ethernet_hub, ports: 4}",
  "links:",
  "  - endpoints: [sw1:e7, sw2:e7]",
  "    a_to_b: {delay: 40}",
  "  - endpoints: [hub1:e0, sw1:e0]",
];

/** The lab as the project that runs it: every node started, link ids l0, l1 ... */
function running(l: Lab, notStarted: string[] = []): CurrentLab {
  return { projectId: "p", lab: l, linkIds: l.links.map((_x, i) => `l${i}`), notStarted };
}

const ops = (steps: readonly LabOperation[]): string[] =>
  steps.map((s) => {
    switch (s.op) {
      case "createProject":
        return `createProject ${s.name}`;
      case "deleteLink":
        return `deleteLink ${s.linkId}`;
      case "deleteNode":
        return `deleteNode ${s.name}`;
      case "updateNode":
        return `updateNode ${s.node.name}`;
      case "createNode":
        return `createNode ${s.node.name} at ${s.x},${s.y}`;
      case "createLink":
        return `createLink ${s.link.ends.map((e) => `${e.node}:${e.port}`).join("-")}`;
      case "updateLink":
        return `updateLink ${s.linkId}`;
      case "startNodes":
        return "startNodes";
    }
  });

function plan(want: Lab, current: CurrentLab | undefined, reconfigure = true): string[] {
  const r = planDeploy(want, current, { reconfigure });
  if (E.isLeft(r)) throw new Error(`refused: ${JSON.stringify(r.left)}`);
  return ops(r.right);
}

describe("lab deploy plan (ADR 0084)", () => {
  it("makes a new lab: the project, every node on a grid unless placed, every link, then starts the nodes", () => {
    const placed = lab(...BASE.slice(0, 4), "  hub1: {kind: ethernet_hub, ports: 4, x: 10, y: 20}", ...BASE.slice(5));
    expect(plan(placed, undefined, false)).to.deep.equal(["createProject lab", "createNode sw1 at -375,-200", "createNode sw2 at -225,-200", "createNode hub1 at 10,20", "createLink sw1:7-sw2:7", "createLink hub1:0-sw1:0", "startNodes"]);
  });

  it("refuses a lab whose project exists, changing nothing, and says how many steps a reconfigure would take", () => {
    const want = lab(...BASE);
    const changed = lab(...BASE.slice(0, 7), "    a_to_b: {delay: 80}", ...BASE.slice(8));
    expect(planDeploy(want, running(want), { reconfigure: false })).to.deep.equal(E.left({ _tag: "LabExists", name: "lab", projectId: "p", changes: 0 }));
    expect(planDeploy(changed, running(want), { reconfigure: false })).to.deep.equal(E.left({ _tag: "LabExists", name: "lab", projectId: "p", changes: 1 }));
  });

  it("needs no step for a project that is the lab already, whichever way round its links were made", () => {
    const want = lab(...BASE);
    const reversed = lab(...BASE.slice(0, 6), "  - endpoints: [sw2:e7, sw1:e7]", "    b_to_a: {delay: 40}", ...BASE.slice(8));
    expect(plan(want, running(want))).to.deep.equal([]);
    expect(plan(want, running(reversed))).to.deep.equal([]);
  });

  it("converges a changed impairment by updating the link in place", () => {
    const want = lab(...BASE.slice(0, 7), "    a_to_b: {delay: 80}", "    b_to_a: {bandwidth: 1000}", ...BASE.slice(8));
    expect(plan(want, running(lab(...BASE)))).to.deep.equal(["updateLink l0"]);
  });

  it("converges added and removed nodes and links: links first, then nodes, then the new links, then starts", () => {
    const want = lab("name: lab", "nodes:", "  sw1: {kind: ethernet_switch}", "  sw2: {kind: ethernet_switch}", "  sw3: {kind: ethernet_switch}", "links:", "  - endpoints: [sw1:e7, sw2:e7]", "    a_to_b: {delay: 40}", "  - endpoints: [sw2:e6, sw3:e6]");
    expect(plan(want, running(lab(...BASE)))).to.deep.equal(["deleteLink l1", "deleteNode hub1", "createNode sw3 at -75,-200", "createLink sw2:6-sw3:6", "startNodes"]);
  });

  it("re-makes the links of a node whose ports change, since a port with a link cannot be remapped", () => {
    const want = lab(...BASE.slice(0, 4), "  hub1: {kind: ethernet_hub, ports: 6}", ...BASE.slice(5));
    expect(plan(want, running(lab(...BASE)))).to.deep.equal(["deleteLink l1", "updateNode hub1", "createLink hub1:0-sw1:0"]);
  });

  it("re-makes a node whose kind changed, with its links, and starts it", () => {
    const want = lab(...BASE.slice(0, 4), "  hub1: {kind: ethernet_switch}", ...BASE.slice(5));
    expect(plan(want, running(lab(...BASE)))).to.deep.equal(["deleteLink l1", "deleteNode hub1", "createNode hub1 at -75,-200", "createLink hub1:0-sw1:0", "startNodes"]);
  });

  it("re-makes a PC whose address or script changed, with its links (VPCS reads its script as it starts; GNS3's node PUT takes no script), and only moves a PC placed elsewhere", () => {
    const pcs = (pc1: string) => lab("name: lab", "nodes:", "  sw1: {kind: ethernet_switch}", `  pc1: {kind: vpcs, ${pc1}}`, "links:", "  - endpoints: [pc1:e0, sw1:e0]");
    const have = labOfRunning(pcs("address: 10.0.0.1/24"));
    expect(plan(pcs("address: 10.0.0.1/24"), running(have))).to.deep.equal([]);
    expect(plan(pcs("address: 10.0.0.9/24"), running(have))).to.deep.equal(["deleteLink l0", "deleteNode pc1", "createNode pc1 at -225,-200", "createLink pc1:0-sw1:0", "startNodes"]);
    expect(plan(pcs("address: 10.0.0.1/24, startup_script: \"set mtu 1400\""), running(have))).to.deep.equal(["deleteLink l0", "deleteNode pc1", "createNode pc1 at -225,-200", "createLink pc1:0-sw1:0", "startNodes"]);
    expect(plan(pcs("address: 10.0.0.1/24, x: 5, y: 5"), running(have))).to.deep.equal(["updateNode pc1"]);
  });

  it("moves a node the lab places elsewhere, and leaves where the lab does not say", () => {
    const have = labOfRunning(lab(...BASE));
    expect(plan(lab(...BASE), running(have))).to.deep.equal([]);
    const want = lab(...BASE.slice(0, 2), "  sw1: {kind: ethernet_switch, x: 500, y: 0}", ...BASE.slice(3));
    expect(plan(want, running(have))).to.deep.equal(["updateNode sw1"]);
  });

  it("starts the nodes of a lab that runs stopped", () => {
    const want = lab(...BASE);
    expect(plan(want, running(want, ["sw2"]))).to.deep.equal(["startNodes"]);
  });

  it("empties a project deployed from a lab that now has no links", () => {
    const want = lab(...BASE.slice(0, 5));
    expect(plan(want, running(lab(...BASE)))).to.deep.equal(["deleteLink l0", "deleteLink l1"]);
  });
});

/** A lab as a server would answer it (GNS3's node types and properties, positions on the grid), read back as a lab. */
function labOfRunning(l: Lab): Lab {
  const project: DeployedProject = {
    projectId: "p",
    name: l.name,
    nodes: l.nodes.map((n, i) => ({ nodeId: `n-${n.name}`, name: n.name, nodeType: NODE_TYPE_OF[n.kind], properties: propertiesOf(n), status: "started", console: null, consoleHost: null, consoleType: null, x: n.x ?? (i % 6) * 150 - 375, y: n.y ?? -200 })),
    links: l.links.map((link, i) => ({
      linkId: `l${i}`,
      ends: link.ends.map((e, j) => ({ nodeId: `n-${e.node}`, adapterNumber: 0, portNumber: e.port, filters: { ...(j === 0 ? link.aToB : link.bToA) } })),
      filters: { ...link.filters },
      suspend: link.suspend,
      linkStyle: link.style ?? {},
    })),
  };
  const read = labOfProject(project);
  if (E.isLeft(read)) throw new Error(read.left.what);
  return read.right;
}

describe("lab files written back (netemu lab save)", () => {
  for (const file of readdirSync(LABS).filter((f) => f.endsWith(".yml"))) {
    it(`writes ${file}, read from the project it makes, as a file that deploys as no change`, () => {
      const original = parseLab(readFileSync(new URL(file, LABS), "utf8"), file);
      if (E.isLeft(original)) throw new Error(describeLabFileInvalid(original.left));
      const saved = labOfRunning(original.right);
      const text = renderLab(saved, ["a header"]);
      const again = parseLab(text, "saved.yml");
      if (E.isLeft(again)) throw new Error(`${describeLabFileInvalid(again.left)}\n${text}`);
      expect(again.right).to.deep.equal(saved);
      expect(plan(again.right, running(saved))).to.deep.equal([]);
      expect(plan(original.right, running(saved))).to.deep.equal([]);
    });
  }

  it("refuses to write a project holding a node no lab can say, naming it", () => {
    const project: DeployedProject = { projectId: "p", name: "lab", nodes: [{ nodeId: "n", name: "R1", nodeType: "qemu", properties: {}, status: "started", console: 5000, consoleHost: "127.0.0.1", consoleType: "telnet", x: 0, y: 0 }], links: [] };
    expect(labOfProject(project)).to.deep.equal(E.left({ _tag: "NotALab", project: "lab", what: "node R1 is a qemu node (a lab holds ethernet_switch, ethernet_hub, vpcs, cloud and host nodes)" }));
  });

  it("reads a VPCS startup script back into the PC's address, gateway and its other lines", () => {
    const pc = lab("name: lab", "nodes:", "  pc1: {kind: vpcs, address: 10.0.0.1/24, gateway: 10.0.0.254, startup_script: \"set mtu 1400\"}");
    expect(propertiesOf(pc.nodes[0] as Lab["nodes"][number])).to.deep.equal({ startup_script: "ip 10.0.0.1/24 10.0.0.254\nset mtu 1400\n" });
    expect(labOfRunning(pc).nodes[0]).to.deep.include({ address: "10.0.0.1/24", gateway: "10.0.0.254", startupScript: "set mtu 1400" });
  });
});

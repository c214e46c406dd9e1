import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { startTestServer, type Reply, type TestServer } from "../support/http-harness.js";
import { CONFIGURATION_LIMITS } from "../../src/domain/configuration/limits.js";
import { InMemoryComputeNodeRepository, InMemoryLinkRepository } from "../../src/adapters/persistence/in-memory-repositories.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import type { Link } from "../../src/domain/topology/link.js";

/**
 * Each door of the HTTP API refuses configuration out of its rules with a 400 in GNS3's shape
 * (message, method, route, the request as sent) and changes nothing: what a GET shows afterwards is
 * what it showed before. The real app, the real in-process data plane, sockets on 127.0.0.1.
 */
const L = CONFIGURATION_LIMITS;
const PROJECT = "0d0d0d0d-1111-4222-8333-444444444444";
const SWITCHES = "/v2/compute/projects/{project_id}/ethernet_switch/nodes";
const HUBS = "/v2/compute/projects/{project_id}/ethernet_hub/nodes";
const NIO_ROUTE = `${SWITCHES}/{node_id}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}/nio`;
const LINKS = "/v2/projects/{project_id}/links";

const switchEntry = (n: number, extra: Record<string, unknown> = {}) => ({ name: `Ethernet${n}`, port_number: n, type: "access", vlan: 1, ...extra });
const hubEntry = (n: number) => ({ name: `Ethernet${n}`, port_number: n });
const bpfLines = (count: number): string => Array.from({ length: count }, (_, i) => `udp port ${i + 1}`).join("\n");
const nestedParentheses = (depth: number): string => "(".repeat(depth) + "tcp" + ")".repeat(depth);
const nots = (count: number): string => "not ".repeat(count) + "tcp";

/** A 400 as GNS3 answers it: the message, the method, the route's template and the request as sent. */
function expectRefused(r: Reply, method: string, route: string, request: unknown): void {
  expect(r.status, r.text.slice(0, 300)).to.equal(400);
  expect(r.json).to.include({ status: 400, method, path: route });
  expect(r.json.request).to.deep.equal(request);
  expect(r.json.message).to.be.a("string");
}

describe("HTTP: every door refuses configuration out of its rules with a 400 and changes nothing", function () {
  this.timeout(20_000);
  let s: TestServer;
  let base: string;
  let nodeId: string;

  beforeEach(async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "doors", project_id: PROJECT });
    const sw = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" });
    nodeId = sw.json.node_id;
    base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${nodeId}`;
  });
  afterEach(async () => s.close());

  const udpPort = async (): Promise<number> => (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
  const wiredPorts = async (path = base): Promise<number[]> => ((await s.request("GET", path)).json.ports_statistics ?? []).map((p: { port_number: number }) => p.port_number);

  describe("compute switches and hubs", () => {
    const NEW_ID = "0d0d0d0d-0000-4000-8000-000000000009";

    it("refuses a switch with two ports numbered 3, naming the second and the first, and creates none", async () => {
      const body = { name: "SW2", node_id: NEW_ID, ports_mapping: [switchEntry(3), { ...switchEntry(3), name: "again" }] };
      const r = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, body);
      expectRefused(r, "POST", SWITCHES, body);
      expect(r.json.message).to.equal("ports_mapping[1].port_number: port number 3 is already given by ports_mapping[0].port_number");
      expect((await s.request("GET", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${NEW_ID}`)).status).to.equal(404);
    });

    it(`refuses a switch of ${L.portsPerNode + 1} ports and creates none; takes one of ${L.portsPerNode}`, async () => {
      const ports = (count: number) => Array.from({ length: count }, (_, i) => switchEntry(i));
      const body = { name: "Big", node_id: NEW_ID, ports_mapping: ports(L.portsPerNode + 1) };
      const r = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, body);
      expectRefused(r, "POST", SWITCHES, body);
      expect(r.json.message).to.equal(`ports_mapping: has ${L.portsPerNode + 1} items, more than the ${L.portsPerNode} netemu allows`);
      expect((await s.request("GET", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${NEW_ID}`)).status).to.equal(404);
      const ok = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { ...body, ports_mapping: ports(L.portsPerNode) });
      expect(ok.status, ok.text.slice(0, 200)).to.equal(201);
      expect(ok.json.ports_mapping).to.have.length(L.portsPerNode);
    });

    it("refuses a switch update with duplicate numbers or too many ports, and the switch keeps its eight", async () => {
      const before = (await s.request("GET", base)).json;
      for (const ports_mapping of [[switchEntry(1), switchEntry(2), switchEntry(1)], Array.from({ length: L.portsPerNode + 1 }, (_, i) => switchEntry(i))]) {
        const body = { name: "Renamed", ports_mapping };
        const r = await s.request("PUT", base, body);
        expectRefused(r, "PUT", `${SWITCHES}/{node_id}`, body);
        expect((await s.request("GET", base)).json).to.deep.equal(before);
      }
    });

    it(`refuses a switch name of ${L.nameLength + 1} characters on create and update`, async () => {
      const long = "n".repeat(L.nameLength + 1);
      const created = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: long, node_id: NEW_ID });
      expect(created.status).to.equal(400);
      expect(created.json.message).to.equal(`name: is longer than ${L.nameLength} characters`);
      expect((await s.request("PUT", base, { name: long })).status).to.equal(400);
      expect((await s.request("GET", base)).json.name).to.equal("SW1");
    });

    it("refuses a hub with duplicate port numbers and creates none; a hub update likewise, changing nothing", async () => {
      const body = { name: "HUB", node_id: NEW_ID, ports_mapping: [hubEntry(0), hubEntry(5), hubEntry(5)] };
      const r = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_hub/nodes`, body);
      expectRefused(r, "POST", HUBS, body);
      expect(r.json.message).to.equal("ports_mapping[2].port_number: port number 5 is already given by ports_mapping[1].port_number");
      expect((await s.request("GET", `/v2/compute/projects/${PROJECT}/ethernet_hub/nodes/${NEW_ID}`)).status).to.equal(404);

      const hub = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_hub/nodes`, { name: "HUB" })).json;
      const hubPath = `/v2/compute/projects/${PROJECT}/ethernet_hub/nodes/${hub.node_id}`;
      const update = { ports_mapping: [hubEntry(0), hubEntry(0)] };
      expectRefused(await s.request("PUT", hubPath, update), "PUT", `${HUBS}/{node_id}`, update);
      expect((await s.request("GET", hubPath)).json.ports_mapping).to.deep.equal(hub.ports_mapping);
    });
  });

  describe("compute NIOs", () => {
    const udp = (lport: number, extra: Record<string, unknown> = {}) => ({ type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, ...extra });

    /** POSTs `filters` on port 1 (port 0 has a good NIO): 400, nothing attached, the local port still free. */
    async function refusedOnPort1(filters: Record<string, unknown>, key = "filters"): Promise<Reply> {
      const lport = await udpPort();
      const body = udp(lport, { [key]: filters });
      const r = await s.request("POST", `${base}/adapters/0/ports/1/nio`, body);
      expectRefused(r, "POST", NIO_ROUTE, body);
      expect(await wiredPorts()).to.deep.equal([0]);
      // Nothing holds the socket: the same local port takes a good NIO at once.
      const again = await s.request("POST", `${base}/adapters/0/ports/1/nio`, udp(lport));
      expect(again.status, again.text).to.equal(201);
      expect((await s.request("DELETE", `${base}/adapters/0/ports/1/nio`)).status).to.equal(204);
      return r;
    }

    beforeEach(async () => {
      const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, udp(await udpPort(), { filters: { delay: [5] } }));
      expect(r.status, r.text).to.equal(201);
      expect(await wiredPorts()).to.deep.equal([0]);
    });

    it(`refuses a bpf filter of ${L.filterLines + 1} lines`, async () => {
      const r = await refusedOnPort1({ bpf: [bpfLines(L.filterLines + 1)] });
      expect(r.json.message).to.equal(`Filter bpf: at most ${L.filterLines} expression lines, got ${L.filterLines + 1}`);
    });

    it(`refuses a bpf line of ${L.expressionLength + 1} characters`, async () => {
      const r = await refusedOnPort1({ bpf: ["icmp", "t".repeat(L.expressionLength + 1)] });
      expect(r.json.message).to.equal(`Filter bpf: line 2 has ${L.expressionLength + 1} characters, more than the ${L.expressionLength} an expression may have`);
    });

    it(`refuses netemu's direction filters out of bounds, naming filters_in`, async () => {
      const r = await refusedOnPort1({ match: [bpfLines(L.filterLines + 1)] }, "filters_in");
      expect(r.json.message).to.equal(`filters_in: Filter match: at most ${L.filterLines} expression lines, got ${L.filterLines + 1}`);
    });

    for (const [what, expression] of [
      ["3,000 nested parentheses around tcp", nestedParentheses(3000)],
      ["7,000 nots before tcp", nots(7000)],
    ] as const) {
      it(`answers a bpf expression of ${what} with a 400 about the filter, never a 500`, async () => {
        const r = await refusedOnPort1({ bpf: [expression] });
        expect(r.json.message).to.match(/bpf/i);
      });
    }

    for (const [what, expression] of [
      ["2,046 nested parentheses (4,095 characters, within the line length)", nestedParentheses(2046)],
      ["1,023 nots (4,095 characters)", nots(1023)],
    ] as const) {
      it(`answers a bpf expression of ${what} with a 201 or a 400 about the filter, never a 500, and keeps answering`, async () => {
        const body = udp(await udpPort(), { filters: { bpf: [expression] } });
        const r = await s.request("POST", `${base}/adapters/0/ports/1/nio`, body);
        expect([201, 400], r.text.slice(0, 300)).to.include(r.status);
        if (r.status === 400) expect(r.json.message).to.match(/bpf/i);
        expect((await s.request("GET", base)).status).to.equal(200);
      });
    }

    it("refuses the same filters on a PUT and keeps the NIO as it was", async () => {
      for (const filters of [{ bpf: [bpfLines(L.filterLines + 1)] }, { bpf: [nestedParentheses(3000)] }, { match: [nots(7000)] }]) {
        const body = udp(1, { filters });
        const r = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, body);
        expectRefused(r, "PUT", NIO_ROUTE, body);
      }
      expect(await wiredPorts()).to.deep.equal([0]);
      // A PUT that gives no filter set keeps them all and echoes the NIO: the filters are the first ones.
      const read = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, udp(1));
      expect(read.json).to.deep.include({ filters: { delay: [5] }, suspend: false });
    });
  });

  describe("controller links", () => {
    let projectId: string;
    let sw1: string;
    let sw2: string;
    const computeOf = (id: string) => `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${id}`;
    const linkBody = (extra: Record<string, unknown> = {}, ends: Record<string, unknown>[] = [{}, {}]) => ({
      nodes: [
        { node_id: sw1, adapter_number: 0, port_number: 1, ...ends[0] },
        { node_id: sw2, adapter_number: 0, port_number: 1, ...ends[1] },
      ],
      ...extra,
    });

    beforeEach(async () => {
      projectId = (await s.request("POST", "/v2/projects", { name: "lab" })).json.project_id;
      sw1 = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
      sw2 = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "SW2", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
    });

    /** What a link's filters may not be, and the kind its refusal must name. */
    const badFilters: readonly [string, Record<string, unknown>, string][] = [
      [`bpf of ${L.filterLines + 1} lines`, { bpf: [bpfLines(L.filterLines + 1)] }, "bpf"],
      [`a bpf line of ${L.expressionLength + 1} characters`, { bpf: ["t".repeat(L.expressionLength + 1)] }, "bpf"],
      ["a bpf of 3,000 nested parentheses", { bpf: [nestedParentheses(3000)] }, "bpf"],
      ["a match of 7,000 nots", { match: [nots(7000)] }, "match"],
    ];

    for (const [what, filters, kind] of badFilters) {
      it(`refuses a link created with ${what}, on the link or on one end, and leaves no NIO behind`, async () => {
        for (const [body, field] of [[linkBody({ filters }), ""], [linkBody({}, [{}, { filters }]), "nodes[1].filters: "]] as const) {
          const r = await s.request("POST", `/v2/projects/${projectId}/links`, body);
          expectRefused(r, "POST", LINKS, body);
          // A bpf line that does not compile is GNS3's wording, "Invalid BPF expression on line N: ...".
          const openings = kind === "bpf" ? [`${field}Filter bpf`, `${field}Invalid BPF expression`] : [`${field}Filter ${kind}`];
          expect(openings.some((o) => r.json.message.startsWith(o)), r.json.message).to.equal(true);
          expect((await s.request("GET", `/v2/projects/${projectId}/links`)).json).to.deep.equal([]);
          expect(await wiredPorts(computeOf(sw1))).to.deep.equal([]);
          expect(await wiredPorts(computeOf(sw2))).to.deep.equal([]);
        }
        // Nothing holds the ports: the same link with good filters is made.
        const ok = await s.request("POST", `/v2/projects/${projectId}/links`, linkBody({ filters: { delay: [5] } }));
        expect(ok.status, ok.text).to.equal(201);
      });

      it(`refuses a link updated with ${what}, and the link and its NIOs stay as they were`, async () => {
        const link = (await s.request("POST", `/v2/projects/${projectId}/links`, linkBody({ filters: { packet_loss: [5] } }))).json;
        const path = `/v2/projects/${projectId}/links/${link.link_id}`;
        const before = (await s.request("GET", path)).json;
        // Each end as GNS3 sends it (its adapter and port too): the refusal must be the filter's, not the schema's.
        for (const body of [{ filters }, linkBody({}, [{}, { filters }])]) {
          const r = await s.request("PUT", path, body);
          expectRefused(r, "PUT", `${LINKS}/{link_id}`, body);
          expect(r.json.message.toLowerCase(), r.json.message.slice(0, 300)).to.include(kind);
          expect((await s.request("GET", path)).json).to.deep.equal(before);
        }
        expect(await wiredPorts(computeOf(sw1))).to.deep.equal([1]);
        expect(await wiredPorts(computeOf(sw2))).to.deep.equal([1]);
      });
    }

    it(`refuses a controller node named with ${L.nameLength + 1} characters and lists no new node`, async () => {
      const r = await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "n".repeat(L.nameLength + 1), node_type: "ethernet_switch", compute_id: "local" });
      expect(r.status).to.equal(400);
      expect(r.json.message).to.equal(`name: is longer than ${L.nameLength} characters`);
      expect((await s.request("GET", `/v2/projects/${projectId}/nodes`)).json.map((n: { name: string }) => n.name).sort()).to.deep.equal(["SW1", "SW2"]);
    });
  });
});

describe("HTTP: a project at its node or link limit answers 409 ProjectFull and changes nothing", function () {
  this.timeout(30_000);
  const CONTROLLER_PROJECT = "0e0e0e0e-1111-4222-8333-444444444444";
  const FULL = "0f0f0f0f-1111-4222-8333-444444444444";
  let s: TestServer;
  let nodes: InMemoryComputeNodeRepository;
  let links: InMemoryLinkRepository;

  const id = (i: number, prefix = "0a0a0a0a"): string => `${prefix}-0000-4000-8000-${String(i).padStart(12, "0")}`;
  /** `count` switches of `projectId` straight into the repository: what 5,000 creates would leave, in milliseconds. */
  async function prefill(projectId: string, count: number, prefix: string): Promise<void> {
    for (let i = 0; i < count; i++) {
      await nodes.save(createEthernetSwitch({ nodeId: id(i, prefix), projectId, name: `S${i}`, console: null, consoleType: "none", portsMapping: defaultPortsMapping() }));
    }
  }

  beforeEach(async () => {
    nodes = new InMemoryComputeNodeRepository();
    links = new InMemoryLinkRepository();
    s = await startTestServer({ overrides: { computeNodeRepository: nodes, linkRepository: links } });
  });
  afterEach(async () => s.close());

  it(`takes the ${L.nodesPerProject}th switch or hub of a compute project, refuses the next with 409, and counts no other project's nodes`, async () => {
    await s.request("POST", "/v2/compute/projects", { name: "full", project_id: FULL });
    await prefill(FULL, L.nodesPerProject - 1, "0b0b0b0b");
    await prefill("another-project", 10, "0c0c0c0c");
    const last = await s.request("POST", `/v2/compute/projects/${FULL}/ethernet_switch/nodes`, { name: "last" });
    expect(last.status, last.text).to.equal(201);
    for (const nodeType of ["ethernet_switch", "ethernet_hub"]) {
      const r = await s.request("POST", `/v2/compute/projects/${FULL}/${nodeType}/nodes`, { name: "one-too-many", node_id: id(1, "0d0d0d0d") });
      expect(r.status).to.equal(409);
      expect(r.json).to.deep.equal({ message: `The project already has ${L.nodesPerProject} nodes, the most netemu allows in one project`, status: 409 });
      expect((await s.request("GET", `/v2/compute/projects/${FULL}/${nodeType}/nodes/${id(1, "0d0d0d0d")}`)).status).to.equal(404);
    }
    expect((await nodes.list()).filter((n) => n.projectId === FULL)).to.have.length(L.nodesPerProject);
    // The embedding API's door: the use cases answer the same refusal as a value.
    expect(await s.netemu.useCases.createHub.execute({ projectId: FULL, name: "direct" })).to.deep.equal(E.left({ _tag: "ProjectFull", what: "nodes", limit: L.nodesPerProject }));
    expect(await s.netemu.useCases.createSwitch.execute({ projectId: FULL, name: "direct" })).to.deep.equal(E.left({ _tag: "ProjectFull", what: "nodes", limit: L.nodesPerProject }));
  });

  it(`refuses a controller node past ${L.nodesPerProject} with 409, and lists no new node`, async () => {
    await s.request("POST", "/v2/projects", { name: "full", project_id: CONTROLLER_PROJECT });
    await prefill(CONTROLLER_PROJECT, L.nodesPerProject, "0b0b0b0b");
    const r = await s.request("POST", `/v2/projects/${CONTROLLER_PROJECT}/nodes`, { name: "one-too-many", node_type: "ethernet_switch", compute_id: "local" });
    expect(r.status, r.text).to.equal(409);
    expect(r.json.message).to.equal(`The project already has ${L.nodesPerProject} nodes, the most netemu allows in one project`);
    expect((await s.request("GET", `/v2/projects/${CONTROLLER_PROJECT}/nodes`)).json).to.deep.equal([]);
  });

  it(`refuses a controller link past ${L.linksPerProject} with 409, and leaves no NIO behind`, async () => {
    await s.request("POST", "/v2/projects", { name: "full", project_id: CONTROLLER_PROJECT });
    const sw = async (name: string) => (await s.request("POST", `/v2/projects/${CONTROLLER_PROJECT}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local" })).json.node_id as string;
    const [a, b] = [await sw("A"), await sw("B")];
    // Links between nodes of no port of A or B: only their number counts.
    for (let i = 0; i < L.linksPerProject; i++) {
      const link: Link = {
        linkId: id(i, "0e0e0e0e"),
        projectId: CONTROLLER_PROJECT,
        nodes: [
          { nodeId: id(2 * i, "01010101"), adapterNumber: 0, portNumber: 0, label: { text: "0/0" }, udpPort: 0 },
          { nodeId: id(2 * i + 1, "01010101"), adapterNumber: 0, portNumber: 0, label: { text: "0/0" }, udpPort: 0 },
        ],
        filters: {},
        suspend: false,
        linkStyle: {},
        capture: null,
      };
      await links.save(link);
    }
    const r = await s.request("POST", `/v2/projects/${CONTROLLER_PROJECT}/links`, {
      nodes: [
        { node_id: a, adapter_number: 0, port_number: 0 },
        { node_id: b, adapter_number: 0, port_number: 0 },
      ],
    });
    expect(r.status, r.text).to.equal(409);
    expect(r.json.message).to.equal(`The project already has ${L.linksPerProject} links, the most netemu allows in one project`);
    expect((await links.listByProject(CONTROLLER_PROJECT)).length).to.equal(L.linksPerProject);
    for (const node of [a, b]) expect((await s.request("GET", `/v2/compute/projects/${CONTROLLER_PROJECT}/ethernet_switch/nodes/${node}`)).json.ports_statistics).to.equal(undefined);
  });
});

describe("the embedding API (use cases called directly): the same parse, the refusal as a value", function () {
  this.timeout(20_000);
  let s: TestServer;
  let projectId: string;

  beforeEach(async () => {
    s = await startTestServer();
    const project = await s.netemu.useCases.createProject.execute({ name: "embedded" });
    if (E.isLeft(project)) throw new Error(project.left._tag);
    projectId = project.right.projectId;
  });
  afterEach(async () => s.close());

  it("hands over a compute switch's refusal as it is: the field and the rule", async () => {
    await s.netemu.useCases.createComputeProject.execute({ name: "c", projectId: PROJECT });
    const r = await s.netemu.useCases.createSwitch.execute({ projectId: PROJECT, name: "S", portsMapping: [switchEntry(3), switchEntry(3)] as never });
    expect(r).to.deep.equal(E.left({ _tag: "InvalidConfiguration", field: "ports_mapping[1].port_number", rule: { rule: "duplicate", first: "ports_mapping[0].port_number" }, got: 3 }));
  });

  for (const nodeType of ["ethernet_switch", "ethernet_hub"] as const) {
    it(`answers a Left, never throws, when a controller ${nodeType} is created with a ports_mapping that is not a list of entries`, async () => {
      for (const portsMapping of [[null], "Ethernet0", [42]]) {
        let answered: unknown;
        try {
          answered = await s.netemu.useCases.createNode.execute({ projectId, name: "S", nodeType, computeId: "local", portsMapping: portsMapping as never });
        } catch (err) {
          answered = `threw ${String(err)}`;
        }
        expect(answered, JSON.stringify(portsMapping)).to.have.property("_tag", "Left");
        expect((answered as E.Left<{ _tag: string }>).left._tag).to.equal("InvalidConfiguration");
      }
    });
  }

  it("refuses a controller switch port entry without a type, naming the field, as the HTTP door does (not a switch with the entry dropped)", async () => {
    const r = await s.netemu.useCases.createNode.execute({ projectId, name: "S", nodeType: "ethernet_switch", computeId: "local", portsMapping: [switchEntry(0), hubEntry(1)] as never });
    expect(r).to.deep.equal(E.left({ _tag: "InvalidConfiguration", field: "ports_mapping[1].type", rule: { rule: "required" }, got: undefined }));
    const listed = await s.netemu.useCases.listNodes.execute({ projectId });
    expect(E.isRight(listed) && listed.right).to.deep.equal([]);
  });

  it("refuses the same on a controller node update, and the node keeps its ports", async () => {
    const made = await s.netemu.useCases.createNode.execute({ projectId, name: "S", nodeType: "ethernet_switch", computeId: "local" });
    if (E.isLeft(made)) throw new Error(made.left._tag);
    const nodeId = made.right.node.nodeId;
    const r = await s.netemu.useCases.updateNode.execute({ projectId, nodeId, portsMapping: [hubEntry(0)] as never });
    expect(r).to.have.property("_tag", "Left");
    const after = await s.netemu.useCases.getNode.execute({ projectId, nodeId });
    expect(E.isRight(after) && after.right.node.portsMapping).to.have.length(8);
  });
});

import { expect } from "chai";
import fc from "fast-check";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FC_SEED, canBindUdp, closeRawHttpAgent, errorBodyProblem, freeUdpPorts, rawHttp, switchRepository, udpPool } from "../support/hardening-kit.js";

const PROJECT = "99999999-3333-4444-8555-666666666666";

describe("Concurrency: racing requests on the same ports", function () {
  this.timeout(60_000);
  let s: TestServer;
  afterEach(async () => {
    await s.close();
  });
  after(() => closeRawHttpAgent());

  it("a compute project closing while switches, hubs and UDP ports are asked for in it leaves none of them behind", async () => {
    s = await startTestServer();
    const uc = s.netemu.useCases;
    for (let round = 0; round < 20; round++) {
      const created = await uc.createComputeProject.execute({ name: `race-${round}` });
      if (created._tag === "Left") throw new Error(created.left._tag);
      const projectId = created.right.projectId;
      const racing = await Promise.all([
        uc.createSwitch.execute({ projectId, name: "SW" }),
        uc.reserveUdpPort.execute({ projectId }),
        uc.closeComputeProject.execute({ projectId }),
        uc.createHub.execute({ projectId, name: "HUB" }),
        uc.reserveUdpPort.execute({ projectId }),
      ]);
      expect(racing[2]._tag, "the close").to.equal("Right");
      // What was asked before the close ran first and went with it; what came after finds no project.
      expect(racing[3]._tag === "Left" && racing[3].left._tag, "after the close").to.equal("ProjectNotFound");
      expect(racing[4]._tag === "Left" && racing[4].left._tag, "after the close").to.equal("ProjectNotFound");
    }
    expect(await switchRepository(s.netemu).list(), "no node in a closed project").to.deep.equal([]);
    expect(udpPool(s.netemu).reserved(), "no port held by a closed project").to.deep.equal([]);
  });

  it("200 concurrent POST .../nio on one port give exactly one 201 and 199 JSON 409s, and leave one socket open", async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "race", project_id: PROJECT });
    const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW" })).json;
    const path = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/3/nio`;
    const lports = await freeUdpPorts(200, 36000 + (process.pid % 20) * 10);
    const replies = await Promise.all(
      lports.map((lport) => rawHttp(s.url, "POST", path, JSON.stringify({ type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 }))),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((x) => x === 201)).to.have.length(1);
    expect(statuses.filter((x) => x === 409)).to.have.length(199);
    for (const r of replies) expect(errorBodyProblem("POST", r)).to.equal(undefined);
    const winner = lports[statuses.indexOf(201)]!;
    const bindable = await Promise.all(lports.map((p) => canBindUdp(p)));
    const stillHeld = lports.filter((_, i) => !bindable[i]);
    expect(stillHeld, "only the winner's lport is bound").to.deep.equal([winner]);
    expect(udpPool(s.netemu).reserved()).to.deep.equal([winner]);
    const stored = (await switchRepository(s.netemu).get(sw.node_id as string))!;
    expect([...stored.nios.keys()]).to.deep.equal([3]);
  });

  it("concurrent link creates, updates and deletes on the same ports leave no orphan NIO, no open socket and no reserved UDP port", async () => {
    s = await startTestServer();
    const P = "aaaaaaaa-3333-4444-8555-666666666666";
    await s.request("POST", "/v2/projects", { name: "race-links", project_id: P });
    const nodes: string[] = [];
    for (const name of ["A", "B", "C"]) {
      const n = await s.request("POST", `/v2/projects/${P}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local" });
      expect(n.status).to.equal(201);
      nodes.push(n.json.node_id as string);
    }
    const ends = fc.record({ node: fc.integer({ min: 0, max: 2 }), port: fc.integer({ min: 0, max: 1 }) });
    const opArb = fc.oneof(
      fc.record({ kind: fc.constant("create" as const), a: ends, b: ends, suspend: fc.boolean() }),
      fc.record({ kind: fc.constant("update" as const), pick: fc.nat(), loss: fc.integer({ min: 0, max: 100 }), suspend: fc.boolean() }),
      fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
    );
    const socketsUsed = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 40 }), async (ops) => {
        const known = ((await s.request("GET", `/v2/projects/${P}/links`)).json as { link_id: string }[]).map((l) => l.link_id);
        const replies = await Promise.all(
          ops.map((op) => {
            if (op.kind === "create") {
              const body = {
                nodes: [
                  { node_id: nodes[op.a.node], adapter_number: 0, port_number: op.a.port },
                  { node_id: nodes[op.b.node], adapter_number: 0, port_number: op.b.port },
                ],
                suspend: op.suspend,
              };
              return rawHttp(s.url, "POST", `/v2/projects/${P}/links`, JSON.stringify(body)).then((r) => ({ op, r }));
            }
            const id = known.length === 0 ? "00000000-0000-4000-8000-000000000000" : known[op.pick % known.length]!;
            if (op.kind === "update") {
              const body = { filters: { packet_loss: [op.loss] }, suspend: op.suspend };
              return rawHttp(s.url, "PUT", `/v2/projects/${P}/links/${id}`, JSON.stringify(body)).then((r) => ({ op, r }));
            }
            return rawHttp(s.url, "DELETE", `/v2/projects/${P}/links/${id}`).then((r) => ({ op, r }));
          }),
        );
        for (const { op, r } of replies) {
          expect(r.status, `${op.kind}: ${r.text}`).to.be.below(500);
          expect(errorBodyProblem(op.kind === "create" ? "POST" : op.kind === "update" ? "PUT" : "DELETE", r)).to.equal(undefined);
        }
        // Every NIO belongs to a link end, and every link end has its NIO, on the link's UDP port.
        const links = (await s.request("GET", `/v2/projects/${P}/links`)).json as { nodes: { node_id: string; port_number: number }[] }[];
        const stored = await s.netemu.useCases.listLinks.execute({ projectId: P });
        if (stored._tag === "Left") throw new Error("links vanished");
        const expected = new Map<string, number>();
        for (const link of stored.right) for (const end of link.nodes) expected.set(`${end.nodeId}/${end.portNumber}`, end.udpPort);
        const actual = new Map<string, number>();
        for (const sw of await switchRepository(s.netemu).list()) {
          for (const [port, nio] of sw.nios) actual.set(`${sw.nodeId}/${port}`, nio.type === "nio_udp" ? nio.lport : -1);
          // The API agrees: one ports_statistics entry per attached port.
          const view = (await s.request("GET", `/v2/compute/projects/${P}/ethernet_switch/nodes/${sw.nodeId}`)).json;
          const attached = ((view.ports_statistics ?? []) as { port_number: number }[]).map((p) => p.port_number).sort();
          expect(attached).to.deep.equal([...sw.nios.keys()].sort());
        }
        expect(Object.fromEntries([...actual].sort()), "NIOs = link ends").to.deep.equal(Object.fromEntries([...expected].sort()));
        expect(links.length).to.equal(stored.right.length);
        const udp = [...expected.values()].sort((a, b) => a - b);
        udp.forEach((p) => socketsUsed.add(p));
        expect(udpPool(s.netemu).reserved(), "reserved UDP ports = link ends' ports").to.deep.equal(udp);
        for (const port of socketsUsed) expect(await canBindUdp(port), `port ${port} bound iff a link uses it`).to.equal(!udp.includes(port));
      }),
      { numRuns: 40, seed: FC_SEED, endOnFailure: true },
    );
    // Delete whatever is left, all at once: nothing stays behind.
    const left = ((await s.request("GET", `/v2/projects/${P}/links`)).json as { link_id: string }[]).map((l) => l.link_id);
    const deletes = await Promise.all([...left, ...left].map((id) => rawHttp(s.url, "DELETE", `/v2/projects/${P}/links/${id}`)));
    expect(deletes.filter((r) => r.status === 204)).to.have.length(left.length);
    expect(deletes.every((r) => r.status === 204 || r.status === 404)).to.equal(true);
    for (const sw of await switchRepository(s.netemu).list()) expect(sw.nios.size, `switch ${sw.name} has no NIO`).to.equal(0);
    expect(udpPool(s.netemu).reserved()).to.deep.equal([]);
    for (const port of socketsUsed) expect(await canBindUdp(port), `port ${port} is free`).to.equal(true);
  });

  it("deleting nodes while links to them are created and updated leaves no orphan NIO or reserved port", async () => {
    s = await startTestServer();
    const P = "bbbbbbbb-3333-4444-8555-666666666666";
    await s.request("POST", "/v2/projects", { name: "race-nodes", project_id: P });
    for (let round = 0; round < 10; round++) {
      const ids: string[] = [];
      for (const name of [`A${round}`, `B${round}`]) ids.push((await s.request("POST", `/v2/projects/${P}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local" })).json.node_id);
      const link = (n: number) =>
        rawHttp(
          s.url,
          "POST",
          `/v2/projects/${P}/links`,
          JSON.stringify({ nodes: [{ node_id: ids[0], adapter_number: 0, port_number: n }, { node_id: ids[1], adapter_number: 0, port_number: n }] }),
        );
      const replies = await Promise.all([link(0), link(1), rawHttp(s.url, "DELETE", `/v2/projects/${P}/nodes/${ids[round % 2]}`), link(2), link(3)]);
      for (const r of replies) expect(r.status, r.text).to.be.below(500);
      const stored = await s.netemu.useCases.listLinks.execute({ projectId: P });
      if (stored._tag === "Left") throw new Error("project vanished");
      const ends = new Set(stored.right.flatMap((l) => l.nodes.map((e) => `${e.nodeId}/${e.portNumber}`)));
      for (const sw of await switchRepository(s.netemu).list()) {
        for (const port of sw.nios.keys()) expect(ends.has(`${sw.nodeId}/${port}`), `NIO ${sw.name}/${port} has a link (round ${round})`).to.equal(true);
      }
      const used = stored.right.flatMap((l) => l.nodes.map((e) => e.udpPort)).sort((a, b) => a - b);
      expect(udpPool(s.netemu).reserved(), `round ${round}`).to.deep.equal(used);
      // Links may only join nodes that still exist.
      const nodeIds = new Set(((await s.request("GET", `/v2/projects/${P}/nodes`)).json as { node_id: string }[]).map((n) => n.node_id));
      for (const l of stored.right) for (const e of l.nodes) expect(nodeIds.has(e.nodeId), `link ${l.linkId} joins a deleted node`).to.equal(true);
    }
  });
});

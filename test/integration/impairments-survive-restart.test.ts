import { expect } from "chai";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

const PROJECT = "6a6a6a6a-3333-4444-8555-777777777777";
const SWITCH = "6a6a6a6a-aaaa-4bbb-8ccc-000000000001";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const A = "00:50:79:66:68:01";

/**
 * A GNS3 controller re-creates its project's nodes and links on a compute that restarted (the same
 * ids); netemu's impairments, kept in <config dir>/impairments.json, come back on them (ADR 0067).
 */
describe("impairments on GNS3 ports survive a restart of netemu", function () {
  this.timeout(20_000);
  let dir: string;
  let s: TestServer | undefined;
  const peers: UdpPeer[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-impairments-"));
  });
  afterEach(async () => {
    await s?.close();
    s = undefined;
    await Promise.all(peers.splice(0).map((p) => p.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (logger?: RecordingLogger): Promise<TestServer> =>
    startTestServer({ settings: { configDir: dir }, ...(logger === undefined ? {} : { overrides: { logger } }) });
  /** What GNS3 sends a compute when it opens a project: the project, the switch, a link on ports 0 and 1. */
  const openLab = async (server: TestServer): Promise<number[]> => {
    await server.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT });
    await server.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "Switch1", node_id: SWITCH });
    const lports: number[] = [];
    for (const port of [0, 1]) {
      const peer = await UdpPeer.open();
      peers.push(peer);
      const lport = (await server.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      await server.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${SWITCH}/adapters/0/ports/${port}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peer.port });
      lports.push(lport);
    }
    return lports;
  };

  it("acts again on the NIOs GNS3 makes after netemu restarted, and lists the same", async () => {
    s = await start();
    await openLab(s);
    const set = await s.request("PUT", "/v2/netemu/impairments", { project: "lab", node: "Switch1", port: "Ethernet1", filters_out: { frequency_drop: [-1] }, filters_in: { delay: [20, 5] } });
    expect(set.status, set.text).to.equal(200);
    const listed = (await s.request("GET", "/v2/netemu/impairments")).json;
    await s.close();
    await Promise.all(peers.splice(0).map((p) => p.close()));

    s = await start();
    expect((await s.request("GET", "/v2/netemu/impairments")).json, "listed before the project is back").to.deep.equal(listed);
    const lports = await openLab(s);
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    expect(await peers[1]!.settle(300), "frames out to port 1's peer are still dropped").to.equal(0);
  });

  it("forgets a cleared impairment across a restart too", async () => {
    s = await start();
    await openLab(s);
    await s.request("PUT", "/v2/netemu/impairments", { project: "lab", node: "Switch1", port: "Ethernet1", filters_out: { frequency_drop: [-1] } });
    await s.request("DELETE", "/v2/netemu/impairments");
    await s.close();
    s = await start();
    expect((await s.request("GET", "/v2/netemu/impairments")).json).to.deep.equal([]);
  });

  it("moves an unreadable file aside, says so, and starts with none rather than failing or overwriting it", async () => {
    for (const text of ["{not json", JSON.stringify({ impairments: [{ project_id: PROJECT }] }), JSON.stringify({ impairments: [{ project_id: PROJECT, project_name: "lab", node_id: SWITCH, node_name: "S", port_number: 1, port_name: "E1", filters_out: { packet_loss: [900] } }] })]) {
      writeFileSync(join(dir, "impairments.json"), text);
      const logger = new RecordingLogger();
      s = await start(logger);
      const r = await s.request("GET", "/v2/netemu/impairments");
      expect([r.status, r.json]).to.deep.equal([200, []]);
      expect(existsSync(join(dir, "impairments.json"))).to.equal(false);
      const aside = readdirSync(dir).filter((f) => f.startsWith("impairments.json.unreadable-"));
      expect(aside).to.have.length(1);
      expect(readFileSync(join(dir, aside[0]!), "utf8")).to.equal(text);
      expect(logger.lines.some((l) => l.level === "error" && l.msg.includes("impairments file unreadable"))).to.equal(true);
      rmSync(join(dir, aside[0]!));
      await s.close();
      s = undefined;
    }
  });
});

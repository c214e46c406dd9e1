import { expect } from "chai";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { GNS3_PEER_VPCS, VpcsConsole } from "../support/vpcs-console.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import type { HostProcesses } from "../../src/application/ports/host-processes.js";

const HOSTS = 20;

/** Start all of a project of 20 real VPCS on one hub (issue 27): several start at once, and every one pings. */
describe("end to end: start all of 20 real VPCS 0.8.3 on a hub, each then answering pings (issue 27)", function () {
  this.timeout(180_000);
  let configDir: string;
  let s: TestServer | undefined;
  const consoles: VpcsConsole[] = [];

  before(function () {
    if (!existsSync(GNS3_PEER_VPCS)) this.skip();
  });

  afterEach(async () => {
    for (const c of consoles.splice(0)) c.close();
    await s?.close();
    s = undefined;
    rmSync(configDir, { recursive: true, force: true });
  });

  it("starts all 20 with one call, each with its own MAC, and PC1 pings each of the others", async () => {
    configDir = mkdtempSync(join(tmpdir(), "netemu-start-all-"));
    // Consoles of their own, below the kernel's ephemeral ports (other runs on the machine hold 5000 and up).
    const server = (s = await startTestServer({ settings: { configDir, vpcsPath: GNS3_PEER_VPCS, consolePortRange: { start: 27000, end: 27999 } } }));
    const projectId = (await server.request("POST", "/v2/projects", { name: "start-all" })).json.project_id as string;
    const p = `/v2/projects/${projectId}`;
    const ports = Array.from({ length: HOSTS }, (_, i) => ({ name: `Ethernet${i}`, port_number: i }));
    const hub = (await server.request("POST", `${p}/nodes`, { name: "HUB1", node_type: "ethernet_hub", compute_id: "local", properties: { ports_mapping: ports } })).json.node_id as string;
    const pcs: { node_id: string; console: number }[] = [];
    for (let i = 1; i <= HOSTS; i++) {
      const made = await server.request("POST", `${p}/nodes`, { name: `PC${i}`, node_type: "vpcs", compute_id: "local", properties: { startup_script: `ip 10.0.0.${i}/24\n` } });
      expect(made.status, made.text).to.equal(201);
      pcs.push(made.json);
      const link = await server.request("POST", `${p}/links`, { nodes: [{ node_id: made.json.node_id, adapter_number: 0, port_number: 0 }, { node_id: hub, adapter_number: 0, port_number: i - 1 }] });
      expect(link.status, link.text).to.equal(201);
    }
    const started = await server.request("POST", `${p}/nodes/start`, {});
    expect(started.status, started.text).to.equal(204);
    const processes = server.netemu.container.resolve<HostProcesses>(TOKENS.HostProcesses);
    expect(new Set(pcs.map((pc) => processes.pidOf(pc.node_id))).size).to.equal(HOSTS);
    const list = (await server.request("GET", `${p}/nodes`)).json as { node_type: string; status: string; command_line: string }[];
    const vpcs = list.filter((n) => n.node_type === "vpcs");
    expect(vpcs.every((n) => n.status === "started")).to.equal(true);
    expect(new Set(vpcs.map((n) => / -m (\d+) /.exec(n.command_line)?.[1])).size, "MAC offsets").to.equal(HOSTS);
    const pc1 = await VpcsConsole.open((pcs[0] as { console: number }).console);
    consoles.push(pc1);
    const silent: string[] = [];
    for (let i = 2; i <= HOSTS; i++) {
      const ping = await pc1.ping(`10.0.0.${i}`, 2);
      if (ping.replies < 1) silent.push(`10.0.0.${i}: ${ping.output}`);
    }
    expect(silent).to.deep.equal([]);
  });
});

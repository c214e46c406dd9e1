import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { IpNamespaceHosts } from "../../src/adapters/system/namespace-hosts.js";

const SILENT = { debug() {}, info() {}, warn() {}, error() {} };
import { startTestServer, type TestServer } from "./http-harness.js";
import type { NetemuOptions } from "../../src/adapters/composition-root.js";
import { computeProjectRepository, freeUdpPorts, rawHttp, switchRepository, udpPool } from "./hardening-kit.js";

export const MAPPING = [
  { name: "Ethernet0", port_number: 0, type: "access", vlan: 1 },
  { name: "Ethernet1", port_number: 1, type: "access", vlan: 1 },
  { name: "Ethernet2", port_number: 2, type: "dot1q", vlan: 1 },
  { name: "Ethernet3", port_number: 3, type: "qinq", vlan: 100, ethertype: "0x88A8" },
];

/** The world hub's ports: GNS3's hub ports have a name and a number only. */
export const HUB_MAPPING = [
  { name: "Ethernet0", port_number: 0 },
  { name: "Ethernet1", port_number: 1 },
  { name: "Ethernet2", port_number: 2 },
  { name: "Ethernet3", port_number: 3 },
];

/** A file of the world's compute project, as the files routes name it. */
export const WORLD_FILE = "fuzz/data.txt";

let spareFrom = 33000 + (process.pid % 40) * 50;

/**
 * A populated netemu for the API properties: a compute project with a switch and a hub whose
 * ports 0 have a UDP NIO, and a file; a controller project with two switch nodes joined by a link.
 */
export class World {
  private constructor(
    readonly s: TestServer,
    readonly P: string,
    readonly SW: string,
    readonly nioLport: number,
    readonly spareLport: number,
    readonly CP: string,
    readonly N1: string,
    readonly N2: string,
    readonly LINK: string,
    readonly HUB: string,
    readonly hubNioLport: number,
    /** A VPCS (never started: Debian's VPCS is refused) with a UDP NIO on its one port. */
    readonly PC: string,
    readonly pcNioLport: number,
    /** The controller project's .gns3 file, as POST /v2/projects/load is given it. */
    readonly CP_FILE: string,
    /** A Linux host (ADR 0087) with a UDP NIO on its port 1; netemu here may not make namespaces: its start is refused. */
    readonly HOST: string,
    readonly hostNioLport: number,
    /** A cloud (ADR 0082) whose port 0 is a UDP tunnel, linked by a UDP NIO. */
    readonly CLOUD: string,
    readonly cloudNioLport: number,
    /** A drawing of the controller project (ADR 0091). */
    readonly DRAWING: string,
  ) {}

  /** The compute project's file (its content is WORLD_FILE's own name). */
  readonly FILE = WORLD_FILE;

  static async create(options: NetemuOptions = {}): Promise<World> {
    // /v3/compute served without credentials, as auth is off here (ADR 0066).
    // Linux hosts are refused as without root: a start (a 409) changes nothing, whoever runs the test.
    const namespaceHosts = new IpNamespaceHosts(join(tmpdir(), `netemu-fuzz-hosts-${process.pid}`), SILENT, { privileged: () => false });
    const s = await startTestServer({ ...options, overrides: { namespaceHosts, ...options.overrides }, settings: { v3: { gns3Version: "3.0.6", noAuth: true }, ...(options as { settings?: object }).settings } });
    // A world whose setup fails closes its server: one left listening keeps mocha from ever exiting.
    try {
      return await World.populate(s);
    } catch (error) {
      await s.close();
      throw error;
    }
  }

  private static async populate(s: TestServer): Promise<World> {
    const must = async (method: string, path: string, body: unknown, status: number): Promise<any> => {
      const r = await s.request(method, path, body);
      if (r.status !== status) throw new Error(`world setup: ${method} ${path} gave ${r.status} ${r.text}`);
      return r.json;
    };
    const P = randomUUID();
    await must("POST", "/v2/compute/projects", { name: "fuzz", project_id: P }, 201);
    const SW = randomUUID();
    await must("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "SW1", node_id: SW, ports_mapping: MAPPING }, 201);
    const nioLport = (await must("POST", `/v2/compute/projects/${P}/ports/udp`, undefined, 201)).udp_port as number;
    await must(
      "POST",
      `/v2/compute/projects/${P}/ethernet_switch/nodes/${SW}/adapters/0/ports/0/nio`,
      { type: "nio_udp", lport: nioLport, rhost: "127.0.0.1", rport: 9, filters: { delay: [1, 0] } },
      201,
    );
    const HUB = randomUUID();
    await must("POST", `/v2/compute/projects/${P}/ethernet_hub/nodes`, { name: "HUB1", node_id: HUB, ports_mapping: HUB_MAPPING }, 201);
    const hubNioLport = (await must("POST", `/v2/compute/projects/${P}/ports/udp`, undefined, 201)).udp_port as number;
    await must(
      "POST",
      `/v2/compute/projects/${P}/ethernet_hub/nodes/${HUB}/adapters/0/ports/0/nio`,
      { type: "nio_udp", lport: hubNioLport, rhost: "127.0.0.1", rport: 9 },
      201,
    );
    const PC = randomUUID();
    await must("POST", `/v2/compute/projects/${P}/vpcs/nodes`, { name: "PC1", node_id: PC }, 201);
    const pcNioLport = (await must("POST", `/v2/compute/projects/${P}/ports/udp`, undefined, 201)).udp_port as number;
    await must("POST", `/v2/compute/projects/${P}/vpcs/nodes/${PC}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: pcNioLport, rhost: "127.0.0.1", rport: 9 }, 201);
    const HOST = randomUUID();
    await must("POST", `/v2/compute/projects/${P}/netemu_host/nodes`, { name: "H1", node_id: HOST, interfaces: [{ name: "eth0" }, { name: "eth1" }] }, 201);
    const hostNioLport = (await must("POST", `/v2/compute/projects/${P}/ports/udp`, undefined, 201)).udp_port as number;
    await must("POST", `/v2/compute/projects/${P}/netemu_host/nodes/${HOST}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: hostNioLport, rhost: "127.0.0.1", rport: 9 }, 201);
    const CLOUD = randomUUID();
    const [tunnelLport] = await freeUdpPorts(1, spareFrom);
    spareFrom = tunnelLport! + 1 > 39000 ? 33000 : tunnelLport! + 1;
    await must("POST", `/v2/compute/projects/${P}/cloud/nodes`, { name: "CLOUD1", node_id: CLOUD, ports_mapping: [{ name: "tunnel", port_number: 0, type: "udp", lport: tunnelLport, rhost: "127.0.0.1", rport: 9 }] }, 201);
    const cloudNioLport = (await must("POST", `/v2/compute/projects/${P}/ports/udp`, undefined, 201)).udp_port as number;
    await must("POST", `/v2/compute/projects/${P}/cloud/nodes/${CLOUD}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: cloudNioLport, rhost: "127.0.0.1", rport: 9 }, 201);
    const upload = await rawHttp(s.url, "POST", `/v2/compute/projects/${P}/files/${WORLD_FILE}`, WORLD_FILE);
    if (upload.status !== 201) throw new Error(`world setup: upload gave ${upload.status} ${upload.text}`);
    const [spareLport] = await freeUdpPorts(1, spareFrom);
    spareFrom = spareLport! + 1 > 39000 ? 33000 : spareLport! + 1;
    const CP = randomUUID();
    const cp = await must("POST", "/v2/projects", { name: "fuzz-controller", project_id: CP }, 201);
    const N1 = randomUUID();
    const N2 = randomUUID();
    for (const [id, name] of [
      [N1, "N1"],
      [N2, "N2"],
    ] as const) {
      await must("POST", `/v2/projects/${CP}/nodes`, { name, node_id: id, node_type: "ethernet_switch", compute_id: "local" }, 201);
    }
    const link = await must(
      "POST",
      `/v2/projects/${CP}/links`,
      {
        nodes: [
          { node_id: N1, adapter_number: 0, port_number: 0 },
          { node_id: N2, adapter_number: 0, port_number: 0 },
        ],
        filters: { packet_loss: [1] },
      },
      201,
    );
    const DRAWING = randomUUID();
    await must("POST", `/v2/projects/${CP}/drawings`, { drawing_id: DRAWING, x: 10, svg: "<svg></svg>" }, 201);
    return new World(s, P, SW, nioLport, spareLport!, CP, N1, N2, link.link_id as string, HUB, hubNioLport, PC, pcNioLport, join(cp.path as string, cp.filename as string), HOST, hostNioLport, CLOUD, cloudNioLport, DRAWING);
  }

  get url(): string {
    return this.s.url;
  }

  /**
   * Everything a request could have touched: the API's GETs (the compute project's files with
   * their MD5s among them), the stored switches and hubs with their NIOs, the UDP pool.
   */
  async fingerprint(): Promise<string> {
    const paths = [
      `/v2/compute/projects/${this.P}`,
      `/v2/compute/projects/${this.P}/ethernet_switch/nodes/${this.SW}`,
      `/v2/compute/projects/${this.P}/ethernet_hub/nodes/${this.HUB}`,
      `/v2/compute/projects/${this.P}/vpcs/nodes/${this.PC}`,
      `/v2/compute/projects/${this.P}/netemu_host/nodes/${this.HOST}`,
      `/v2/compute/projects/${this.P}/cloud/nodes/${this.CLOUD}`,
      `/v2/compute/projects/${this.P}/files`,
      `/v2/compute/projects`,
      `/v2/projects`,
      `/v2/projects/${this.CP}/nodes`,
      `/v2/projects/${this.CP}/links`,
      `/v2/projects/${this.CP}/drawings`,
      `/v2/iou_license`,
      `/v2/netemu/impairments`,
    ];
    const gets = await Promise.all(paths.map((p) => rawHttp(this.url, "GET", p)));
    const computeNodes = await switchRepository(this.s.netemu).list();
    const computeProjects = await computeProjectRepository(this.s.netemu).list();
    const replacer = (_k: string, v: unknown): unknown => (v instanceof Map ? [...v.entries()] : v);
    return JSON.stringify(
      {
        // A cloud's `interfaces` are the host's, which other programs change (ADR 0082): not netemu's state.
        gets: gets.map((g, i) => ({ path: paths[i], status: g.status, text: withoutHostInterfaces(g.text) })),
        computeNodes: [...computeNodes].sort((a, b) => a.nodeId.localeCompare(b.nodeId)),
        computeProjects: [...computeProjects].sort((a, b) => a.projectId.localeCompare(b.projectId)),
        reservedUdp: udpPool(this.s.netemu).reserved(),
      },
      replacer,
    );
  }

  close(): Promise<void> {
    return this.s.close();
  }
}

/** An answer's text without a cloud's list of the host's interfaces. */
function withoutHostInterfaces(text: string): string {
  try {
    const json = JSON.parse(text) as unknown;
    if (typeof json !== "object" || json === null || !("interfaces" in json)) return text;
    const { interfaces: _host, ...rest } = json as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return text;
  }
}

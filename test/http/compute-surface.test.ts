import { expect } from "chai";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";
import { canBindUdp, eventually, rawHttp } from "../support/hardening-kit.js";
import { NotificationHub } from "../../src/application/notification-hub.js";
import type { HostLoad, HostMetrics, HostStatistics, NetworkInterface, NetworkInterfaces } from "../../src/application/ports/host.js";

const P = "10000000-2222-4333-8444-555555555555";
const OTHER = "20000000-2222-4333-8444-555555555555";
const UNKNOWN = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";

const STATISTICS_KEYS = [
  "cpu_usage_percent",
  "disk_usage_percent",
  "load_average_percent",
  "memory_free",
  "memory_total",
  "memory_usage_percent",
  "memory_used",
  "swap_free",
  "swap_total",
  "swap_usage_percent",
  "swap_used",
];
const INTERFACE_KEYS = ["id", "ip_address", "mac_address", "name", "netmask", "special", "type"];
const SWITCH_KEYS = ["console", "console_type", "name", "node_id", "ports_mapping", "project_id", "status"];
const HUB_KEYS = ["name", "node_id", "ports_mapping", "project_id", "status"];

/** A host whose load and statistics are whatever the test says. */
class FakeHostMetrics implements HostMetrics {
  constructor(
    private readonly current: HostLoad,
    private readonly stats: HostStatistics,
  ) {}
  load(): HostLoad {
    return this.current;
  }
  async statistics(): Promise<HostStatistics> {
    return this.stats;
  }
}

class FakeNetworkInterfaces implements NetworkInterfaces {
  constructor(private readonly entries: readonly NetworkInterface[]) {}
  list(): readonly NetworkInterface[] {
    return this.entries;
  }
}

const FAKE_LOAD: HostLoad = { cpuUsagePercent: 12.5, memoryUsagePercent: 40.2 };
const FAKE_STATISTICS: HostStatistics = {
  memoryTotal: 8_000_000_000,
  memoryFree: 3_000_000_000,
  memoryUsed: 5_000_000_000,
  swapTotal: 2_000_000_000,
  swapFree: 1_500_000_000,
  swapUsed: 500_000_000,
  cpuUsagePercent: 37,
  memoryUsagePercent: 62,
  swapUsagePercent: 25,
  diskUsagePercent: 81,
  loadAveragePercent: [150, 75, 3],
};

const md5 = (data: Uint8Array | string): string => createHash("md5").update(data).digest("hex");

interface Upload {
  readonly status: number;
  readonly text: string;
}

/** POSTs a file as a controller does: raw bytes, octet-stream, with a length or chunked. */
function upload(base: string, path: string, chunks: readonly Buffer[], mode: "length" | "chunked"): Promise<Upload> {
  const url = new URL(base);
  const total = chunks.reduce((n, c) => n + c.length, 0);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: "POST",
        path,
        headers: {
          "Content-Type": "application/octet-stream",
          ...(mode === "length" ? { "Content-Length": String(total) } : { "Transfer-Encoding": "chunked" }),
        },
      },
      (res) => {
        const body: Buffer[] = [];
        res.on("data", (c: Buffer) => body.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(body).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    void (async () => {
      for (const chunk of chunks) {
        req.write(chunk);
        // Separate writes arrive as separate chunks of the chunked encoding.
        await new Promise((r) => setImmediate(r));
      }
      req.end();
    })();
  });
}

/** Two consecutive UDP ports that can be bound now, for a range that fills up after two reservations. */
async function freeUdpPair(): Promise<[number, number]> {
  for (let port = 36000 + (process.pid % 100) * 20; port < 60000; port += 2) {
    if ((await canBindUdp(port)) && (await canBindUdp(port + 1))) return [port, port + 1];
  }
  throw new Error("no two consecutive free UDP ports");
}

/** GNS3's per-project notification stream, read line by line as it arrives. */
class NotificationStream {
  readonly lines: string[] = [];
  private buffered = "";
  private readonly decoder = new TextDecoder();
  /** A read still under way when a wait timed out: its chunk must not be lost. */
  private pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  private constructor(
    private readonly controller: AbortController,
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    readonly response: Response,
  ) {}

  static async open(url: string): Promise<NotificationStream> {
    const controller = new AbortController();
    const response = await fetch(url, { signal: controller.signal });
    if (response.body === null) throw new Error("no body");
    return new NotificationStream(controller, response.body.getReader(), response);
  }

  /** The next complete line (parsed), or a failure after `ms`. */
  async next(ms = 2000): Promise<{ text: string; json: any }> {
    const deadline = Date.now() + ms;
    for (;;) {
      const newline = this.buffered.indexOf("\n");
      if (newline >= 0) {
        const text = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        this.lines.push(text);
        return { text, json: JSON.parse(text) };
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no notification line within ${ms} ms; got ${JSON.stringify(this.lines)}`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), left)));
      this.pending ??= this.reader.read();
      const chunk = await Promise.race([this.pending, timeout]);
      clearTimeout(timer);
      if (chunk === "timeout") continue;
      this.pending = undefined;
      if (chunk.done) throw new Error(`the stream ended; got ${JSON.stringify(this.lines)}`);
      this.buffered += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Lines up to and including the first one `match` accepts. */
  async until(match: (json: any) => boolean, ms = 2000): Promise<any[]> {
    const seen: any[] = [];
    const deadline = Date.now() + ms;
    for (;;) {
      const line = await this.next(Math.max(1, deadline - Date.now()));
      seen.push(line.json);
      if (match(line.json)) return seen;
    }
  }

  abort(): void {
    this.controller.abort();
    (this.pending ?? this.reader.read()).catch(() => undefined);
  }
}

describe("HTTP: what a GNS3 controller asks of a compute besides nodes", () => {
  describe("GET /v2/compute/capabilities", () => {
    it("answers exactly node_types, platform and version, the configured GNS3 version", async () => {
      const s = await startTestServer();
      try {
        const r = await s.request("GET", "/v2/compute/capabilities");
        expect(r.status).to.equal(200);
        expect(r.headers.get("content-type")).to.match(/^application\/json/);
        expect(r.json).to.deep.equal({ node_types: ["ethernet_hub", "ethernet_switch", "vpcs", "cloud"], platform: process.platform, version: s.netemu.settings.gns3Version });
        expect(r.json.version).to.equal("2.2.59");
      } finally {
        await s.close();
      }
    });

    it("reports another configured version as is, so that a 2.2.58 controller accepts the compute", async () => {
      const s = await startTestServer({ settings: { gns3Version: "2.2.58" } });
      try {
        const r = await s.request("GET", "/v2/compute/capabilities");
        expect(r.json).to.deep.equal({ node_types: ["ethernet_hub", "ethernet_switch", "vpcs", "cloud"], platform: process.platform, version: "2.2.58" });
      } finally {
        await s.close();
      }
    });
  });

  describe("GET /v2/compute/statistics", () => {
    it("maps the host's statistics to GNS3's eleven keys, a load over 100 % kept as is", async () => {
      const s = await startTestServer({ overrides: { hostMetrics: new FakeHostMetrics(FAKE_LOAD, FAKE_STATISTICS) } });
      try {
        const r = await s.request("GET", "/v2/compute/statistics");
        expect(r.status).to.equal(200);
        expect(r.json).to.deep.equal({
          cpu_usage_percent: 37,
          disk_usage_percent: 81,
          load_average_percent: [150, 75, 3],
          memory_free: 3_000_000_000,
          memory_total: 8_000_000_000,
          memory_usage_percent: 62,
          memory_used: 5_000_000_000,
          swap_free: 1_500_000_000,
          swap_total: 2_000_000_000,
          swap_usage_percent: 25,
          swap_used: 500_000_000,
        });
      } finally {
        await s.close();
      }
    });

    it("answers the real machine's statistics as integers, percentages within 0..100", async () => {
      const s = await startTestServer();
      try {
        const r = await s.request("GET", "/v2/compute/statistics");
        expect(r.status).to.equal(200);
        expect(Object.keys(r.json).sort()).to.deep.equal(STATISTICS_KEYS);
        for (const key of STATISTICS_KEYS.filter((k) => k !== "load_average_percent")) {
          expect(Number.isInteger(r.json[key]), key).to.equal(true);
          expect(r.json[key], key).to.be.at.least(0);
        }
        for (const key of ["cpu_usage_percent", "memory_usage_percent", "swap_usage_percent", "disk_usage_percent"]) {
          expect(r.json[key], key).to.be.within(0, 100);
        }
        expect(r.json.load_average_percent).to.have.length(3);
        for (const load of r.json.load_average_percent) {
          expect(Number.isInteger(load)).to.equal(true);
          expect(load).to.be.at.least(0);
        }
        expect(r.json.memory_total).to.be.above(0);
        expect(r.json.memory_used + r.json.memory_free).to.equal(r.json.memory_total);
        expect(r.json.swap_used + r.json.swap_free).to.equal(r.json.swap_total);
      } finally {
        await s.close();
      }
    });
  });

  describe("GET /v2/compute/network/interfaces", () => {
    it("maps each interface to GNS3's seven keys", async () => {
      const entries: NetworkInterface[] = [
        { id: "eth0", name: "eth0", ipAddress: "192.0.2.7", netmask: "255.255.255.0", macAddress: "02:00:00:00:00:07", type: "ethernet", special: false },
        { id: "tap3", name: "tap3", ipAddress: "", netmask: "", macAddress: "", type: "tap", special: false },
        { id: "lo", name: "lo", ipAddress: "127.0.0.1", netmask: "255.0.0.0", macAddress: "00:00:00:00:00:00", type: "ethernet", special: true },
      ];
      const s = await startTestServer({ overrides: { networkInterfaces: new FakeNetworkInterfaces(entries) } });
      try {
        const r = await s.request("GET", "/v2/compute/network/interfaces");
        expect(r.status).to.equal(200);
        expect(r.json).to.deep.equal([
          { id: "eth0", ip_address: "192.0.2.7", mac_address: "02:00:00:00:00:07", name: "eth0", netmask: "255.255.255.0", special: false, type: "ethernet" },
          { id: "tap3", ip_address: "", mac_address: "", name: "tap3", netmask: "", special: false, type: "tap" },
          { id: "lo", ip_address: "127.0.0.1", mac_address: "00:00:00:00:00:00", name: "lo", netmask: "255.0.0.0", special: true, type: "ethernet" },
        ]);
      } finally {
        await s.close();
      }
    });

    it("lists the address netemu serves on (127.0.0.2, which lo does not list) with lo's netmask", async () => {
      const s = await startTestServer({ settings: { host: "127.0.0.2" } });
      try {
        const r = await s.request("GET", "/v2/compute/network/interfaces");
        expect(r.status).to.equal(200);
        for (const entry of r.json) expect(Object.keys(entry).sort()).to.deep.equal(INTERFACE_KEYS);
        const served = r.json.filter((e: { ip_address: string }) => e.ip_address === "127.0.0.2");
        expect(served).to.have.length(1);
        expect(served[0]).to.deep.include({ netmask: "255.0.0.0", type: "ethernet" });
        expect(r.json[0].ip_address, "the served address comes first").to.equal("127.0.0.2");
      } finally {
        await s.close();
      }
    });
  });

  describe("GET /v2/compute/network/ports", () => {
    let s: TestServer;
    const createProject = async (id: string, name: string) => expect((await s.request("POST", "/v2/compute/projects", { name, project_id: id })).status).to.equal(201);
    const ports = async () => (await s.request("GET", "/v2/compute/network/ports")).json;
    const reserve = async (id: string) => s.request("POST", `/v2/compute/projects/${id}/ports/udp`);

    describe("with the configured range", () => {
      beforeEach(async () => {
        s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() } });
        await createProject(P, "ports");
      });
      afterEach(async () => s.close());

      it("answers the range and no port before anything is reserved", async () => {
        const { start, end } = s.netemu.settings.udpPortRange;
        const r = await s.request("GET", "/v2/compute/network/ports");
        expect(r.status).to.equal(200);
        expect(r.json).to.deep.include({ console_ports: [], udp_port_range: [start, end], udp_ports: [] });
        expect(Object.keys(r.json).sort()).to.deep.equal(["console_port_range", "console_ports", "udp_port_range", "udp_ports"]);
      });

      it("lists the console ports given to switches", async () => {
        await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "SW1", console: 5003 });
        await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "SW2", console: 5001 });
        await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "SW3" });
        expect((await ports()).console_ports).to.deep.equal([5001, 5003]);
      });

      it("lists the ports reserved by POST .../ports/udp and those NIOs bound, in order", async () => {
        const a = (await reserve(P)).json.udp_port as number;
        const b = (await reserve(P)).json.udp_port as number;
        const sw = (await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id;
        const nio = await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes/${sw}/adapters/0/ports/0/nio`, {
          type: "nio_udp",
          lport: 20000,
          rhost: "127.0.0.1",
          rport: 20001,
        });
        expect(nio.status).to.equal(201);
        expect((await ports()).udp_ports).to.deep.equal([20000, a, b].sort((x, y) => x - y));
      });

      it("releases a project's reserved ports and NIO ports when it is closed, and only that project's", async () => {
        const mine = (await reserve(P)).json.udp_port as number;
        const sw = (await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id;
        await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes/${sw}/adapters/0/ports/0/nio`, {
          type: "nio_udp",
          lport: 20000,
          rhost: "127.0.0.1",
          rport: 20001,
        });
        await createProject(OTHER, "other");
        const theirs = (await reserve(OTHER)).json.udp_port as number;
        expect((await ports()).udp_ports).to.include.members([mine, theirs, 20000]);
        expect((await s.request("POST", `/v2/compute/projects/${P}/close`)).status).to.equal(204);
        expect((await ports()).udp_ports).to.deep.equal([theirs]);
      });

      it("releases a project's reserved ports when it is deleted", async () => {
        await reserve(P);
        await reserve(P);
        expect((await ports()).udp_ports).to.have.length(2);
        expect((await s.request("DELETE", `/v2/compute/projects/${P}`)).status).to.equal(204);
        expect((await ports()).udp_ports).to.deep.equal([]);
      });
    });

    describe("with a range of two ports", () => {
      let range: [number, number];
      beforeEach(async () => {
        range = await freeUdpPair();
        s = await startTestServer({ settings: { udpPortRange: { start: range[0], end: range[1] } } });
      });
      afterEach(async () => s.close());

      it("is full after two reservations, and free again once their project is closed", async () => {
        await createProject(P, "a");
        expect((await reserve(P)).status).to.equal(201);
        expect((await reserve(P)).status).to.equal(201);
        const full = await reserve(P);
        expect(full.json).to.deep.equal({ message: `Could not find a free port between ${range[0]} and ${range[1]}`, status: 409 });
        expect((await s.request("POST", `/v2/compute/projects/${P}/close`)).status).to.equal(204);
        expect((await ports()).udp_ports).to.deep.equal([]);
        await createProject(OTHER, "b");
        const again = [await reserve(OTHER), await reserve(OTHER)];
        expect(again.map((r) => r.status)).to.deep.equal([201, 201]);
        expect(again.map((r) => r.json.udp_port as number).sort((x, y) => x - y)).to.deep.equal(range);
      });

      it("is free again once their project is deleted", async () => {
        await createProject(P, "a");
        await reserve(P);
        await reserve(P);
        expect((await s.request("DELETE", `/v2/compute/projects/${P}`)).status).to.equal(204);
        await createProject(OTHER, "b");
        expect([(await reserve(OTHER)).status, (await reserve(OTHER)).status]).to.deep.equal([201, 201]);
      });
    });
  });

  describe("GET /v2/compute/debug", () => {
    it("answers text naming the version, the projects and each switch and hub port by port", async () => {
      const s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() } });
      try {
        await s.request("POST", "/v2/compute/projects", { name: "debugged", project_id: P });
        const sw = (await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "SW-debug" })).json.node_id;
        await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes/${sw}/adapters/0/ports/2/nio`, { type: "nio_null" });
        const hub = (await s.request("POST", `/v2/compute/projects/${P}/ethernet_hub/nodes`, { name: "HUB-debug" })).json.node_id;
        const r = await s.request("GET", "/v2/compute/debug");
        expect(r.status).to.equal(200);
        expect(r.headers.get("content-type")).to.equal("text/plain; charset=utf-8");
        expect(r.text).to.include("Version: 2.2.59");
        expect(r.text).to.include(`* debugged (${P})`);
        expect(r.text).to.include(`Ethernet switch SW-debug (${sw}) in project ${P}, started`);
        expect(r.text).to.include(`Ethernet hub HUB-debug (${hub}) in project ${P}, started`);
        const lines = r.text.split("\n");
        const hubAt = lines.findIndex((l) => l.includes(`HUB-debug (${hub})`));
        expect(lines.slice(hubAt + 1, hubAt + 9).map((l) => l.trim().split(" nio=")[0])).to.deep.equal(
          Array.from({ length: 8 }, (_, i) => `Port ${i} Ethernet${i}`),
        );
        const swPort2 = lines.find((l) => l.trim().startsWith("Port 2 Ethernet2 access vlan 1"));
        expect(swPort2).to.include("nio_null");
      } finally {
        await s.close();
      }
    });
  });

  describe("compute projects: list and PUT", () => {
    let s: TestServer;
    beforeEach(async () => {
      s = await startTestServer();
      await s.request("POST", "/v2/compute/projects", { name: "vars", project_id: P });
    });
    afterEach(async () => s.close());

    it("lists the compute projects", async () => {
      expect((await s.request("GET", "/v2/compute/projects")).json).to.deep.equal([{ name: "vars", project_id: P, variables: null }]);
      await s.request("POST", "/v2/compute/projects", { name: "second", project_id: OTHER, variables: [{ name: "x", value: "1" }] });
      const r = await s.request("GET", "/v2/compute/projects");
      expect(r.status).to.equal(200);
      expect(r.json).to.have.deep.members([
        { name: "vars", project_id: P, variables: null },
        { name: "second", project_id: OTHER, variables: [{ name: "x", value: "1" }] },
      ]);
      await s.request("POST", `/v2/compute/projects/${OTHER}/close`);
      expect((await s.request("GET", "/v2/compute/projects")).json).to.have.length(1);
    });

    it("sets the variables and answers 200 with the project", async () => {
      const r = await s.request("PUT", `/v2/compute/projects/${P}`, { variables: [{ name: "a", value: "b" }] });
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({ name: "vars", project_id: P, variables: [{ name: "a", value: "b" }] });
      expect((await s.request("GET", `/v2/compute/projects/${P}`)).json.variables).to.deep.equal([{ name: "a", value: "b" }]);
    });

    it("clears the variables with null", async () => {
      await s.request("PUT", `/v2/compute/projects/${P}`, { variables: [{ name: "a", value: "b" }] });
      const r = await s.request("PUT", `/v2/compute/projects/${P}`, { variables: null });
      expect(r.status).to.equal(200);
      expect(r.json.variables).to.equal(null);
    });

    for (const [what, body, message] of [
      ["a variable without name", { variables: [{ value: "x" }] }, "'name' is a required property"],
      ["a variable with an empty name", { variables: [{ name: "" }] }, "'' should be non-empty"],
      ["variables that are not a list", { variables: "x" }, "'x' is not of type 'array'"],
      ["an unknown key", { colour: "red" }, "Additional properties are not allowed ('colour' was unexpected)"],
    ] as const) {
      it(`refuses ${what} with 400 and changes nothing`, async () => {
        await s.request("PUT", `/v2/compute/projects/${P}`, { variables: [{ name: "kept", value: "1" }] });
        const r = await s.request("PUT", `/v2/compute/projects/${P}`, body);
        expect(r.status).to.equal(400);
        expect(r.json.message).to.include(message);
        expect(r.json).to.deep.include({ method: "PUT", path: "/v2/compute/projects/{project_id}" });
        expect((await s.request("GET", `/v2/compute/projects/${P}`)).json.variables).to.deep.equal([{ name: "kept", value: "1" }]);
      });
    }

    it("answers 404 for an unknown project and 400 for a malformed id", async () => {
      const unknown = await s.request("PUT", `/v2/compute/projects/${UNKNOWN}`, { variables: null });
      expect(unknown.json).to.deep.equal({ message: `Project ID ${UNKNOWN} doesn't exist`, status: 404 });
      const malformed = await s.request("PUT", "/v2/compute/projects/abc", { variables: null });
      expect(malformed.status).to.equal(400);
      expect(malformed.json.message).to.equal("Project ID abc is not a valid UUID");
    });
  });

  describe("project files", () => {
    let s: TestServer;
    let dir: string;
    const files = `/v2/compute/projects/${P}/files`;

    beforeEach(async () => {
      s = await startTestServer();
      expect((await s.request("POST", "/v2/compute/projects", { name: "files", project_id: P })).status).to.equal(201);
      dir = join(s.configDir, "projects", ".netemu-compute", P);
    });
    afterEach(async () => s.close());

    it("creates the project's directory under <config dir>/projects/.netemu-compute on POST /v2/compute/projects, apart from the controller's projects", () => {
      expect(s.netemu.settings.projectsPath).to.equal(join(s.configDir, "projects"));
      expect(existsSync(dir)).to.equal(true);
    });

    it("stores an uploaded file (raw bytes, not JSON), lists it with its MD5 and serves it back", async () => {
      const content = Buffer.from([0x00, 0xff, 0x7b, 0x0a, 0x22, 0x80, 0x01]);
      const r = await upload(s.url, `${files}/a/b.txt`, [content], "length");
      expect(r.status).to.equal(201);
      expect(readFileSync(join(dir, "a", "b.txt"))).to.deep.equal(content);
      const list = await s.request("GET", files);
      expect(list.status).to.equal(200);
      expect(list.json).to.deep.equal([{ md5sum: md5(content), path: "a/b.txt" }]);
      const back = await fetch(`${s.url}${files}/a/b.txt`);
      expect(back.status).to.equal(200);
      expect(back.headers.get("content-type")).to.equal("application/octet-stream");
      expect(Buffer.from(await back.arrayBuffer())).to.deep.equal(content);
    });

    it("takes a chunked upload whole", async () => {
      const parts = [Buffer.from("first,"), Buffer.from("second,"), Buffer.from("third")];
      expect((await upload(s.url, `${files}/chunked.bin`, parts, "chunked")).status).to.equal(201);
      expect(readFileSync(join(dir, "chunked.bin"), "utf8")).to.equal("first,second,third");
    });

    it("takes a file larger than the JSON body limit (1 MiB)", async () => {
      const big = randomBytes(3 * 1024 * 1024 + 17);
      const r = await upload(s.url, `${files}/images/big.img`, [big.subarray(0, 1 << 20), big.subarray(1 << 20)], "length");
      expect(r.status, r.text).to.equal(201);
      const list = (await s.request("GET", files)).json;
      expect(list).to.deep.equal([{ md5sum: md5(big), path: "images/big.img" }]);
      const back = Buffer.from(await (await fetch(`${s.url}${files}/images/big.img`)).arrayBuffer());
      expect(md5(back)).to.equal(md5(big));
    });

    it("replaces a file uploaded again", async () => {
      await upload(s.url, `${files}/x.txt`, [Buffer.from("old")], "length");
      await upload(s.url, `${files}/x.txt`, [Buffer.from("new!")], "length");
      expect((await s.request("GET", files)).json).to.deep.equal([{ md5sum: md5("new!"), path: "x.txt" }]);
    });

    it("leaves no half file when the client goes away mid-upload", async () => {
      const url = new URL(s.url);
      for (const [name, headers] of [
        ["chunked.bin", { "Transfer-Encoding": "chunked" }],
        ["sized.bin", { "Content-Length": "100000" }],
      ] as const) {
        const req = httpRequest({ host: url.hostname, port: url.port, method: "POST", path: `${files}/${name}`, headers });
        req.on("error", () => undefined);
        req.write(Buffer.alloc(5000, 1));
        await new Promise((r) => setTimeout(r, 100));
        req.destroy();
      }
      expect(await eventually(async () => (await s.request("GET", files)).json.length === 0 && readdirSync(dir).length === 0, 1000)).to.equal(true);
      expect(readdirSync(dir), "no temporary file left either").to.deep.equal([]);
      expect((await s.request("GET", "/v2/version")).status).to.equal(200);
    });

    it("leaves one whole upload, never a mixture, when the same file is uploaded twice at once", async () => {
      const url = new URL(s.url);
      const first = Buffer.alloc(8000, 0x41);
      const second = Buffer.alloc(4000, 0x42);
      const answers: Promise<number>[] = [];
      const open = () => {
        const req = httpRequest({ host: url.hostname, port: url.port, method: "POST", path: `${files}/same.bin`, headers: { "Transfer-Encoding": "chunked" } });
        answers.push(new Promise((resolve, reject) => req.on("response", (res) => (res.resume(), res.on("end", () => resolve(res.statusCode ?? 0)))).on("error", reject)));
        return req;
      };
      // The first upload starts, the second is sent whole meanwhile, then the first one ends.
      const a = open();
      a.write(first.subarray(0, 1000));
      await new Promise((r) => setTimeout(r, 100));
      const b = open();
      b.end(second);
      await answers[1];
      a.end(first.subarray(1000));
      await answers[0];
      const stored = readFileSync(join(dir, "same.bin"));
      expect(stored.equals(first) || stored.equals(second), `stored ${stored.length} bytes of ${[...new Set(stored)].map((c) => String.fromCharCode(c)).join("+")}`).to.equal(true);
    });

    it("lists a capture file written by a real capture under project-files/captures", async () => {
      const sw = (await s.request("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id;
      const port = `/v2/compute/projects/${P}/ethernet_switch/nodes/${sw}/adapters/0/ports/0`;
      const lport = (await s.request("POST", `/v2/compute/projects/${P}/ports/udp`)).json.udp_port;
      await s.request("POST", `${port}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
      const started = await s.request("POST", `${port}/start_capture`, { capture_file_name: "cap.pcap", data_link_type: "DLT_EN10MB" });
      expect(started.status).to.equal(200);
      expect(await eventually(() => existsSync(join(dir, "project-files", "captures", "cap.pcap")))).to.equal(true);
      expect((await s.request("POST", `${port}/stop_capture`)).status).to.equal(204);
      await upload(s.url, `${files}/notes.txt`, [Buffer.from("n")], "length");
      const onDisk = readFileSync(join(dir, "project-files", "captures", "cap.pcap"));
      expect(onDisk.length, "a pcap header at least").to.be.at.least(24);
      expect((await s.request("GET", files)).json).to.deep.equal([
        { md5sum: md5("n"), path: "notes.txt" },
        { md5sum: md5(onDisk), path: "project-files/captures/cap.pcap" },
      ]);
    });

    it("answers 404 JSON for a file that does not exist and for a directory", async () => {
      await upload(s.url, `${files}/a/b.txt`, [Buffer.from("x")], "length");
      for (const path of ["nope.txt", "a/nope.txt", "a", "a/"]) {
        const r = await s.request("GET", `${files}/${path}`);
        expect(r.status, path).to.equal(404);
        expect(r.headers.get("content-type"), path).to.match(/^application\/json/);
        expect(r.json, path).to.deep.equal({ message: "404: Not Found", status: 404 });
      }
    });

    it("refuses with 403 JSON paths that leave the project directory, writing nothing outside", async () => {
      writeFileSync(join(s.configDir, "secret.txt"), "top secret");
      for (const path of ["..%2F..%2Fetc%2Fpasswd", "a/../../x", "%2Fetc%2Fpasswd", "..%2Fsecret.txt", "..%2F..%2Fsecret.txt", "a%2F..%2F..%2F..%2Fescaped"]) {
        for (const method of ["GET", "POST"] as const) {
          const r = await rawHttp(s.url, method, `${files}/${path}`, method === "POST" ? "overwritten" : undefined);
          expect(r.status, `${method} ${path}`).to.equal(403);
          expect(JSON.parse(r.text).message, `${method} ${path}`).to.match(/^Path .* is outside the project directory$/);
          expect(JSON.parse(r.text).status).to.equal(403);
        }
      }
      expect(readFileSync(join(s.configDir, "secret.txt"), "utf8")).to.equal("top secret");
      expect(existsSync(join(s.configDir, "projects", "x"))).to.equal(false);
      expect(existsSync(join(s.configDir, "escaped"))).to.equal(false);
      expect(existsSync(join(s.configDir, "projects", "escaped"))).to.equal(false);
      expect((await s.request("GET", files)).json).to.deep.equal([]);
    });

    it("does not serve a file through a symbolic link that leads out of the project", async () => {
      writeFileSync(join(s.configDir, "secret.txt"), "top secret");
      symlinkSync(join(s.configDir, "secret.txt"), join(dir, "link.txt"));
      mkdirSync(join(dir, "sub"));
      symlinkSync(s.configDir, join(dir, "sub", "up"));
      for (const path of ["link.txt", "sub/up/secret.txt"]) {
        const r = await s.request("GET", `${files}/${path}`);
        expect(r.status, path).to.equal(404);
        expect(r.text, path).not.to.include("top secret");
      }
      expect((await s.request("GET", files)).json, "nor list it").to.deep.equal([]);
      const write = await rawHttp(s.url, "POST", `${files}/sub/up/secret.txt`, "overwritten");
      expect(write.status, "refused as a path outside the project, as GNS3 does").to.equal(403);
      expect(readFileSync(join(s.configDir, "secret.txt"), "utf8")).to.equal("top secret");
    });

    it("answers 404 for an unknown project and 400 for a malformed one, on every file route", async () => {
      for (const [method, path] of [["GET", "files"], ["GET", "files/a.txt"], ["POST", "files/a.txt"]] as const) {
        const unknown = await s.request(method, `/v2/compute/projects/${UNKNOWN}/${path}`);
        expect(unknown.json, `${method} ${path}`).to.deep.equal({ message: `Project ID ${UNKNOWN} doesn't exist`, status: 404 });
        const malformed = await s.request(method, `/v2/compute/projects/abc/${path}`);
        expect(malformed.status, `${method} ${path}`).to.equal(400);
        expect(malformed.json.message).to.equal("Project ID abc is not a valid UUID");
      }
      expect(existsSync(join(s.configDir, "projects", UNKNOWN))).to.equal(false);
    });

    it("keeps the directory when the project is closed and removes it when it is deleted", async () => {
      await upload(s.url, `${files}/kept.txt`, [Buffer.from("k")], "length");
      expect((await s.request("POST", `/v2/compute/projects/${P}/close`)).status).to.equal(204);
      expect(readFileSync(join(dir, "kept.txt"), "utf8")).to.equal("k");
      expect((await s.request("GET", files)).status, "a closed project is unknown").to.equal(404);
      await s.request("POST", "/v2/compute/projects", { name: "files", project_id: P });
      expect((await s.request("GET", files)).json).to.deep.equal([{ md5sum: md5("k"), path: "kept.txt" }]);
      expect((await s.request("DELETE", `/v2/compute/projects/${P}`)).status).to.equal(204);
      expect(existsSync(dir)).to.equal(false);
    });
  });

  describe("GET /v2/compute/projects/{project_id}/notifications", () => {
    let s: TestServer;
    let hub: NotificationHub;
    let stream: NotificationStream | undefined;
    const nodes = `/v2/compute/projects/${P}/ethernet_switch/nodes`;

    beforeEach(async () => {
      hub = new NotificationHub();
      s = await startTestServer({ overrides: { notifications: hub, hostMetrics: new FakeHostMetrics(FAKE_LOAD, FAKE_STATISTICS) } });
      await s.request("POST", "/v2/compute/projects", { name: "watched", project_id: P });
      await s.request("POST", "/v2/compute/projects", { name: "other", project_id: OTHER });
    });
    afterEach(async () => {
      stream?.abort();
      stream = undefined;
      await s.close();
    });

    it("opens with a ping carrying the host's CPU and memory use, as JSON lines", async () => {
      stream = await NotificationStream.open(`${s.url}/v2/compute/projects/${P}/notifications`);
      expect(stream.response.status).to.equal(200);
      expect(stream.response.headers.get("content-type")).to.equal("application/json");
      const first = await stream.next();
      expect(first.text).to.equal('{"action":"ping","event":{"cpu_usage_percent":12.5,"memory_usage_percent":40.2}}');
    });

    it("streams node.updated with the node as POST answers it (no counters) when a switch of the project is renamed", async () => {
      const sw = (await s.request("POST", nodes, { name: "SW1" })).json.node_id;
      const lport = (await s.request("POST", `/v2/compute/projects/${P}/ports/udp`)).json.udp_port;
      await s.request("POST", `${nodes}/${sw}/adapters/0/ports/0/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
      expect((await s.request("GET", `${nodes}/${sw}`)).json, "GET has counters, the event must not").to.have.property("ports_statistics");
      stream = await NotificationStream.open(`${s.url}/v2/compute/projects/${P}/notifications`);
      await stream.next();
      const renamed = await s.request("PUT", `${nodes}/${sw}`, { name: "Core" });
      expect(renamed.status).to.equal(200);
      const [line] = await stream.until((m) => m.action === "node.updated");
      expect(line).to.deep.equal({ action: "node.updated", event: renamed.json, project_id: P });
      expect(Object.keys(line.event).sort()).to.deep.equal(SWITCH_KEYS);
      expect(line.event.name).to.equal("Core");
    });

    it("streams a hub's status change with exactly the hub's keys", async () => {
      const hubId = (await s.request("POST", `/v2/compute/projects/${P}/ethernet_hub/nodes`, { name: "HUB1" })).json.node_id;
      stream = await NotificationStream.open(`${s.url}/v2/compute/projects/${P}/notifications`);
      await stream.next();
      expect((await s.request("POST", `/v2/compute/projects/${P}/ethernet_hub/nodes/${hubId}/stop`)).status).to.equal(204);
      const [line] = await stream.until((m) => m.action === "node.updated");
      expect(Object.keys(line.event).sort()).to.deep.equal(HUB_KEYS);
      expect(line).to.deep.include({ project_id: P });
      expect(line.event).to.deep.include({ node_id: hubId, status: "stopped" });
    });

    it("leaves out the events of other projects", async () => {
      const mine = (await s.request("POST", nodes, { name: "Mine" })).json.node_id;
      const theirs = (await s.request("POST", `/v2/compute/projects/${OTHER}/ethernet_switch/nodes`, { name: "Theirs" })).json.node_id;
      stream = await NotificationStream.open(`${s.url}/v2/compute/projects/${P}/notifications`);
      await stream.next();
      await s.request("PUT", `/v2/compute/projects/${OTHER}/ethernet_switch/nodes/${theirs}`, { name: "Theirs2" });
      await s.request("POST", `/v2/compute/projects/${OTHER}/ethernet_switch/nodes/${theirs}/stop`);
      await s.request("PUT", `${nodes}/${mine}`, { name: "Mine2" });
      // Notifications go out in order: anything of the other project would come before this one.
      const seen = await stream.until((m) => m.action === "node.updated");
      expect(seen.filter((m) => m.action !== "ping").map((m) => [m.project_id, m.event.name])).to.deep.equal([[P, "Mine2"]]);
    });

    it("answers 404 JSON for an unknown project and 400 for a malformed one", async () => {
      // The controller's relay of node status listens for good (ADR 0091): count what the stream adds.
      const standing = hub.listenerCount;
      const unknown = await s.request("GET", `/v2/compute/projects/${UNKNOWN}/notifications`);
      expect(unknown.json).to.deep.equal({ message: `Project ID ${UNKNOWN} doesn't exist`, status: 404 });
      expect((await s.request("GET", "/v2/compute/projects/abc/notifications")).status).to.equal(400);
      expect(hub.listenerCount, "no subscription is left behind").to.equal(standing);
    });

    it("stops following when the client goes away, and the server keeps serving", async () => {
      const standing = hub.listenerCount;
      stream = await NotificationStream.open(`${s.url}/v2/compute/projects/${P}/notifications`);
      await stream.next();
      expect(hub.listenerCount).to.equal(standing + 1);
      stream.abort();
      expect(await eventually(() => hub.listenerCount === standing), "the feed unsubscribes").to.equal(true);
      const sw = (await s.request("POST", nodes, { name: "After" })).json.node_id;
      expect((await s.request("PUT", `${nodes}/${sw}`, { name: "After2" })).status).to.equal(200);
      expect((await s.request("GET", "/v2/version")).status).to.equal(200);
      const again = await NotificationStream.open(`${s.url}/v2/compute/projects/${P}/notifications`);
      try {
        expect((await again.next()).json.action).to.equal("ping");
      } finally {
        again.abort();
      }
    });
  });

  describe("GET /v2/compute/notifications/ws", () => {
    it("answers a request without Upgrade with a JSON 400", async () => {
      const s = await startTestServer();
      try {
        const r = await s.request("GET", "/v2/compute/notifications/ws");
        expect(r.status).to.equal(400);
        expect(r.headers.get("content-type")).to.match(/^application\/json/);
        expect(r.json).to.deep.include({ status: 400, method: "GET", path: "/v2/compute/notifications/ws" });
        expect(r.json.message).to.include("websocket");
      } finally {
        await s.close();
      }
    });
  });
});

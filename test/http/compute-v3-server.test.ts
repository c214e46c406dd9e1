import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { V3_AUTH_OFF_MESSAGE, v3ControllerPathMessage } from "../../src/adapters/http/v3/auth.js";

/**
 * /v3/compute's server routes and credentials, as a GNS3 3.0.6 controller meets them when it adds
 * netemu as a compute (docs: gns3-v3-compute-protocol.md, "Transport and authentication", "Connecting").
 */
const basic = (user: string, password: string): Record<string, string> => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });
const GNS3 = basic("gns3", "s3cret");

describe("/v3/compute server routes", () => {
  describe("with --auth", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ settings: { auth: { enabled: true, user: "gns3", password: "s3cret" }, v3: { gns3Version: "3.0.6", noAuth: false } } });
    });
    after(async () => server.close());

    it("answers the capabilities a 3.x compute gives: version, platform, node types and the machine's size as integers", async () => {
      const r = await server.request("GET", "/v3/compute/capabilities", undefined, GNS3);
      expect(r.status).to.equal(200);
      expect(Object.keys(r.json)).to.deep.equal(["cpus", "disk_size", "memory", "node_types", "platform", "version"]);
      expect(r.json.version).to.equal("3.0.6");
      expect([...r.json.node_types].sort()).to.deep.equal(["cloud", "ethernet_hub", "ethernet_switch", "vpcs"]);
      for (const key of ["cpus", "memory", "disk_size"]) expect(Number.isInteger(r.json[key]) && r.json[key] > 0, key).to.equal(true);
    });

    it("keeps the v2 capabilities to GNS3 2.2's three keys and version", async () => {
      const r = await server.request("GET", "/v2/compute/capabilities", undefined, GNS3);
      expect(Object.keys(r.json).sort()).to.deep.equal(["node_types", "platform", "version"]);
      expect(r.json.version).to.equal("2.2.59");
    });

    it("answers 3.x's version body, without local", async () => {
      const r = await server.request("GET", "/v3/compute/version", undefined, GNS3);
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({ version: "3.0.6" });
    });

    it("answers the statistics with the disk usage a 3.x controller reads", async () => {
      const r = await server.request("GET", "/v3/compute/statistics", undefined, GNS3);
      expect(r.status).to.equal(200);
      expect(r.json).to.include.keys("cpu_usage_percent", "memory_usage_percent", "disk_usage_percent", "load_average_percent");
    });

    it("lists the network interfaces with the address fields the controller picks a tunnel address from", async () => {
      const r = await server.request("GET", "/v3/compute/network/interfaces", undefined, GNS3);
      expect(r.status).to.equal(200);
      expect(r.json.some((i: { ip_address: string }) => i.ip_address === "127.0.0.1")).to.equal(true);
    });

    it("lists the console and UDP port ranges and the ports in use, as 2.2 does", async () => {
      const r = await server.request("GET", "/v3/compute/network/ports", undefined, GNS3);
      expect(r.status).to.equal(200);
      expect(Object.keys(r.json).sort()).to.deep.equal(["console_port_range", "console_ports", "udp_port_range", "udp_ports"]);
    });

    it("refuses a request without credentials with 3.x's JSON 401 and no WWW-Authenticate", async () => {
      const r = await server.request("GET", "/v3/compute/capabilities");
      expect(r.status).to.equal(401);
      expect(r.json).to.deep.equal({ message: "Not authenticated" });
      expect(r.headers.get("www-authenticate")).to.equal(null);
    });

    it("refuses a wrong password with 3.x's wording", async () => {
      const r = await server.request("GET", "/v3/compute/capabilities", undefined, basic("gns3", "wrong"));
      expect(r.status).to.equal(401);
      expect(r.json).to.deep.equal({ message: "Invalid compute username or password" });
    });

    it("shares the failed-login throttle with /v2: after 10 failures even the right password gets a JSON 429 with Retry-After", async () => {
      const throttled = await startTestServer({ settings: { auth: { enabled: true, user: "gns3", password: "s3cret" } } });
      try {
        for (let i = 0; i < 5; i++) expect((await throttled.request("GET", "/v3/compute/version", undefined, basic("gns3", "no"))).status).to.equal(401);
        for (let i = 0; i < 5; i++) expect((await throttled.request("GET", "/v2/compute/version", undefined, basic("gns3", "no"))).status).to.equal(401);
        const r = await throttled.request("GET", "/v3/compute/version", undefined, GNS3);
        expect(r.status).to.equal(429);
        expect(r.headers.get("retry-after")).to.equal("1");
        expect(r.json).to.deep.equal({ message: "Too many failed logins from this address: retry after 1 s" });
      } finally {
        await throttled.close();
      }
    });

    it("keeps GNS3 2.2's empty 401 with WWW-Authenticate on the v2 routes", async () => {
      const r = await server.request("GET", "/v2/compute/capabilities");
      expect(r.status).to.equal(401);
      expect(r.text).to.equal("");
      expect(r.headers.get("www-authenticate")).to.equal('Basic realm="GNS3 server"');
    });
  });

  describe("GNS3 3.x's controller paths (/v3 outside /v3/compute)", () => {
    for (const [what, options] of [["without --auth", {}], ["with --auth", { settings: { auth: { enabled: true, user: "gns3", password: "pw" } } }]] as const) {
      it(`answers 404 saying netemu serves /v3/compute only and where its controller is, before asking for credentials (${what})`, async () => {
        const server = await startTestServer(options);
        try {
          for (const path of ["/v3/projects", "/v3/templates", "/v3/access/users/login"]) {
            const r = await server.request("GET", path);
            expect(r.status, path).to.equal(404);
            expect(r.json, path).to.deep.equal({ message: v3ControllerPathMessage(path) });
            expect(r.json.message).to.include("/v3/compute").and.include("/v2/projects");
          }
        } finally {
          await server.close();
        }
      });
    }
  });

  describe("without --auth", () => {
    it("refuses every /v3 request, saying how to choose, unless serving it without credentials was chosen", async () => {
      const server = await startTestServer();
      try {
        const r = await server.request("GET", "/v3/compute/capabilities", undefined, GNS3);
        expect(r.status).to.equal(401);
        expect(r.json).to.deep.equal({ message: V3_AUTH_OFF_MESSAGE });
        expect((await server.request("GET", "/v2/compute/capabilities")).status).to.equal(200);
      } finally {
        await server.close();
      }
    });

    it("serves /v3 with any credentials or none when --v3-no-auth says so, reporting the configured version", async () => {
      const server = await startTestServer({ settings: { v3: { gns3Version: "3.0.5", noAuth: true } } });
      try {
        expect((await server.request("GET", "/v3/compute/capabilities")).json.version).to.equal("3.0.5");
        expect((await server.request("GET", "/v3/compute/version", undefined, basic("anyone", "x"))).json).to.deep.equal({ version: "3.0.5" });
      } finally {
        await server.close();
      }
    });
  });
});

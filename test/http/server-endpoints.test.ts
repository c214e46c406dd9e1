import { expect } from "chai";
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";

describe("HTTP: server endpoints", () => {
  let s: TestServer;
  beforeEach(async () => (s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() } })));
  afterEach(async () => s.close());

  describe("GET /v2/version", () => {
    it("answers the configured GNS3 version and local mode, exactly as GNS3 renders it", async () => {
      const r = await s.request("GET", "/v2/version");
      expect(r.status).to.equal(200);
      expect(r.headers.get("content-type")).to.equal("application/json");
      expect(r.headers.get("x-route")).to.equal("/v2/version");
      expect(r.text).to.equal('{\n    "local": true,\n    "version": "2.2.59"\n}');
    });

    it("is also served by the compute", async () => {
      const r = await s.request("GET", "/v2/compute/version");
      expect(r.json).to.deep.equal({ local: true, version: "2.2.59" });
    });
  });

  describe("POST /v2/version", () => {
    it("answers 200 with the version when the client's matches", async () => {
      const r = await s.request("POST", "/v2/version", { version: "2.2.59" });
      expect(r.status).to.equal(200);
      expect(r.text).to.equal('{\n    "version": "2.2.59"\n}');
    });

    it("accepts and ignores local", async () => {
      const r = await s.request("POST", "/v2/version", { version: "2.2.59", local: true });
      expect(r.json).to.deep.equal({ version: "2.2.59" });
    });

    it("answers 409 with GNS3's message when the versions differ", async () => {
      const r = await s.request("POST", "/v2/version", { version: "0.4.2" });
      expect(r.status).to.equal(409);
      expect(r.json).to.deep.equal({ message: "Client version 0.4.2 is not the same as server version 2.2.59", status: 409 });
    });

    it("takes the version from the query string, as GNS3 merges it into the body", async () => {
      const r = await s.request("POST", "/v2/version?version=2.2.59");
      expect(r.status).to.equal(200);
    });

    it("refuses an additional property with GNS3's exact 400 body", async () => {
      const r = await s.request("POST", "/v2/version", { version: "2.2.59", bla: "blu" });
      expect(r.status).to.equal(400);
      expect(r.json).to.deep.equal({
        message:
          "JSON schema error with API request '/v2/version': Additional properties are not allowed ('bla' was unexpected)",
        method: "POST",
        path: "/v2/version",
        request: { bla: "blu", version: "2.2.59" },
        status: 400,
      });
    });

    it("refuses a missing version", async () => {
      const r = await s.request("POST", "/v2/version", {});
      expect(r.status).to.equal(400);
      expect(r.json.message).to.match(/: 'version' is a required property$/);
    });

    it("refuses a version that is not a string", async () => {
      const r = await s.request("POST", "/v2/version", { version: 2 });
      expect(r.json.message).to.match(/: 2 is not of type 'string'$/);
    });

    it("refuses a body that is not an object", async () => {
      for (const [text, repr] of [["[]", "[]"], ["null", "None"], ["1", "1"]] as const) {
        const r = await s.raw("POST", "/v2/version", text);
        expect(r.status).to.equal(400);
        expect(r.json.message).to.match(new RegExp(`: ${repr.replace(/[[\]]/g, "\\$&")} is not of type 'object'$`));
      }
    });

    it("refuses malformed JSON with the raw text echoed", async () => {
      const r = await s.raw("POST", "/v2/version", "BOUM");
      expect(r.status).to.equal(400);
      expect(r.json.path).to.equal("/v2/version");
      expect(r.json.method).to.equal("POST");
      expect(r.json.request).to.deep.equal({ malformed_json: "BOUM" });
    });

    it("parses the body as JSON whatever its content type, as curl -d sends it", async () => {
      const r = await s.raw("POST", "/v2/version", '{"version": "2.2.59"}', { "Content-Type": "application/x-www-form-urlencoded" });
      expect(r.status).to.equal(200);
    });
  });

  describe("routing", () => {
    it("answers JSON 404 for an unrouted path, a trailing slash included", async () => {
      for (const path of ["/v2/nothing", "/v2/version/", "/"]) {
        const r = await s.request("GET", path);
        expect(r.status).to.equal(404);
        expect(r.headers.get("content-type")).to.equal("application/json");
        expect(r.json).to.deep.equal({ message: "404: Not Found", status: 404 });
      }
    });

    it("answers JSON 405 with Allow for a wrong method", async () => {
      const r = await s.request("DELETE", "/v2/version");
      expect(r.status).to.equal(405);
      expect(r.headers.get("allow")).to.include("GET").and.include("POST");
      expect(r.json).to.deep.equal({ message: "405: Method Not Allowed", status: 405 });
    });
  });

  describe("IOU license", () => {
    it("starts from GNS3's defaults", async () => {
      const r = await s.request("GET", "/v2/iou_license");
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({ iourc_content: "", license_check: true });
    });

    it("merges a PUT into the stored settings, answers 201 and keeps them in the settings file", async () => {
      const r = await s.request("PUT", "/v2/iou_license", { iourc_content: "[license]\nhost = 123;" });
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.equal({ iourc_content: "[license]\nhost = 123;", license_check: true });
      const r2 = await s.request("PUT", "/v2/iou_license", { license_check: false });
      expect(r2.json).to.deep.equal({ iourc_content: "[license]\nhost = 123;", license_check: false });
      const file = JSON.parse(readFileSync(join(s.configDir, "gns3_controller.conf"), "utf8"));
      expect(file.iou_license).to.deep.equal({ iourc_content: "[license]\nhost = 123;", license_check: false });
      expect((await s.request("GET", "/v2/iou_license")).json).to.deep.equal(r2.json);
    });

    it("keeps other keys of the settings file when it writes", async () => {
      writeFileSync(join(s.configDir, "gns3_controller.conf"), JSON.stringify({ computes: [{ id: "x" }] }));
      const fresh = await startTestServer({ settings: { configDir: s.configDir }, overrides: { dataPlane: new FakeDataPlane() } });
      try {
        await fresh.request("PUT", "/v2/iou_license", { license_check: false });
        const file = JSON.parse(readFileSync(join(s.configDir, "gns3_controller.conf"), "utf8"));
        expect(file.computes).to.deep.equal([{ id: "x" }]);
        expect(file.iou_license.license_check).to.equal(false);
      } finally {
        await fresh.netemu.shutdown();
      }
    });

    for (const [what, body, message] of [
      ["a wrong type", { license_check: "nope" }, "'nope' is not of type 'boolean'"],
      ["an unknown key", { extra: 42 }, "Additional properties are not allowed ('extra' was unexpected)"],
      ["a non-object", [1], "[1] is not of type 'object'"],
      ["null", null, "None is not of type 'object'"],
    ] as const) {
      it(`refuses ${what} with 400 and stores nothing`, async () => {
        const r = await s.request("PUT", "/v2/iou_license", body);
        expect(r.status).to.equal(400);
        expect(r.json.message).to.have.string(message);
        expect((await s.request("GET", "/v2/iou_license")).json).to.deep.equal({ iourc_content: "", license_check: true });
        expect(existsSync(join(s.configDir, "gns3_controller.conf"))).to.equal(false);
      });
    }

    // Root (CI) writes through permissions: a path under a regular file is one nobody can write.
    it("answers 500 naming the settings file and the OS's reason when the config directory cannot be used", async () => {
      writeFileSync(join(s.configDir, "a-file"), "");
      const broken = await startTestServer({ settings: { configDir: join(s.configDir, "a-file", "config") }, overrides: { dataPlane: new FakeDataPlane() } });
      try {
        const path = join(s.configDir, "a-file", "config", "gns3_controller.conf");
        for (const [method, body] of [["GET", undefined], ["PUT", { license_check: false }]] as const) {
          const r = await broken.request(method, "/v2/iou_license", body);
          expect(r.status, method).to.equal(500);
          expect(r.json, method).to.deep.equal({ message: `Could not read the settings file ${path}: ENOTDIR (a part of the path is not a directory)`, status: 500 });
        }
      } finally {
        await broken.netemu.shutdown();
      }
    });

    it("answers 500 naming the settings file when it cannot be written, and leaves it as it was", async () => {
      const file = join(s.configDir, "gns3_controller.conf");
      writeFileSync(file, JSON.stringify({ iou_license: { iourc_content: "old", license_check: true } }));
      expect((await s.request("GET", "/v2/iou_license")).json.iourc_content).to.equal("old");
      // The directory goes, a regular file takes its place: even root cannot write in it now.
      const moved = `${s.configDir}-moved`;
      renameSync(s.configDir, moved);
      writeFileSync(s.configDir, "");
      try {
        const r = await s.request("PUT", "/v2/iou_license", { iourc_content: "new" });
        expect(r.status).to.equal(500);
        expect(r.json.message).to.equal(`Could not write the settings file ${file}: EEXIST (a file that is not a directory is in the way)`);
        expect((await s.request("GET", "/v2/iou_license")).json).to.deep.equal({ iourc_content: "old", license_check: true });
        expect(JSON.parse(readFileSync(join(moved, "gns3_controller.conf"), "utf8")).iou_license.iourc_content).to.equal("old");
        expect(readdirSync(moved)).to.deep.equal(["gns3_controller.conf"]);
      } finally {
        rmSync(s.configDir, { force: true });
        renameSync(moved, s.configDir);
      }
    });
  });

  describe("POST /v2/debug", () => {
    it("writes a debug bundle with the switches, their ports, NIOs and filters, and answers an empty 201", async () => {
      const project = (await s.request("POST", "/v2/projects", { name: "lab" })).json;
      const node = (await s.request("POST", `/v2/projects/${project.project_id}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json;
      const node2 = (await s.request("POST", `/v2/projects/${project.project_id}/nodes`, { name: "SW2", node_type: "ethernet_switch", compute_id: "local" })).json;
      const link = (
        await s.request("POST", `/v2/projects/${project.project_id}/links`, {
          nodes: [
            { node_id: node.node_id, adapter_number: 0, port_number: 1 },
            { node_id: node2.node_id, adapter_number: 0, port_number: 1 },
          ],
          filters: { delay: [10, 2] },
        })
      ).json;
      const r = await s.request("POST", "/v2/debug");
      expect(r.status).to.equal(201);
      expect(r.text).to.equal("");
      const controller = readFileSync(join(s.configDir, "debug", "controller.txt"), "utf8");
      expect(controller).to.include("Project name: lab").and.include(`Link ${link.link_id}`).and.include('"delay":[10,2]');
      expect(controller).to.match(/^Version: /m).and.match(/^Networks:/m);
      const compute = readFileSync(join(s.configDir, "debug", "compute_local.txt"), "utf8");
      expect(compute).to.include("Ethernet switch SW1").and.include("Port 1 Ethernet1 access vlan 1").and.include('"type":"nio_udp"');
    });

    it("never writes the auth credentials", async () => {
      const secret = await startTestServer({
        settings: { auth: { enabled: true, user: "admin", password: "s3cr3t-pw" } },
        overrides: { dataPlane: new FakeDataPlane() },
      });
      try {
        const auth = { Authorization: `Basic ${Buffer.from("admin:s3cr3t-pw").toString("base64")}` };
        expect((await secret.request("POST", "/v2/debug", undefined, auth)).status).to.equal(201);
        for (const f of ["controller.txt", "compute_local.txt"]) {
          expect(readFileSync(join(secret.configDir, "debug", f), "utf8")).not.to.include("s3cr3t-pw");
        }
      } finally {
        await secret.close();
      }
    });

    it("answers 500 naming the directory and the OS's reason when the bundle cannot be written", async () => {
      writeFileSync(join(s.configDir, "a-file"), "");
      const broken = await startTestServer({ settings: { configDir: join(s.configDir, "a-file") }, overrides: { dataPlane: new FakeDataPlane() } });
      try {
        const r = await broken.request("POST", "/v2/debug");
        expect(r.status).to.equal(500);
        expect(r.json).to.deep.equal({
          message: `Could not write the debug bundle in ${join(s.configDir, "a-file", "debug")}: ENOTDIR (a part of the path is not a directory)`,
          status: 500,
        });
      } finally {
        await broken.netemu.shutdown();
      }
    });

    it("is refused with 403 on a server that is not local", async () => {
      const remote = await startTestServer({ settings: { local: false }, overrides: { dataPlane: new FakeDataPlane() } });
      try {
        const r = await remote.request("POST", "/v2/debug");
        expect(r.status).to.equal(403);
        expect(r.json).to.deep.equal({ message: "You can only debug a local server", status: 403 });
        expect(existsSync(join(remote.configDir, "debug"))).to.equal(false);
      } finally {
        await remote.close();
      }
    });
  });

  describe("POST /v2/shutdown", () => {
    it("answers an empty 201, then closes everything and resolves the stopped promise", async () => {
      const dataPlane = new FakeDataPlane();
      const local = await startTestServer({ overrides: { dataPlane } });
      const r = await local.request("POST", "/v2/shutdown");
      expect(r.status).to.equal(201);
      expect(r.text).to.equal("");
      await local.netemu.stopped;
      expect(dataPlane.closed).to.equal(true);
      let refused = false;
      await fetch(local.url + "/v2/version").catch(() => (refused = true));
      expect(refused).to.equal(true);
      await local.close();
    });

    it("is refused with 403 on a server that is not local, which keeps running", async () => {
      const remote = await startTestServer({ settings: { local: false }, overrides: { dataPlane: new FakeDataPlane() } });
      try {
        const r = await remote.request("POST", "/v2/shutdown");
        expect(r.status).to.equal(403);
        expect(r.json).to.deep.equal({ message: "You can only stop a local server", status: 403 });
        expect((await remote.request("GET", "/v2/version")).status).to.equal(200);
      } finally {
        await remote.close();
      }
    });
  });

  describe("basic auth", () => {
    it("answers 401 with an empty body and GNS3's realm without the right credentials", async () => {
      const guarded = await startTestServer({
        settings: { auth: { enabled: true, user: "gns3", password: "pw" } },
        overrides: { dataPlane: new FakeDataPlane() },
      });
      try {
        for (const headers of [{} as Record<string, string>, { Authorization: "Basic " + Buffer.from("gns3:wrong").toString("base64") }, { Authorization: "basic " + Buffer.from("gns3:pw").toString("base64") }]) {
          const r = await guarded.request("GET", "/v2/version", undefined, headers);
          expect(r.status).to.equal(401);
          expect(r.text).to.equal("");
          expect(r.headers.get("www-authenticate")).to.equal('Basic realm="GNS3 server"');
        }
        const ok = await guarded.request("GET", "/v2/version", undefined, { Authorization: "Basic " + Buffer.from("gns3:pw").toString("base64") });
        expect(ok.status).to.equal(200);
      } finally {
        await guarded.close();
      }
    });
  });
});

describe("HTTP: hostile bodies", () => {
  let s: TestServer;
  beforeEach(async () => (s = await startTestServer({ bodyLimitBytes: 4096, overrides: { dataPlane: new FakeDataPlane() } })));
  afterEach(async () => s.close());

  it("refuses a body nested deeper than 64 levels with 400", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const r = await s.raw("POST", "/v2/version", deep);
    expect(r.status).to.be.oneOf([400, 413]);
    const nested = "[".repeat(70) + "]".repeat(70);
    const r2 = await s.raw("POST", "/v2/version", nested);
    expect(r2.status).to.equal(400);
    expect(r2.json.message).to.equal("Invalid JSON: nested deeper than 64 levels");
    expect((await s.request("GET", "/v2/version")).status).to.equal(200);
  });

  it("refuses a body over the limit with a JSON 413", async () => {
    const r = await s.request("PUT", "/v2/iou_license", { iourc_content: "x".repeat(10_000) });
    expect(r.status).to.equal(413);
    expect(r.json).to.deep.equal({ message: "Request body is larger than the limit of 4096 bytes", status: 413 });
    expect((await s.request("GET", "/v2/iou_license")).json.iourc_content).to.equal("");
  });
});

describe("HTTP: slow clients", () => {
  it("closes a connection whose headers do not arrive in time", async function () {
    this.timeout(10_000);
    const s = await startTestServer({ httpTimeouts: { headersMs: 500 }, overrides: { dataPlane: new FakeDataPlane() } });
    try {
      const { connect } = await import("node:net");
      const port = Number(new URL(s.url).port);
      const started = Date.now();
      const closedAfter = await new Promise<number>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => socket.write("GET /v2/version HTTP/1.1\r\nHost: x\r\n"));
        socket.on("data", () => undefined);
        socket.on("close", () => resolve(Date.now() - started));
        socket.on("error", () => undefined);
        setTimeout(() => reject(new Error("the slow client was never disconnected")), 8000);
      });
      expect(closedAfter).to.be.below(3000);
      expect((await s.request("GET", "/v2/version")).status, "others are served meanwhile").to.equal(200);
    } finally {
      await s.close();
    }
  });
});

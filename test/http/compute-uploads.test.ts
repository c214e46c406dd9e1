import { expect } from "chai";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { eventually } from "../support/hardening-kit.js";
import { filesUnder } from "../support/files-under.js";

const P = "0f0f0f0f-1111-4222-8333-444444444444";
const FILES = `/v2/compute/projects/${P}/files`;
const GNS3_WROTE = new URL("../../../../shared/gns3-peer/projects/switches-and-hub.gns3", import.meta.url);

interface Answer {
  readonly status: number;
  readonly json: { message?: string; status?: number } | undefined;
}

/**
 * POSTs `chunks` as a file, each as its own write; resolves with the answer as soon as it comes,
 * even when the server answers before the whole body is sent (a refused upload).
 */
function post(base: string, path: string, chunks: readonly Buffer[], headers: Record<string, string> = { "Transfer-Encoding": "chunked" }): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method: "POST", path, headers }, (res) => {
      const body: Buffer[] = [];
      res.on("data", (c: Buffer) => body.push(c));
      res.on("end", () => {
        const text = Buffer.concat(body).toString("utf8");
        resolve({ status: res.statusCode ?? 0, json: text === "" ? undefined : JSON.parse(text) });
      });
    });
    // A refused upload may have its connection closed under the rest of the body.
    req.on("error", (err) => setTimeout(() => reject(err), 500));
    void (async () => {
      for (const chunk of chunks) {
        if (req.destroyed) return;
        req.write(chunk);
        await new Promise((r) => setImmediate(r));
      }
      req.end();
    })();
  });
}


describe("HTTP: uploads to the compute files API (POST /v2/compute/projects/{project_id}/files/{path})", () => {
  let s: TestServer;
  let dir: string;

  async function start(limits: { maxUploadBytes?: number; maxProjectFilesBytes?: number } = {}): Promise<void> {
    s = await startTestServer({ uploadLimits: limits });
    expect((await s.request("POST", "/v2/compute/projects", { name: "uploads", project_id: P })).status).to.equal(201);
    dir = join(s.netemu.settings.projectsPath, ".netemu-compute", P);
  }
  afterEach(async () => s?.close());

  it("refuses with 403 an upload through a symbolic link that leads out, and creates nothing outside the project", async () => {
    await start();
    const outside = mkdtempSync(join(tmpdir(), "netemu-outside-"));
    try {
      symlinkSync(outside, join(dir, "out"));
      const r = await post(s.url, `${FILES}/out/a/b/c.txt`, [Buffer.from("escaped")]);
      expect(r.status).to.equal(403);
      expect(r.json).to.deep.equal({ message: "Path out/a/b/c.txt is outside the project directory", status: 403 });
      expect(readdirSync(outside), "no directory made outside before the path was checked").to.deep.equal([]);
      expect(filesUnder(dir)).to.deep.equal(["out"]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("takes an upload through a symbolic link that stays inside the project", async () => {
    await start();
    mkdirSync(join(dir, "real"));
    symlinkSync(join(dir, "real"), join(dir, "alias"));
    expect((await post(s.url, `${FILES}/alias/x.txt`, [Buffer.from("in")])).status).to.equal(201);
    expect(readFileSync(join(dir, "real", "x.txt"), "utf8")).to.equal("in");
  });

  it("writes a file whose name is 255 bytes long, the file system's limit, and lists it", async () => {
    await start();
    const name = "n".repeat(255);
    const r = await post(s.url, `${FILES}/deep/${name}`, [Buffer.from("long name")]);
    expect(r.status, JSON.stringify(r.json)).to.equal(201);
    expect(readFileSync(join(dir, "deep", name), "utf8")).to.equal("long name");
    expect((await s.request("GET", FILES)).json.map((f: { path: string }) => f.path)).to.deep.equal([`deep/${name}`]);
  });

  it("refuses a name of 256 bytes (or a directory name as long) with 400 naming the limit, and creates nothing", async () => {
    await start();
    for (const path of ["m".repeat(256), `${"d".repeat(256)}/f.txt`, `a/${"é".repeat(128)}`]) {
      const r = await post(s.url, `${FILES}/${encodeURIComponent(path).replace(/%2F/g, "/")}`, [Buffer.from("x")]);
      expect(r.status, path.slice(0, 20)).to.equal(400);
      expect(r.json?.status).to.equal(400);
      expect(r.json?.message).to.match(/^File name ".*" is longer than 255 bytes, the most the file system allows$/);
    }
    expect(filesUnder(dir)).to.deep.equal([]);
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it("refuses a path longer than the file system takes in the project's directory with 400, and creates nothing", async () => {
    await start();
    const path = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(250, "p")).join("/");
    const r = await post(s.url, `${FILES}/${path}`, [Buffer.from("x")]);
    const room = 4095 - Buffer.byteLength(dir) - 1;
    expect(r.status).to.equal(400);
    expect(r.json).to.deep.include({ message: `Path "${path.slice(0, 40)}..." is longer than ${room} bytes, the most the file system allows in this project's directory`, status: 400 });
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it("answers 413 before reading a body whose Content-Length is over the upload cap, and leaves no file", async () => {
    await start({ maxUploadBytes: 1000 });
    const r = await post(s.url, `${FILES}/big.bin`, [Buffer.alloc(1001, 7)], { "Content-Length": "1001" });
    expect(r).to.deep.equal({ status: 413, json: { message: "The file is larger than 1000 bytes, the most one upload may be", status: 413 } });
    expect(filesUnder(s.netemu.settings.projectsPath)).to.deep.equal([]);
    expect((await post(s.url, `${FILES}/fits.bin`, [Buffer.alloc(1000, 7)], { "Content-Length": "1000" })).status, "at the cap is allowed").to.equal(201);
  });

  it("stops a chunked upload at the first byte over the cap with 413, leaving neither the file nor a temporary", async () => {
    await start({ maxUploadBytes: 4096 });
    const r = await post(s.url, `${FILES}/sub/big.bin`, [Buffer.alloc(3000, 1), Buffer.alloc(3000, 2), Buffer.alloc(3000, 3)]);
    expect(r.status).to.equal(413);
    expect(r.json?.message).to.equal("The file is larger than 4096 bytes, the most one upload may be");
    expect(await eventually(() => filesUnder(s.netemu.settings.projectsPath).length === 0)).to.equal(true);
    expect(existsSync(join(dir, "sub")), "no directory made for a refused upload").to.equal(false);
    expect((await s.request("GET", "/v2/version")).status, "the server still answers").to.equal(200);
  });

  it("answers 413 when an upload would take the project's files over their cap, counting a replaced file once", async () => {
    await start({ maxProjectFilesBytes: 1000 });
    expect((await post(s.url, `${FILES}/a.bin`, [Buffer.alloc(600)])).status).to.equal(201);
    const over = await post(s.url, `${FILES}/b.bin`, [Buffer.alloc(500)]);
    expect(over).to.deep.equal({ status: 413, json: { message: "The project's files would be larger than 1000 bytes, the most one project may hold", status: 413 } });
    const declared = await post(s.url, `${FILES}/b.bin`, [Buffer.alloc(401)], { "Content-Length": "401" });
    expect(declared.status, "refused on its Content-Length too").to.equal(413);
    expect(filesUnder(dir)).to.deep.equal(["a.bin"]);
    expect((await post(s.url, `${FILES}/a.bin`, [Buffer.alloc(950)])).status, "a replacement counts instead of the file it replaces").to.equal(201);
    expect(readFileSync(join(dir, "a.bin")).length).to.equal(950);
  });

  it("keeps caps of 1 GiB per upload and 10 GiB per project by default", async () => {
    await start();
    const r = await post(s.url, `${FILES}/huge.bin`, [Buffer.alloc(1)], { "Content-Length": String(1024 ** 3 + 1) });
    expect(r.status).to.equal(413);
    expect(r.json?.message).to.equal(`The file is larger than ${1024 ** 3} bytes, the most one upload may be`);
  });
});

describe("HTTP: the compute role keeps apart from the controller's projects", () => {
  let projectsPath: string;
  const servers: TestServer[] = [];
  beforeEach(() => (projectsPath = mkdtempSync(join(tmpdir(), "netemu-apart-"))));
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
    rmSync(projectsPath, { recursive: true, force: true });
  });
  const serve = async (): Promise<TestServer> => {
    const s = await startTestServer({ persistProjects: true, settings: { projectsPath } });
    servers.push(s);
    return s;
  };

  it("leaves a controller project's .gns3 file when the compute API deletes a project of the same id", async () => {
    const s = await serve();
    const created = await s.request("POST", "/v2/projects", { name: "lab", project_id: P });
    expect(created.status).to.equal(201);
    const gns3 = join(projectsPath, P, "lab.gns3");
    expect(await eventually(() => existsSync(gns3)), "the controller wrote its file").to.equal(true);
    expect((await s.request("POST", "/v2/compute/projects", { name: "lab", project_id: P })).status).to.equal(201);
    expect((await s.request("DELETE", `/v2/compute/projects/${P}`)).status).to.equal(204);
    expect(existsSync(gns3), "the controller's project file is still there").to.equal(true);
    expect((await s.request("GET", `/v2/projects/${P}`)).status).to.equal(200);
  });

  it("does not take a .gns3 file uploaded through the compute API for a controller project at the next start", async () => {
    const first = await serve();
    expect((await first.request("POST", "/v2/compute/projects", { name: "c", project_id: P })).status).to.equal(201);
    const content = readFileSync(GNS3_WROTE);
    expect((await post(first.url, `${FILES}/switches-and-hub.gns3`, [content])).status).to.equal(201);
    await first.close();
    servers.splice(0);
    const second = await serve();
    expect((await second.request("GET", "/v2/projects")).json, "no controller project made of it").to.deep.equal([]);
    expect(filesUnder(projectsPath), "the uploaded file is kept, as the compute's").to.deep.equal([`.netemu-compute/${P}/switches-and-hub.gns3`]);
  });

  it("writes the captures of the controller's links with its local compute's files, and removes them when the controller deletes the project", async () => {
    const s = await serve();
    const projectId = (await s.request("POST", "/v2/projects", { name: "captured" })).json.project_id as string;
    const node = async (name: string) => (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local" })).json.node_id as string;
    const [a, b] = [await node("A"), await node("B")];
    const link = (await s.request("POST", `/v2/projects/${projectId}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: 0 }, { node_id: b, adapter_number: 0, port_number: 0 }] })).json;
    const started = await s.request("POST", `/v2/projects/${projectId}/links/${link.link_id}/start_capture`, {});
    expect(started.status).to.equal(201);
    const computeDir = join(projectsPath, ".netemu-compute", projectId);
    expect(started.json.capture_file_path).to.equal(join(computeDir, "project-files", "captures", "A_0-0_to_B_0-0.pcap"));
    expect(await eventually(() => existsSync(started.json.capture_file_path))).to.equal(true);
    expect((await s.request("DELETE", `/v2/projects/${projectId}`)).status).to.equal(204);
    expect(existsSync(computeDir), "the local compute's files went with the project").to.equal(false);
  });

  it("removes at start the upload temporaries an earlier version left next to their targets, and nothing else", async () => {
    const legacy = join(projectsPath, P, "images", "disk.img.0a1b2c3d-1111-4222-8333-444444444444.upload");
    mkdirSync(join(projectsPath, P, "images"), { recursive: true });
    writeFileSync(legacy, "half");
    writeFileSync(join(projectsPath, P, "images", "disk.img"), "whole");
    writeFileSync(join(projectsPath, P, "notes.upload"), "a file of the user's");
    await serve();
    expect(filesUnder(projectsPath)).to.deep.equal([`${P}/images/disk.img`, `${P}/notes.upload`]);
  });
});

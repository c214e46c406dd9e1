import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest, type ClientRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, type Served } from "../support/netemu-cli.js";
import { eventually } from "../support/hardening-kit.js";
import { filesUnder } from "../support/files-under.js";

const P = "5e5e5e5e-1111-4222-8333-444444444444";


/** Starts a chunked upload of which 64 KiB are sent, and leaves it open (a large file on its way). */
function startUpload(s: Served, name: string): ClientRequest {
  const url = new URL(s.url);
  const req = httpRequest({ host: url.hostname, port: url.port, method: "POST", path: `/v2/compute/projects/${P}/files/${name}`, headers: { "Transfer-Encoding": "chunked" } });
  req.on("error", () => undefined);
  req.on("response", (res) => res.resume());
  req.write(Buffer.alloc(64 * 1024, 0x5a));
  return req;
}

describe("the netemu command: uploads cut by a stop", function () {
  this.timeout(30_000);
  let configDir: string;
  let projects: string;
  const children: Served[] = [];
  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), "netemu-uploads-"));
    projects = join(configDir, "projects");
  });
  afterEach(() => {
    for (const s of children.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
    rmSync(configDir, { recursive: true, force: true });
  });
  const start = async (): Promise<Served> => {
    const s = await serve(configDir, ["--dataplane-workers", "0"]);
    children.push(s);
    return s;
  };

  it("leaves no temporary file behind when SIGTERM comes in the middle of uploads", async () => {
    const s = await start();
    expect((await fetch(`${s.url}/v2/compute/projects`, { method: "POST", body: JSON.stringify({ name: "u", project_id: P }) })).status).to.equal(201);
    const uploads = [startUpload(s, "disk-a.img"), startUpload(s, "images/disk-b.img")];
    expect(await eventually(() => filesUnder(projects).length === 2, 5000), "both uploads are being received").to.equal(true);
    s.child.kill("SIGTERM");
    const { code } = await s.exit;
    for (const u of uploads) u.destroy();
    expect(code).to.equal(0);
    expect(filesUnder(projects), "nothing of the cut uploads is left").to.deep.equal([]);
  });

  it("removes at the next start the temporary file of an upload cut by kill -9", async () => {
    const s = await start();
    expect((await fetch(`${s.url}/v2/compute/projects`, { method: "POST", body: JSON.stringify({ name: "u", project_id: P }) })).status).to.equal(201);
    const upload = startUpload(s, "disk.img");
    expect(await eventually(() => filesUnder(projects).length === 1, 5000), "the upload is being received").to.equal(true);
    s.child.kill("SIGKILL");
    await s.exit;
    upload.destroy();
    expect(filesUnder(projects), "a killed process leaves its temporary").to.have.length(1);
    const again = await start();
    expect(filesUnder(projects), "swept before the server listens").to.deep.equal([]);
    again.child.kill("SIGTERM");
    expect((await again.exit).code).to.equal(0);
  });
});

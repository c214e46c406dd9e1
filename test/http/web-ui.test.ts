import { expect } from "chai";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { get } from "node:http";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { WEB_UI_NOT_CONFIGURED } from "../../src/adapters/http/web-ui.js";

/** A directory shaped as GNS3's compiled web UI: index.html, hashed bundles, assets. */
function fakeWebUi(root: string): string {
  const dir = join(root, "web-ui");
  mkdirSync(join(dir, "assets"), { recursive: true });
  writeFileSync(join(dir, "index.html"), '<!doctype html><base href="/static/web-ui/"><app-root></app-root>');
  writeFileSync(join(dir, "main.1234.js"), "console.log('ui')");
  writeFileSync(join(dir, "styles.5678.css"), "body{}");
  writeFileSync(join(dir, "assets", "logo.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(root, "secret.txt"), "outside the web UI");
  symlinkSync(join(root, "secret.txt"), join(dir, "leak.txt"));
  symlinkSync(join(dir, "main.1234.js"), join(dir, "main.js"));
  return dir;
}

/** A GET of the path exactly as written (fetch would resolve `..` and `%2e%2e` before sending). */
function getAsWritten(url: string, path: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    get({ hostname, port, path }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    }).on("error", reject);
  });
}

describe("the GNS3 web UI served from a directory the user gives (ADR 0092)", () => {
  let root: string;
  let s: TestServer | undefined;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), "netemu-web-ui-"))));
  afterEach(async () => {
    await s?.close();
    s = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  it("sends the browser from / to the bundled UI, as GNS3 does", async () => {
    s = await startTestServer({ settings: { webUiDir: fakeWebUi(root) } });
    const r = await fetch(`${s.url}/`, { redirect: "manual" });
    expect(r.status).to.equal(302);
    expect(r.headers.get("location")).to.equal("/static/web-ui/bundled");
  });

  it("serves the UI's files with their content types", async () => {
    s = await startTestServer({ settings: { webUiDir: fakeWebUi(root) } });
    const js = await s.request("GET", "/static/web-ui/main.1234.js");
    expect(js.status).to.equal(200);
    expect(js.headers.get("content-type")).to.equal("application/javascript; charset=utf-8");
    expect(js.text).to.equal("console.log('ui')");
    expect((await s.request("GET", "/static/web-ui/styles.5678.css")).headers.get("content-type")).to.equal("text/css; charset=utf-8");
    expect((await s.request("GET", "/static/web-ui/assets/logo.svg")).headers.get("content-type")).to.equal("image/svg+xml");
    // A symbolic link inside the directory to a file inside it is followed.
    expect((await s.request("GET", "/static/web-ui/main.js")).text).to.equal("console.log('ui')");
  });

  it("answers index.html for a path the UI does not have, the application routing in the browser", async () => {
    s = await startTestServer({ settings: { webUiDir: fakeWebUi(root) } });
    for (const path of ["/static/web-ui/bundled", "/static/web-ui/server/1/project/abc", "/static/web-ui/", "/static/web-ui/assets"]) {
      const r = await s.request("GET", path);
      expect(r.status, path).to.equal(200);
      expect(r.headers.get("content-type"), path).to.equal("text/html; charset=utf-8");
      expect(r.text, path).to.contain("<app-root>");
    }
  });

  it("refuses paths that lead out of the directory: '..', encoded or not, and symbolic links pointing out", async () => {
    s = await startTestServer({ settings: { webUiDir: fakeWebUi(root) } });
    for (const path of ["/static/web-ui/..%2fsecret.txt", "/static/web-ui/%2e%2e/secret.txt", "/static/web-ui/assets/..%2f..%2fsecret.txt", "/static/web-ui/..%5csecret.txt", "/static/web-ui/../secret.txt", "/static/web-ui/leak.txt"]) {
      const r = await getAsWritten(s.url, path);
      expect(r.status, path).to.equal(403);
      expect(r.text, path).not.to.contain("outside the web UI");
    }
  });

  it("answers 400 for a path that is not valid percent-encoding or holds a NUL", async () => {
    s = await startTestServer({ settings: { webUiDir: fakeWebUi(root) } });
    expect((await getAsWritten(s.url, "/static/web-ui/%E0%A4%A")).status).to.equal(400);
    expect((await getAsWritten(s.url, "/static/web-ui/main%00.js")).status).to.equal(400);
  });

  it("says how to give a directory when none was given, and leaves / to the API's 404", async () => {
    s = await startTestServer();
    const r = await s.request("GET", "/static/web-ui/bundled");
    expect(r.status).to.equal(404);
    expect(r.json).to.deep.equal({ message: WEB_UI_NOT_CONFIGURED, status: 404 });
    expect(r.json.message).to.contain("--web-ui DIR");
    expect((await s.request("GET", "/")).status).to.equal(404);
  });

  it("sits behind --auth as GNS3 2.2's static route does: 401 without credentials, the page with them", async () => {
    s = await startTestServer({ settings: { webUiDir: fakeWebUi(root), auth: { enabled: true, user: "admin", password: "pw" } } });
    const refused = await s.request("GET", "/static/web-ui/bundled");
    expect(refused.status).to.equal(401);
    expect(refused.headers.get("www-authenticate")).to.match(/^Basic /);
    const basic = `Basic ${Buffer.from("admin:pw").toString("base64")}`;
    const page = await s.request("GET", "/static/web-ui/bundled", undefined, { Authorization: basic });
    expect(page.status).to.equal(200);
    expect(page.text).to.contain("<app-root>");
  });
});

describe("GNS3's symbols, netemu's own pictures (ADR 0092)", () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it("serves an SVG with width and height attributes for the symbol of every template and every node kind, by its URL-encoded id", async () => {
    s = await startTestServer();
    const templates = (await s.request("GET", "/v2/templates")).json as { symbol: string }[];
    const ids = new Set([...templates.map((t) => t.symbol), ":/symbols/computer.svg", ":/symbols/hub.svg", ":/symbols/ethernet_switch.svg", ":/symbols/cloud.svg", ":/symbols/linux_guest.svg"]);
    for (const id of ids) {
      const r = await s.request("GET", `/v2/symbols/${encodeURIComponent(id)}/raw`);
      expect(r.status, id).to.equal(200);
      expect(r.headers.get("content-type"), id).to.equal("image/svg+xml");
      expect(r.text, id).to.match(/<svg [^>]*width="\d+" height="\d+"/);
    }
  });

  it("resolves ids by file name, as the UI asks them (:/symbols/x.svg, /symbols/x.svg, a theme's directory)", async () => {
    s = await startTestServer();
    const wanted = (await s.request("GET", `/v2/symbols/${encodeURIComponent(":/symbols/ethernet_switch.svg")}/raw`)).text;
    for (const id of ["/symbols/ethernet_switch.svg", ":/symbols/classic/ethernet_switch.svg", ":/symbols/netemu/ethernet_switch.svg"]) {
      expect((await s.request("GET", `/v2/symbols/${encodeURIComponent(id)}/raw`)).text, id).to.equal(wanted);
    }
    // Unencoded, as the web UI 2.2 puts the id in its URL.
    expect((await s.request("GET", "/v2/symbols/:/symbols/ethernet_switch.svg/raw")).text).to.equal(wanted);
  });

  it("answers the computer for a symbol it has no picture for, as GNS3 answers its classic computer", async () => {
    s = await startTestServer();
    const computer = (await s.request("GET", `/v2/symbols/${encodeURIComponent(":/symbols/computer.svg")}/raw`)).text;
    const r = await s.request("GET", `/v2/symbols/${encodeURIComponent(":/symbols/classic/router.svg")}/raw`);
    expect(r.status).to.equal(200);
    expect(r.text).to.equal(computer);
  });

  it("lists its symbols and answers their dimensions as the SVG declares them", async () => {
    s = await startTestServer();
    const list = (await s.request("GET", "/v2/symbols")).json as { symbol_id: string; filename: string; theme: string; builtin: boolean }[];
    expect(list.map((x) => x.filename)).to.include.members(["ethernet_switch.svg", "hub.svg", "computer.svg", "vpcs_guest.svg", "cloud.svg", "linux_guest.svg"]);
    for (const symbol of list) {
      expect(symbol).to.include({ theme: "Netemu", builtin: true, symbol_id: `:/symbols/netemu/${symbol.filename}` });
      const svg = (await s.request("GET", `/v2/symbols/${encodeURIComponent(symbol.symbol_id)}/raw`)).text;
      const [, width, height] = /width="(\d+)" height="(\d+)"/.exec(svg) ?? [];
      const dimensions = await s.request("GET", `/v2/symbols/${encodeURIComponent(symbol.symbol_id)}/dimensions`);
      expect(dimensions.json, symbol.symbol_id).to.deep.equal({ width: Number(width), height: Number(height) });
    }
  });

  it("names in every node's answer a symbol that resolves", async () => {
    s = await startTestServer();
    const project = (await s.request("POST", "/v2/projects", { name: "symbols" })).json as { project_id: string };
    for (const node_type of ["ethernet_switch", "ethernet_hub", "vpcs", "cloud"]) {
      const made = await s.request("POST", `/v2/projects/${project.project_id}/nodes`, { name: node_type, node_type, compute_id: "local" });
      expect(made.status, made.text).to.equal(201);
      const r = await s.request("GET", `/v2/symbols/${encodeURIComponent(made.json.symbol as string)}/raw`);
      expect(r.status, made.json.symbol).to.equal(200);
      expect(r.text).to.contain("<svg");
    }
  });
});

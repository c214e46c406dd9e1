import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { HeadlessChromium, requireChromium } from "../support/browser.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { GNS3_PEER_VPCS, VpcsConsole } from "../support/vpcs-console.js";
import { pcapFrames } from "../support/capture-files.js";

/** GNS3's compiled web UI 2.2.58 (GPL): unpacked for the test, never copied into the repository. */
const WEB_UI_TARBALL = "/work/shared/gns3-peer/gns3-web-ui-2.2.58-bundled.tar.gz";
const SCREENSHOTS = join(process.cwd(), "test-output", "screenshots", "gns3-web-ui");

interface Node {
  readonly node_id: string;
  readonly name: string;
  readonly node_type: string;
  readonly status: string;
  readonly console: number;
}

/**
 * The GNS3 web UI 2.2 run unmodified against netemu (ADR 0092), driven in Debian's chromium as a user
 * drives it: a project, a switch and two VPCS dragged from the template menu, linked port by port, all
 * started from the toolbar, a delay applied in the link's packet-filter dialog, a capture started from
 * the link's menu; the delay is measured with VPCS pings typed into their consoles, the frames are in
 * the capture file.
 */
describe("the GNS3 web UI 2.2 on netemu, in Debian's chromium", function () {
  let webUiDir: string;
  let s: TestServer | undefined;
  let chromium: HeadlessChromium | undefined;
  const consoles: VpcsConsole[] = [];

  before(function () {
    requireChromium(this);
    if (!existsSync(WEB_UI_TARBALL) || !existsSync(GNS3_PEER_VPCS)) {
      console.log(`      skipped: needs ${WEB_UI_TARBALL} and ${GNS3_PEER_VPCS}`);
      this.skip();
    }
    webUiDir = mkdtempSync(join(tmpdir(), "netemu-web-ui-"));
    execFileSync("tar", ["-xzf", WEB_UI_TARBALL, "-C", webUiDir]);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  after(async () => {
    for (const c of consoles.splice(0)) await c.close();
    await chromium?.close();
    await s?.close();
    if (webUiDir !== undefined) rmSync(webUiDir, { recursive: true, force: true });
  });

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  }

  /** Drags a template from the open "Add a node" menu onto the map at (x, y), as a user does with the mouse. */
  async function dragTemplate(page: Page, name: string, x: number, y: number): Promise<void> {
    const icon = page.locator(".mat-menu-panel .templateIcon").filter({ hasText: name }).locator(".iconContainer");
    // hover() waits until the icon is visible and stable: the menu opens with an animation, and a box
    // read during it starts the drag beside the icon, so nothing is dropped.
    await icon.hover();
    const box = await icon.boundingBox();
    if (box === null) throw new Error(`the template ${name} is not in the menu`);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + ((x - box.x) * i) / 10, box.y + ((y - box.y) * i) / 10);
    await page.mouse.up();
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it("builds a switch and two VPCS, starts them, applies a delay that the pings measure, captures their frames, and a ping typed in PC1's web console is answered", async function () {
    this.timeout(90_000);
    s = await startTestServer({ settings: { webUiDir: join(webUiDir, "web-ui"), vpcsPath: GNS3_PEER_VPCS } });
    const server = s;
    chromium = await HeadlessChromium.launch();
    const { page } = await chromium.newPage();
    const failed: string[] = [];
    page.on("response", (r) => {
      if (r.status() >= 400 && new URL(r.url()).pathname.startsWith("/v2/")) failed.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
    });

    // The page: GET / sends the browser to the bundled UI, which lists netemu's projects.
    await page.goto(`${server.url}/`);
    await page.getByRole("button", { name: "Add blank project" }).waitFor({ timeout: 20_000 });
    expect(new URL(page.url()).pathname).to.match(/^\/static\/web-ui\//);
    await shot(page, "01-projects");

    await page.getByRole("button", { name: "Add blank project" }).click();
    await page.locator("mat-dialog-container input[formcontrolname='projectName']").fill("web-ui-lab");
    await page.getByRole("button", { name: "Add project" }).click();
    const projectId = await until("the project is made", async () => {
      const p = (await server.request("GET", "/v2/projects")).json as { project_id: string; name: string }[];
      return p.find((x) => x.name === "web-ui-lab")?.project_id;
    });
    await page.locator("button[mattooltip='Add a node']").waitFor({ timeout: 20_000 });
    await shot(page, "02-project");

    // Nodes: dragged in from the template menu.
    await page.locator("button[mattooltip='Add a node']").click();
    await dragTemplate(page, "Ethernet switch", 450, 650);
    await page.locator("svg.map g.node").nth(0).waitFor();
    await dragTemplate(page, "VPCS", 200, 300);
    await page.locator("svg.map g.node").nth(1).waitFor();
    await dragTemplate(page, "VPCS", 750, 300);
    await page.locator("svg.map g.node").nth(2).waitFor();
    await page.keyboard.press("Escape");
    const nodes = await until("three nodes", async () => {
      const n = (await server.request("GET", `/v2/projects/${projectId}/nodes`)).json as Node[];
      return n.length === 3 ? n : undefined;
    });
    expect(nodes.map((n) => n.name).sort()).to.deep.equal(["PC1", "PC2", "Switch1"]);
    await shot(page, "03-nodes");

    // Links: "Add a link", then each end's node and its port from the menu the UI shows.
    const nodeOnMap = (name: string) => page.locator("svg.map g.node", { has: page.locator("text.label", { hasText: new RegExp(`^${name}$`) }) }).locator("image");
    const port = async (name: string) => page.getByRole("menuitem", { name, exact: true }).click();
    await page.locator("button[mattooltip='Add a link']").click();
    for (const [pc, switchPort] of [["PC1", "Ethernet0"], ["PC2", "Ethernet1"]] as const) {
      await nodeOnMap(pc).click();
      await port("Ethernet0");
      await nodeOnMap("Switch1").click();
      await port(switchPort);
    }
    await page.locator("button[mattooltip='Add a link']").click();
    const links = await until("two links", async () => {
      const l = (await server.request("GET", `/v2/projects/${projectId}/links`)).json as { link_id: string; nodes: { node_id: string }[] }[];
      return l.length === 2 ? l : undefined;
    });
    await page.locator("svg.map g.link").nth(1).waitFor();
    await shot(page, "04-links");

    // Start: the toolbar's "Start/Resume all nodes".
    await page.locator("button[mattooltip='Start/Resume all nodes']").click();
    const pcs = await until("the PCs started", async () => {
      const n = (await server.request("GET", `/v2/projects/${projectId}/nodes`)).json as Node[];
      const started = n.filter((x) => x.node_type === "vpcs" && x.status === "started");
      return started.length === 2 ? started.sort((a, b) => a.name.localeCompare(b.name)) : undefined;
    });
    // The page learns of the start from the notification websocket (node.updated): every link end drawn started.
    await until("the four link ends drawn started", async () => ((await page.locator("svg.map g.link rect.status_started").count()) === 4 ? true : undefined));
    await shot(page, "05-started");

    const [pc1, pc2] = await Promise.all(pcs.map((pc) => VpcsConsole.open(pc.console)));
    consoles.push(pc1 as VpcsConsole, pc2 as VpcsConsole);
    await Promise.all([(pc1 as VpcsConsole).setIp("10.0.0.1/24"), (pc2 as VpcsConsole).setIp("10.0.0.2/24")]);
    const before = await (pc1 as VpcsConsole).ping("10.0.0.2", 4);
    expect(before.replies, before.output).to.be.at.least(3);

    // The packet-filter dialog of PC1's link: Delay, 100 ms, Apply.
    const pc1Id = pcs[0]?.node_id as string;
    const pc1Link = links.find((l) => l.nodes.some((e) => e.node_id === pc1Id)) as { link_id: string };
    const linkPath = page.locator(`svg.map g.link[link_id='${pc1Link.link_id}'] path`);
    // A quarter along the link: its middle gets the filter icon once a filter is set.
    const openLinkMenu = async (): Promise<void> => {
      const at = await linkPath.evaluate((path: SVGPathElement) => {
        const p = path.getPointAtLength(path.getTotalLength() / 4);
        const m = path.getScreenCTM() as DOMMatrix;
        return { x: p.x * m.a + p.y * m.c + m.e, y: p.x * m.b + p.y * m.d + m.f };
      });
      await page.mouse.click(at.x, at.y, { button: "right" });
    };
    await openLinkMenu();
    await page.getByRole("menuitem", { name: /Packet filters/ }).click();
    await page.getByRole("tab", { name: "Delay" }).click();
    await page.getByLabel("Latency").fill("100");
    await shot(page, "06-packet-filters");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.locator("app-packet-filters").waitFor({ state: "detached" });
    const filters = await until("the delay on the link", async () => {
      const l = (await server.request("GET", `/v2/projects/${projectId}/links/${pc1Link.link_id}`)).json as { filters: { delay?: number[] } };
      return l.filters.delay?.[0] === 100 ? l.filters : undefined;
    });
    expect(filters.delay?.[0]).to.equal(100);

    // A capture from the link's menu.
    await openLinkMenu();
    await page.getByRole("menuitem", { name: /Start capture/ }).click();
    await page.locator("mat-dialog-container mat-select").click();
    await page.getByRole("option", { name: /Ethernet/ }).first().click();
    await shot(page, "07-start-capture");
    await page.locator("mat-dialog-container").getByRole("button", { name: "Ok" }).click();
    const captureFile = await until("the capture on the link", async () => {
      const l = (await server.request("GET", `/v2/projects/${projectId}/links/${pc1Link.link_id}`)).json as { capturing: boolean; capture_file_path: string | null };
      return l.capturing && l.capture_file_path !== null ? l.capture_file_path : undefined;
    });

    // The delay is on the wire: both ways through the delayed link, about 200 ms more per ping.
    const delayed = await (pc1 as VpcsConsole).ping("10.0.0.2", 4);
    expect(delayed.replies, delayed.output).to.be.at.least(3);
    expect(Math.min(...delayed.rttsMs) - Math.min(...before.rttsMs), `${before.output}\n${delayed.output}`).to.be.within(180, 600);
    await shot(page, "08-capturing");

    // The link's menu offers "Stop capture" once the link.updated notification told the page it captures.
    await openLinkMenu();
    await page.getByRole("menuitem", { name: /Stop capture/ }).click();
    await until("the capture stopped", async () => {
      const l = (await server.request("GET", `/v2/projects/${projectId}/links/${pc1Link.link_id}`)).json as { capturing: boolean };
      return l.capturing ? undefined : true;
    });
    await shot(page, "09-capture-stopped");
    // The file holds what crossed the link while capturing: the delayed pings' requests and replies.
    const icmp = (await pcapFrames(captureFile)).filter((x) => x.readUInt16BE(12) === 0x0800 && x[23] === 1);
    expect(icmp.length, "ICMP frames in the capture").to.be.at.least(6);

    // The node menu's "Web console": an xterm in the page on the console websocket (ADR 0095). VPCS serves
    // one console client at a time: the test's own is closed first.
    (pc1 as VpcsConsole).close();
    // The xterm draws on a canvas: what it shows is read from the frames the page received.
    let shown = "";
    const sockets: string[] = [];
    page.on("websocket", (ws) => {
      sockets.push(ws.url());
      if (!ws.url().endsWith("/console/ws")) return;
      ws.on("framereceived", ({ payload }) => (shown += typeof payload === "string" ? payload : payload.toString("latin1")));
    });
    await nodeOnMap("PC1").click({ button: "right" });
    await page.getByRole("menuitem", { name: "Web console", exact: true }).click();
    const terminal = page.locator(".xterm").first();
    await terminal.waitFor({ timeout: 20_000 });
    await terminal.click();
    await page.keyboard.press("Enter");
    await until("the prompt in the web console", async () => (/\S+> $/.test(shown) ? true : undefined)).catch(async (e) => {
      await shot(page, "10-web-console-failed");
      throw new Error(`${e}; sockets ${JSON.stringify(sockets)}; failed ${JSON.stringify(failed)}; shown ${JSON.stringify(shown)}`);
    });
    // Keys typed at once after the prompt were seen lost (the first two): typed as a person does.
    await page.waitForTimeout(500);
    await terminal.click();
    await page.keyboard.type("ping 10.0.0.2 -c 2", { delay: 50 });
    await page.keyboard.press("Enter");
    await until("the ping answered in the web console", async () => (/84 bytes from 10\.0\.0\.2/.test(shown) ? true : undefined)).catch((e) => {
      throw new Error(`${e}; the console showed ${JSON.stringify(shown)}`);
    });
    await shot(page, "10-web-console");
    expect(failed, "requests the UI made that netemu refused").to.deep.equal([]);
  });
});

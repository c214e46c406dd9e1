import { expect } from "chai";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { runLabCommand } from "../../src/adapters/cli/lab/lab-command.js";
import type { ServerSettings } from "../../src/application/ports/server-settings.js";
import { HeadlessChromium, requireChromium } from "../support/browser.js";
import { gns3PeerPrefix } from "../support/gns3-peer.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { wireUdpNio } from "../support/http-nios.js";
import { ensurePageBuilt } from "../support/netemu-page.js";
import { ethernetFrame, freeUdpPort, type UdpPeer } from "../support/udp-peer.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const VPCS_LAB = join(ROOT, "labs", "vpcs.yml");
const VPCS = join(gns3PeerPrefix(), "bin", "vpcs");
const SCREENSHOTS = join(ROOT, "test-output", "screenshots");
const BLASTER = fileURLToPath(new URL("../support/udp-blaster.js", import.meta.url));

/** The round-trip times of `netemu lab exec pc1 -- ping 10.0.0.2 -c <count>`. */
async function pingRtts(s: TestServer, count: number): Promise<number[]> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runLabCommand(["exec", "--server", s.url, "pc1", "--timeout", "60", "--", "ping", "10.0.0.2", "-c", String(count)], {}, (l) => out.push(l), (l) => err.push(l));
  expect([code, err], out.join("\n")).to.deep.equal([0, []]);
  return out.flatMap((l) => /bytes from 10\.0\.0\.2 icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms/.exec(l)?.[1] ?? []).map(Number);
}

async function openPage(page: Page, url: string): Promise<void> {
  const answer = await page.goto(`${url}/netemu/`);
  expect(answer?.status()).to.equal(200);
  await page.waitForSelector("body[data-ready='true']", { timeout: 20_000 });
}

describe("netemu's page in Debian's chromium (ADR 0094)", function () {
  this.timeout(90_000);
  let browser: HeadlessChromium | undefined;
  before(async function () {
    requireChromium(this);
    ensurePageBuilt();
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await HeadlessChromium.launch();
  });
  after(async () => browser?.close());

  describe("a lab deployed by netemu lab (labs/vpcs.yml: a switch and two VPCS)", () => {
    let s: TestServer | undefined;
    let configDir: string;
    let page: Page;
    before(async function () {
      if (!existsSync(VPCS)) {
        console.log(`      skipped: no VPCS 0.8.3 at ${VPCS}`);
        this.skip();
      }
      configDir = mkdtempSync(join(tmpdir(), "netemu-page-"));
      s = await startTestServer({ settings: { configDir, ...({ vpcsPath: VPCS } as unknown as Partial<ServerSettings>) } });
      const out: string[] = [];
      const err: string[] = [];
      const code = await runLabCommand(["deploy", "--server", s.url, VPCS_LAB], {}, (l) => out.push(l), (l) => err.push(l));
      expect([code, err], out.join("\n")).to.deep.equal([0, []]);
      page = (await browser!.newPage()).page;
      await openPage(page, s.url);
    });
    after(async () => {
      await page?.context().close();
      await s?.close();
      if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true });
    });

    it("shows the lab as a graph named for screen readers, with tables of its nodes and links", async () => {
      expect(await page.locator("#lab option:checked").textContent()).to.match(/^vpcs \(3 nodes\)$/);
      expect(await page.getByRole("img", { name: /Topology of lab vpcs: 3 nodes and 2 links/ }).count()).to.equal(1);
      const nodes = await page.locator("#nodes-body th button").allTextContents();
      expect(nodes.sort()).to.deep.equal(["pc1", "pc2", "sw1"]);
      const links = await page.locator("#links-body th button").allTextContents();
      expect(links.map((l) => l.split(" — ").map((e) => e.split(" ")[0]).sort().join("-")).sort()).to.deep.equal(["pc1-sw1", "pc2-sw1"]);
      // Every control has an accessible name.
      const unnamed = await page.evaluate(() =>
        [...document.querySelectorAll("button, input, select, a, [role=img]")].filter((e) => (e.getAttribute("aria-label") ?? e.textContent ?? "").trim() === "" && !(e.id !== "" && document.querySelector(`label[for='${e.id}']`))).length,
      );
      expect(unnamed).to.equal(0);
      await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-lab.png") });
    });

    it("moves a link's rates while pings cross it, in its table row and in its details", async () => {
      const pc1Link = page.getByRole("button", { name: /^Select link .*pc1/ });
      await pc1Link.click();
      await page.waitForSelector("#link-figures");
      const pinging = pingRtts(s!, 6);
      await page.waitForFunction(() => [...document.querySelectorAll("#link-figures td.frames")].some((td) => !/^0 f\/s$/.test(td.textContent ?? "")), undefined, { timeout: 20_000 });
      const row = await page.locator("#links-body tr", { hasText: "pc1" }).locator("td").allTextContents();
      await pinging;
      expect(row.join(" ")).to.match(/f\/s/);
      await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-rates.png") });
    });

    it("sets a delay from the page on the switch's port towards pc1, and the pings take it on the wire", async () => {
      const before = await pingRtts(s!, 3);
      expect(before.length).to.be.at.least(2);
      await page.getByRole("button", { name: /^Select link .*pc1/ }).click();
      const form = page.getByRole("form", { name: /^Impairments of sw1 Ethernet0$/ });
      await form.getByLabel(/^Delay out of sw1 Ethernet0/).fill("200");
      await form.getByRole("button", { name: "Apply impairments on sw1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: "Impairments applied on sw1 Ethernet0." }).waitFor({ timeout: 10_000 });
      // The link's details say the queue delay the impairment sets, that way only.
      await page.locator("#queue-delay", { hasText: /sw1 Ethernet0 → pc1 Ethernet0: 200 ms at sw1 Ethernet0/ }).waitFor({ timeout: 10_000 });
      expect(await page.locator("#queue-delay").textContent()).to.match(/pc1 Ethernet0 → sw1 Ethernet0: no delay set/);
      const after = await pingRtts(s!, 3);
      expect(after.length).to.be.at.least(2);
      // 50 ms each way from the lab on pc2's link, and now 200 ms more on the way to pc1: never early (ADR 0031).
      for (const rtt of after) expect(rtt).to.be.at.least(300);
      expect(Math.min(...after) - Math.min(...before)).to.be.at.least(180);
      await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-impairment.png") });
      // The page's form cleared it again: the next pings are back to the lab's own delay.
      await form.getByRole("button", { name: "Clear impairments on sw1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: "Impairments cleared on sw1 Ethernet0." }).waitFor({ timeout: 10_000 });
      for (const rtt of await pingRtts(s!, 2)) expect(rtt).to.be.below(290);
    });

    it("sets a delay from the page on pc1's end of its link (the link's one-way filters, as the API sets them), and the pings take it on the wire", async () => {
      const before = await pingRtts(s!, 3);
      expect(before.length).to.be.at.least(2);
      await page.getByRole("button", { name: /^Select link .*pc1/ }).click();
      const form = page.getByRole("form", { name: /^Impairments of pc1 Ethernet0$/ });
      // A host's end offers what the link's API has for it: what pc1 sends; frames into pc1 are shaped at the switch.
      expect(await form.locator("fieldset").count()).to.equal(1);
      expect(await form.getAttribute("aria-describedby").then((id) => page.locator(`#${id}`).textContent())).to.equal("Frames into pc1 Ethernet0 are impaired where they are sent, at the link's other end: sw1 Ethernet0.");
      await form.getByLabel(/^Delay out of pc1 Ethernet0/).fill("200");
      await form.getByRole("button", { name: "Apply impairments on pc1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: "Impairments applied on pc1 Ethernet0." }).waitFor({ timeout: 10_000 });
      // The page set it where any client of the controller does: on the link, pc1's end.
      const projectId = (await s!.request("GET", "/v2/projects")).json.find((p: { name: string }) => p.name === "vpcs").project_id as string;
      const nodes = (await s!.request("GET", `/v2/projects/${projectId}/nodes`)).json as { node_id: string; name: string }[];
      const pc1 = nodes.find((n) => n.name === "pc1")!.node_id;
      const link = ((await s!.request("GET", `/v2/projects/${projectId}/links`)).json as { nodes: { node_id: string; filters?: object }[] }[]).find((l) => l.nodes.some((n) => n.node_id === pc1))!;
      expect(link.nodes.find((n) => n.node_id === pc1)!.filters).to.deep.equal({ delay: [200] });
      const after = await pingRtts(s!, 3);
      expect(after.length).to.be.at.least(2);
      // 50 ms each way on pc2's link, and now 200 ms on pc1's requests: never early (ADR 0031).
      for (const rtt of after) expect(rtt).to.be.at.least(300);
      expect(Math.min(...after) - Math.min(...before)).to.be.at.least(180);
      await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-host-impairment.png") });
      await form.getByRole("button", { name: "Clear impairments on pc1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: "Impairments cleared on pc1 Ethernet0." }).waitFor({ timeout: 10_000 });
      expect(await form.getByLabel(/^Delay out of pc1 Ethernet0/).inputValue()).to.equal("");
      for (const rtt of await pingRtts(s!, 2)) expect(rtt).to.be.below(290);
    });

    it("shows a refusal of the link's API in the host end's form, and changes nothing", async () => {
      await page.getByRole("button", { name: /^Select link .*pc2/ }).click();
      const form = page.getByRole("form", { name: /^Impairments of pc2 Ethernet0$/ });
      // pc2's link has GNS3's 50 ms both ways (labs/vpcs.yml): the form says it acts too.
      await form.getByText("GNS3's filters of this link act too, both ways (its packet filters dialog): delay 50.").waitFor({ timeout: 10_000 });
      await form.getByLabel(/^Packet loss out of pc2 Ethernet0/).fill("101");
      await form.getByRole("button", { name: "Apply impairments on pc2 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: /^Refused: .*packet_loss/ }).waitFor({ timeout: 10_000 });
      const projectId = (await s!.request("GET", "/v2/projects")).json.find((p: { name: string }) => p.name === "vpcs").project_id as string;
      const links = (await s!.request("GET", `/v2/projects/${projectId}/links`)).json as { filters: object; nodes: { filters?: object }[] }[];
      expect(links.map((l) => [l.filters, l.nodes.map((n) => n.filters ?? "none")])).to.deep.include.members([[{ delay: [50] }, ["none", "none"]]]);
      for (const rtt of await pingRtts(s!, 2)) expect(rtt).to.be.below(290);
    });

    it("sets a flap schedule (down 1 s every 2 s) on a switch port's direction from the page, shows its active step, shows a refused schedule and changes nothing (ADR 0102)", async function () {
      this.timeout(30_000);
      await page.getByRole("button", { name: /^Select link .*pc1/ }).click();
      const form = page.getByRole("form", { name: /^Impairments of sw1 Ethernet0$/ });
      const box = form.getByRole("textbox", { name: "Schedule out of sw1 Ethernet0" });
      expect(await box.getAttribute("aria-describedby")).to.match(/-hint .*-now$/);
      const flap = { period: 2, windows: [{ at: 0, for: 1, filters: { frequency_drop: [-1] } }] };
      await box.fill(JSON.stringify(flap));
      await form.getByRole("button", { name: "Apply impairments on sw1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: "Impairments applied on sw1 Ethernet0." }).waitFor({ timeout: 10_000 });
      const projectId = (await s!.request("GET", "/v2/projects")).json.find((p: { name: string }) => p.name === "vpcs").project_id as string;
      type Answer = { node_name: string; port_name: string; schedule_out?: { period: number }; schedule_out_now?: { step: number }; filters_out: object };
      const sw1e0 = async () => ((await s!.request("GET", `/v2/netemu/impairments?project=${projectId}`)).json as Answer[]).find((i) => i.node_name === "sw1" && i.port_name === "Ethernet0");
      const set = await sw1e0();
      expect(set?.schedule_out?.period).to.equal(2);
      expect(set?.schedule_out_now?.step).to.be.a("number");
      // The page shows the active step, and the refresh moves it on: both steps are seen within a few seconds.
      const now = form.getByRole("status", { name: "Active schedule step out of sw1 Ethernet0" });
      await now.filter({ hasText: /^Step \d+ active \(frequency_drop -1\); the next step begins in [\d.]+ s\.$/ }).waitFor({ timeout: 10_000 });
      await now.filter({ hasText: /^Step \d+ active \(no impairment\); the next step begins in/ }).waitFor({ timeout: 10_000 });
      expect(await form.getByRole("status", { name: "Active schedule step into sw1 Ethernet0" }).textContent()).to.equal("No schedule.");
      await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-schedule.png") });
      // A schedule netemu refuses: its message in the form, and the port keeps the flap.
      await box.fill(JSON.stringify({ period: -1, windows: flap.windows }));
      await form.getByRole("button", { name: "Apply impairments on sw1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: /^Refused: .*schedule_out/ }).waitFor({ timeout: 10_000 });
      expect((await sw1e0())?.schedule_out).to.deep.equal(set?.schedule_out);
      // Clear schedule takes it off that direction only.
      await form.getByRole("button", { name: "Clear the schedule out of sw1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: "Schedule out of sw1 Ethernet0 cleared." }).waitFor({ timeout: 10_000 });
      expect((await sw1e0())?.schedule_out).to.equal(undefined);
      expect(await box.inputValue()).to.equal("");
      expect(await now.textContent()).to.equal("No schedule.");
    });

    it("sets a schedule on pc1's end of its link from the page (the link's nodes[i].schedule), shows its active step, and the pings take its step on the wire; a refused schedule shows netemu's message and changes nothing (ADR 0102)", async function () {
      this.timeout(60_000);
      const before = await pingRtts(s!, 3);
      expect(before.length).to.be.at.least(2);
      await page.getByRole("button", { name: /^Select link .*pc1/ }).click();
      const form = page.getByRole("form", { name: /^Impairments of pc1 Ethernet0$/ });
      // The same editor as a switch port's direction: one way, what pc1 sends.
      const box = form.getByRole("textbox", { name: "Schedule out of pc1 Ethernet0" });
      expect(await box.getAttribute("aria-describedby")).to.match(/-hint .*-now$/);
      const now = form.getByRole("status", { name: "Active schedule step out of pc1 Ethernet0" });
      await now.filter({ hasText: "No schedule." }).waitFor({ timeout: 10_000 });
      // Calm for 4 s, then 200 ms on what pc1 sends, for good.
      const calmThenSlow = { steps: [{ at: 0, filters: {} }, { at: 4, filters: { delay: [200] } }] };
      await box.fill(JSON.stringify(calmThenSlow));
      await form.getByRole("button", { name: "Apply impairments on pc1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: "Impairments applied on pc1 Ethernet0." }).waitFor({ timeout: 10_000 });
      // Set where any client of the controller sets it: the link's pc1 end, read back through the API with its active step.
      const projectId = (await s!.request("GET", "/v2/projects")).json.find((p: { name: string }) => p.name === "vpcs").project_id as string;
      const pc1 = ((await s!.request("GET", `/v2/projects/${projectId}/nodes`)).json as { node_id: string; name: string }[]).find((n) => n.name === "pc1")!.node_id;
      const linkId = ((await s!.request("GET", `/v2/projects/${projectId}/links`)).json as { link_id: string; nodes: { node_id: string }[] }[]).find((l) => l.nodes.some((n) => n.node_id === pc1))!.link_id;
      type End = { node_id: string; filters?: object; schedule?: { steps: unknown[] }; schedule_set_at?: string; schedule_now?: { step: number } };
      const pc1End = async () => ((await s!.request("GET", `/v2/projects/${projectId}/links/${linkId}`)).json.nodes as End[]).find((n) => n.node_id === pc1)!;
      const set = await pc1End();
      expect(set.schedule?.steps).to.deep.equal(calmThenSlow.steps);
      expect(set).to.not.have.property("filters");
      expect(set.schedule_now?.step).to.be.a("number");
      // The page shows the active step, and the refresh moves it on to the slow one.
      await now.filter({ hasText: /^Step 1 active \(delay 200\), for good\.$/ }).waitFor({ timeout: 15_000 });
      expect((await pc1End()).schedule_now?.step).to.equal(1);
      await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-host-schedule.png") });
      // On the wire: 50 ms each way on pc2's link, and the step's 200 ms on pc1's requests: never early (ADR 0031).
      const after = await pingRtts(s!, 3);
      expect(after.length).to.be.at.least(2);
      for (const rtt of after) expect(rtt).to.be.at.least(300);
      expect(Math.min(...after) - Math.min(...before)).to.be.at.least(180);
      // A schedule netemu refuses: its message in the form, and the end keeps the schedule it had.
      await box.fill(JSON.stringify({ period: -1, windows: [{ at: 0, for: 1, filters: { frequency_drop: [-1] } }] }));
      await form.getByRole("button", { name: "Apply impairments on pc1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: /^Refused: .*nodes\[\d\]\.schedule/ }).waitFor({ timeout: 10_000 });
      const kept = await pc1End();
      expect([kept.schedule, kept.schedule_set_at]).to.deep.equal([set.schedule, set.schedule_set_at]);
      // Text that is no JSON object is stopped in the page, and says so.
      await box.fill("{ down for a while");
      await form.getByRole("button", { name: "Apply impairments on pc1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: /^Refused: schedule out of pc1 Ethernet0: the schedule is not JSON .*Nothing was changed\.$/ }).waitFor({ timeout: 10_000 });
      expect((await pc1End()).schedule_set_at).to.equal(set.schedule_set_at);
      // Clear schedule takes it off the end, and the pings are back to the lab's own delay.
      await form.getByRole("button", { name: "Clear the schedule out of pc1 Ethernet0" }).click();
      await form.getByRole("status").filter({ hasText: "Schedule out of pc1 Ethernet0 cleared." }).waitFor({ timeout: 10_000 });
      expect(await pc1End()).to.not.have.any.keys("schedule", "schedule_now", "filters");
      expect(await box.inputValue()).to.equal("");
      expect(await now.textContent()).to.equal("No schedule.");
      for (const rtt of await pingRtts(s!, 2)) expect(rtt).to.be.below(290);
    });

    it("shows a switch's MAC table, its ports' figures and starts a capture whose file downloads", async () => {
      await page.getByRole("button", { name: "Select node sw1" }).click();
      await pingRtts(s!, 1);
      await page.waitForSelector("#mac-entries", { timeout: 10_000 });
      expect(await page.locator("#mac-entries tbody tr").count()).to.equal(2);
      expect(await page.locator("#ports tbody th").allTextContents()).to.deep.equal(["Ethernet0", "Ethernet1"]);
      await page.getByRole("button", { name: "Start capture on sw1 Ethernet0" }).click();
      await page.getByRole("group", { name: "Capture on sw1 Ethernet0" }).getByRole("status").filter({ hasText: /^Capturing into / }).waitFor({ timeout: 10_000 });
      // The download link streams the capture as it grows; it ends when the capture stops.
      const download = page.getByRole("link", { name: /^Download the capture of sw1 Ethernet0/ });
      const href = await download.getAttribute("href");
      await page.evaluate((url) => {
        (window as unknown as { pcap: Promise<number[]> }).pcap = fetch(url!).then(async (r) => [...new Uint8Array(await r.arrayBuffer())]);
      }, href);
      await pingRtts(s!, 2);
      await page.getByRole("button", { name: "Stop capture on sw1 Ethernet0" }).click();
      const pcap = Buffer.from(await page.evaluate(() => (window as unknown as { pcap: Promise<number[]> }).pcap));
      // pcap's magic, then at least the pings' frames (an ICMP request and its answer are 98 bytes each).
      expect(pcap.readUInt32LE(0)).to.equal(0xa1b2c3d4);
      expect(pcap.length).to.be.greaterThan(24 + 2 * (16 + 98));
      await page.getByRole("group", { name: "Capture on sw1 Ethernet0" }).getByRole("status").filter({ hasText: "Capture stopped." }).waitFor({ timeout: 10_000 });
      await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-switch.png") });
    });
  });

  describe("a switch a GNS3 controller placed on netemu's compute, behind --auth", () => {
    const PROJECT = "94949494-2222-4222-8333-444444444444";
    const auth = { username: "admin", password: "s3cret" };
    let s: TestServer;
    const opened: UdpPeer[] = [];
    const lports: number[] = [];
    before(async () => {
      s = await startTestServer({ settings: { auth: { enabled: true, user: auth.username, password: auth.password } } });
      const headers = { Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}` };
      const authed: TestServer = { ...s, request: (m, p, b, h) => s.request(m, p, b, { ...headers, ...h }) };
      // As a GNS3 controller does: a compute project, a switch, a NIO per linked port.
      await authed.request("POST", "/v2/compute/projects", { name: "gns3-lab", project_id: PROJECT });
      const sw = (await authed.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "GNS3-Switch" })).json;
      const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
      // Each NIO sends to a node on another compute: here a UDP socket of the test's, at 127.0.0.1.
      const a = await wireUdpNio(authed, PROJECT, base, 0, opened);
      const b = await wireUdpNio(authed, PROJECT, base, 1, opened);
      lports.push(a.lport, b.lport);
      await a.peer.send(ethernetFrame("ff:ff:ff:ff:ff:ff", "02:00:00:00:00:0a"), a.lport);
    });
    after(async () => {
      await s?.close();
      for (const p of opened.splice(0)) await p.close();
    });

    it("draws the switch's links to the nodes on other computes: each peer a node named by its address, with the port's rates", async () => {
      const context = await browser!.browser.newContext({ viewport: { width: 1400, height: 900 }, httpCredentials: auth });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      const [far0, far1] = [`127.0.0.1:${opened[0]!.port}`, `127.0.0.1:${opened[1]!.port}`];
      // The far node talks while the page watches: its frames cross the link into the switch.
      const talking = setInterval(() => void opened[0]!.send(ethernetFrame("ff:ff:ff:ff:ff:ff", "02:00:00:00:00:0a", { payload: 500 }), lports[0]!).catch(() => undefined), 50);
      try {
        await openPage(page, s.url);
        expect(await page.getByRole("img", { name: /Topology of lab gns3-lab: 1 nodes \(and 2 peers elsewhere\) and 2 links/ }).count()).to.equal(1);
        expect((await page.locator("#nodes-body tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent)))).sort()).to.deep.equal(
          [
            ["GNS3-Switch", "ethernet_switch", "started", "2"],
            [far0, "remote", "outside netemu", "1"],
            [far1, "remote", "outside netemu", "1"],
          ].sort(),
        );
        expect((await page.locator("#links-body th button").allTextContents()).sort()).to.deep.equal([`GNS3-Switch Ethernet0 — ${far0}`, `GNS3-Switch Ethernet1 — ${far1}`]);
        await page.getByRole("button", { name: `Select link GNS3-Switch Ethernet0 — ${far0}` }).click();
        // The link's rates are the switch port's: frames from the far node come in, at about 20 a second.
        await page.waitForFunction(() => /^[1-9]/.test(document.querySelector("#link-figures tr[data-direction='ba'] td.frames")?.textContent ?? ""), undefined, { timeout: 15_000 });
        expect(await page.locator("#link-figures tr[data-direction='ba'] td.drops").textContent()).to.equal(`at ${far0}: not counted, outside netemu`);
        expect(await page.getByRole("form", { name: "Impairments of GNS3-Switch Ethernet0" }).count()).to.equal(1);
        // The far end is not netemu's: no dead editor, a note saying where its link is impaired.
        const farEnd = page.getByRole("region", { name: `Impairments and capture of ${far0}` });
        expect(await farEnd.getByRole("note").textContent()).to.equal(`${far0} is outside netemu: a node on another compute, or an emulator. Nothing of it can be impaired or captured here; this link's impairments and capture are at GNS3-Switch Ethernet0.`);
        expect(await farEnd.locator("input, button").count()).to.equal(0);
        await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-gns3-switch-remote.png") });
        expect(errors).to.deep.equal([]);
      } finally {
        clearInterval(talking);
        await context.close();
      }
    });

    it("refuses the page without credentials", async () => {
      const { page } = await browser!.newPage();
      try {
        // Headless chromium asked for credentials it has none of gives up the navigation.
        const refused = await page.goto(`${s.url}/netemu/`).then(
          (answer) => `answered ${answer?.status()}`,
          (err: unknown) => String(err),
        );
        expect(refused).to.match(/ERR_INVALID_AUTH_CREDENTIALS/);
        for (const path of ["/netemu/", "/netemu/page.js", "/v2/netemu/labs"]) expect((await page.request.get(`${s.url}${path}`)).status(), path).to.equal(401);
      } finally {
        await page.context().close();
      }
    });

    it("shows the switch with its ports and MAC table to a user who gives them", async () => {
      const context = await browser!.browser.newContext({ viewport: { width: 1400, height: 900 }, httpCredentials: auth });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      try {
        await openPage(page, s.url);
        expect(await page.locator("#lab option:checked").textContent()).to.equal("gns3-lab (1 nodes, placed by a GNS3 controller)");
        await page.getByRole("button", { name: "Select node GNS3-Switch" }).click();
        expect(await page.locator("#ports tbody th").allTextContents()).to.deep.equal(["Ethernet0", "Ethernet1"]);
        await page.waitForSelector("#mac-entries", { timeout: 10_000 });
        expect(await page.locator("#mac-entries tbody td").first().textContent()).to.equal("02:00:00:00:00:0a");
        expect(await page.getByRole("form", { name: "Impairments of GNS3-Switch Ethernet0" }).count()).to.equal(1);
        await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-gns3-switch.png") });
        expect(errors).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  });
  describe("a shaped link between two switches, crossed by a saturating flow (ADR 0097)", () => {
    const PROJECT = "94949494-3333-4222-8333-444444444444";
    let s: TestServer;
    const opened: UdpPeer[] = [];
    let edgeLport: number;
    let senderPort: number;
    before(async () => {
      s = await startTestServer();
      // As a GNS3 controller places them: Edge Ethernet1 <-> Core Ethernet0 as two NIOs sending to each other.
      await s.request("POST", "/v2/compute/projects", { name: "shaped", project_id: PROJECT });
      const node = async (name: string) => `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${(await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name })).json.node_id as string}`;
      const [edge, core] = [await node("Edge"), await node("Core")];
      const udp = async () => (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      const [a, b] = [await udp(), await udp()];
      expect((await s.request("POST", `${edge}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: a, rhost: "127.0.0.1", rport: b })).status).to.equal(201);
      expect((await s.request("POST", `${core}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: b, rhost: "127.0.0.1", rport: a })).status).to.equal(201);
      // Edge Ethernet0 takes the flood from a sender in another process; Core Ethernet1 sends on to a sink.
      edgeLport = await udp();
      senderPort = await freeUdpPort();
      expect((await s.request("POST", `${edge}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: edgeLport, rhost: "127.0.0.1", rport: senderPort })).status).to.equal(201);
      await wireUdpNio(s, PROJECT, core, 1, opened);
      // Edge sends over the link at 1 Mbit/s with a 200 ms queue.
      const edgeId = edge.split("/").pop()!;
      const shaped = await s.request("PUT", "/v2/netemu/impairments", { project: PROJECT, node: edgeId, port: "1", filters_in: {}, filters_out: { bandwidth: [1000, 200] } });
      expect(shaped.status, shaped.text).to.equal(200);
    });
    after(async () => {
      await s?.close();
      for (const p of opened.splice(0)) await p.close();
    });

    it("shows the measured queue delay of the shaped way, mean and max, beside the queue it sets", async () => {
      const context = await browser!.browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      // 500 frames/s of 1,000 B for 8 s: four times what the link sends.
      const flood = spawn(process.execPath, [BLASTER, String(senderPort), String(edgeLport), "4000", "1000", "500"], { stdio: "ignore" });
      try {
        await openPage(page, s.url);
        await page.getByRole("button", { name: /^Select link .*Edge Ethernet1/ }).click();
        const shapedWay = page.locator("td.queue[data-name='Measured queue delay Edge Ethernet1 → Core Ethernet0']");
        // The queue fills within a tenth of a second: a reading's mean is then near the 200 ms bound.
        await page.waitForFunction(
          () => {
            const cell = document.querySelector("td.queue[data-name='Measured queue delay Edge Ethernet1 → Core Ethernet0']");
            const mean = /^mean ([\d.]+) ms, max ([\d.]+) ms at Edge Ethernet1$/.exec(cell?.textContent ?? "");
            return mean !== null && Number(mean[1]) > 0;
          },
          undefined,
          { timeout: 20_000 },
        );
        const [, mean, max] = /^mean ([\d.]+) ms, max ([\d.]+) ms/.exec((await shapedWay.textContent()) ?? "")!.map(Number) as [number, number, number];
        expect(mean, "mean wait of the last second").to.be.within(50, 200);
        expect(max, "the largest wait, never beyond the bound").to.be.within(mean, 200);
        // Named for a screen reader with its way and its value.
        expect(await shapedWay.getAttribute("aria-label")).to.match(/^Measured queue delay Edge Ethernet1 → Core Ethernet0: mean [\d.]+ ms, max [\d.]+ ms at Edge Ethernet1$/);
        expect(await page.locator("td.queue[data-name='Measured queue delay Core Ethernet0 → Edge Ethernet1']").textContent(), "the other way has no bandwidth").to.equal("no queue");
        // Beside it, the queue the impairment sets.
        await page.locator("#queue-delay", { hasText: /Edge Ethernet1 → Core Ethernet0: a queue of up to 200 ms at 1000 kbit\/s at Edge Ethernet1/ }).waitFor({ timeout: 10_000 });
        await page.screenshot({ path: join(SCREENSHOTS, "netemu-page-queue-delay.png") });
      } finally {
        flood.kill();
        await context.close();
      }
    });
  });
});

import { expect } from "chai";
import { endShellRun } from "../support/end-shell-run.js";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freeTcpPort } from "../support/free-tcp-port.js";
import { requireTool } from "../support/vpcs.js";
import { gns3PeerPrefix, requireGns3Peer } from "../support/gns3-peer.js";
import { startTestServer } from "../support/http-harness.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RECIPES = join(ROOT, "docs", "recipes");
const CLI = join(ROOT, "dist", "cli.js");
// The trunk recipe took 53 s on a quiet machine, 77 s and once over 150 s beside a 100-PC benchmark.
const RUN_MS = 240_000;

/**
 * A recipe's shell block and what its `<!-- recipe-test: runs[ as root], needs TOOL, namespaces A B -->`
 * says. Two needs are not tools: `needs VPCS 0.8.3` (netemu runs the GNS3 peer's VPCS for the lab's PCs)
 * and `needs host nodes` (a netemu whose controller runs Linux hosts, kind `host`).
 */
interface RecipeBlock {
  readonly file: string;
  readonly text: string;
  readonly asRoot: boolean;
  readonly tools: readonly string[];
  readonly namespaces: readonly string[];
}

const PEER_VPCS_NEED = "VPCS 0.8.3";
// Written on the WAN recipe, whose lab has Linux hosts: netemu runs them itself (ADR 0087), nothing to check here.
const HOST_NODES_NEED = "host nodes";

function recipeBlocks(): RecipeBlock[] {
  const blocks: RecipeBlock[] = [];
  for (const file of readdirSync(RECIPES).filter((f) => f.endsWith(".md")).sort()) {
    const text = readFileSync(join(RECIPES, file), "utf8");
    for (const m of text.matchAll(/<!-- recipe-test: runs( as root)?((?:, [^,>]+)*) -->\n```sh\n([\s\S]*?)\n```/g)) {
      const parts = (m[2] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
      blocks.push({
        file,
        text: m[3] as string,
        asRoot: m[1] !== undefined,
        tools: parts.filter((p) => p.startsWith("needs ")).map((p) => p.slice("needs ".length)),
        namespaces: parts.filter((p) => p.startsWith("namespaces ")).flatMap((p) => p.slice("namespaces ".length).split(" ")),
      });
    }
  }
  return blocks;
}

/**
 * Runs a block as its reader would, pasted into a shell in the repository, with three changes:
 * port 3080 is a free port (in the text, and as NETEMU_PORT and NETEMU_SERVER), /tmp is a scratch directory, and `npx netemu` runs the built dist/cli.js
 * (npx would otherwise install the package into its cache first). The block's process group (netemu,
 * socat) is ended and its namespaces removed afterwards, whatever happened.
 */
async function runRecipe(block: RecipeBlock): Promise<{ code: number | null; output: string }> {
  const scratch = mkdtempSync(join(tmpdir(), "netemu-recipe-"));
  const bin = join(scratch, "bin");
  mkdirSync(bin);
  const realNpx = spawnSync("sh", ["-c", "command -v npx"], { encoding: "utf8" }).stdout.trim();
  writeFileSync(join(bin, "npx"), `#!/bin/sh\nif [ "$1" = "netemu" ]; then shift; exec "${process.execPath}" "${CLI}" "$@"; fi\nexec "${realNpx}" "$@"\n`);
  chmodSync(join(bin, "npx"), 0o755);
  const port = await freeTcpPort();
  const script = block.text.replaceAll("3080", String(port)).replaceAll("/tmp/", `${scratch}/`);
  const vpcs = block.tools.includes(PEER_VPCS_NEED) ? { NETEMU_VPCS_PATH: join(gns3PeerPrefix(), "bin", "vpcs") } : {};
  const child = spawn("sh", ["-e", "-c", script], {
    cwd: ROOT,
    detached: true,
    // A recipe that starts netemu without --port, and the lab commands, reach the free port through the environment.
    env: { ...process.env, HOME: scratch, PATH: `${bin}:${process.env["PATH"] ?? ""}`, NETEMU_PORT: String(port), NETEMU_SERVER: `http://127.0.0.1:${port}`, ...vpcs },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (output += d.toString("utf8")));
  try {
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), RUN_MS);
      child.once("exit", (c) => (clearTimeout(timer), resolve(c)));
    });
    return { code, output };
  } finally {
    await endShellRun(child.pid as number, scratch);
    for (const ns of block.namespaces) spawnSync("ip", ["netns", "del", ns]);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `rtt min/avg/max/mdev = a/b/c/d ms` of each ping summary, as numbers. */
const rttSummaries = (output: string) => [...output.matchAll(/rtt min\/avg\/max\/mdev = ([\d.]+)\/([\d.]+)\/([\d.]+)/g)].map((m) => ({ min: Number(m[1]), avg: Number(m[2]), max: Number(m[3]) }));

/** VPCS's echo lines to an address, their times. */
const vpcsRtts = (output: string, to: string) => [...output.matchAll(new RegExp(`bytes from ${to.replaceAll(".", "\\.")} icmp_seq=\\d+ ttl=\\d+ time=([\\d.]+) ms`, "g"))].map((m) => Number(m[1]));

/** What each recipe promises its reader, checked on what its block printed. */
const PROMISES: Readonly<Record<string, (output: string) => void>> = {
  "wan-link.md": (output) => {
    const [rtt] = rttSummaries(output);
    expect(rtt, output).to.not.equal(undefined);
    // 40 ± 5 ms each way: no round trip can be shorter than 70 ms; the bound above is generous (a busy host).
    expect(rtt!.min, output).to.be.at.least(70).and.below(400);
    // 1 % loss on the way up: one echo of five may be lost.
    expect(output).to.match(/5 packets transmitted, [45] received/);
  },
  "trunk-between-switches.md": (output) => {
    // 10 ms each way on the trunk: no round trip under 20 ms, in either VLAN.
    for (const to of ["10.0.0.3", "10.0.0.4"]) {
      const rtts = vpcsRtts(output, to);
      expect(rtts.length, output).to.be.at.least(2);
      expect(Math.min(...rtts), output).to.be.at.least(20).and.below(420);
    }
    // 1,400 bytes of data: 1,344 more bytes at 1 Mbit/s each way, 21.5 ms more than the small echoes
    // (wide bounds: a machine under load moves either side; without the rate it is under a millisecond).
    const large = [...output.matchAll(/1428 bytes from 10\.0\.0\.3 icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms/g)].map((m) => Number(m[1]));
    expect(large.length, output).to.be.at.least(2);
    expect(Math.min(...large) - Math.min(...vpcsRtts(output, "10.0.0.3")), output).to.be.at.least(10).and.below(85);
    // pc1 (VLAN 10) to pc4 (VLAN 20): the two echoes of the third ping unanswered.
    expect(vpcsRtts(output, "10.0.0.4").length, output).to.be.at.most(3);
    expect(output, "pc1 cannot reach pc4").to.match(/not reachable|timeout/);
  },
};

describe("the recipes in docs/recipes, run as written", function () {
  this.timeout(RUN_MS + 30_000);
  const blocks = recipeBlocks();

  it("has a runnable block, and a promise checked here, for the WAN link and the trunk recipes", () => {
    expect(blocks.map((b) => b.file).sort()).to.deep.equal(Object.keys(PROMISES).sort());
  });

  for (const block of blocks) {
    it(`runs ${block.file}${block.asRoot ? " as root" : ""} and shows what it says`, async function () {
      if (block.asRoot && process.getuid?.() !== 0) {
        if (process.env["CI"] === "true") throw new Error("the recipes need root (CI=true: a test that cannot run fails)");
        console.log("      skipped: the recipes attach Linux network namespaces, which needs root");
        this.skip();
      }
      if (block.tools.includes(PEER_VPCS_NEED)) requireGns3Peer(this);
      const tools = block.tools.filter((t) => t !== PEER_VPCS_NEED && t !== HOST_NODES_NEED);
      for (const tool of [...(block.asRoot ? ["ip", "ping"] : []), "curl", ...tools]) requireTool(this, tool, tool === "ip" ? "iproute2" : tool === "ping" ? "iputils-ping" : tool);
      const { code, output } = await runRecipe(block);
      expect(code, output).to.equal(0);
      PROMISES[block.file]?.(output);
    });
  }
});

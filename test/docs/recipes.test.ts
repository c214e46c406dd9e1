import { expect } from "chai";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freeTcpPort } from "../support/free-tcp-port.js";
import { requireTool } from "../support/vpcs.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RECIPES = join(ROOT, "docs", "recipes");
const CLI = join(ROOT, "dist", "cli.js");
const RUN_MS = 150_000;

/** A recipe's shell block and what its `<!-- recipe-test: runs as root, needs TOOL, namespaces A B -->` says. */
interface RecipeBlock {
  readonly file: string;
  readonly text: string;
  readonly tools: readonly string[];
  readonly namespaces: readonly string[];
}

function recipeBlocks(): RecipeBlock[] {
  const blocks: RecipeBlock[] = [];
  for (const file of readdirSync(RECIPES).filter((f) => f.endsWith(".md")).sort()) {
    const text = readFileSync(join(RECIPES, file), "utf8");
    for (const m of text.matchAll(/<!-- recipe-test: runs as root((?:, [^,>]+)*) -->\n```sh\n([\s\S]*?)\n```/g)) {
      const parts = (m[1] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
      blocks.push({
        file,
        text: m[2] as string,
        tools: parts.filter((p) => p.startsWith("needs ")).map((p) => p.slice("needs ".length)),
        namespaces: parts.filter((p) => p.startsWith("namespaces ")).flatMap((p) => p.slice("namespaces ".length).split(" ")),
      });
    }
  }
  return blocks;
}

/**
 * Runs a block as its reader would, pasted into a root shell in the repository, with three changes:
 * port 3080 is a free port, /tmp is a scratch directory, and `npx netemu` runs the built dist/cli.js
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
  const child = spawn("sh", ["-e", "-c", script], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, HOME: scratch, PATH: `${bin}:${process.env["PATH"] ?? ""}` },
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
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // the group has ended already
    }
    for (const ns of block.namespaces) spawnSync("ip", ["netns", "del", ns]);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `rtt min/avg/max/mdev = a/b/c/d ms` of each ping summary, as numbers. */
const rttSummaries = (output: string) => [...output.matchAll(/rtt min\/avg\/max\/mdev = ([\d.]+)\/([\d.]+)\/([\d.]+)/g)].map((m) => ({ min: Number(m[1]), avg: Number(m[2]), max: Number(m[3]) }));

/** What each recipe promises its reader, checked on what its block printed. */
const PROMISES: Readonly<Record<string, (output: string) => void>> = {
  "wan-link.md": (output) => {
    const [rtt] = rttSummaries(output);
    expect(rtt, output).to.not.equal(undefined);
    // 40 ms each way: no round trip can be shorter than 80 ms; the bound above is generous (a busy host).
    expect(rtt!.min, output).to.be.at.least(80).and.below(400);
    expect(output).to.match(/5 packets transmitted, 5 received/);
  },
  "trunk-between-switches.md": (output) => {
    expect(output).to.include("red reaches red").and.include("red cannot reach blue");
    expect(output).to.match(/3 packets transmitted, 3 received/);
    expect(output).to.match(/3 packets transmitted, 0 received/);
  },
};

describe("the recipes in docs/recipes, run as written", function () {
  this.timeout(RUN_MS + 30_000);
  const blocks = recipeBlocks();

  it("has a runnable block, and a promise checked here, for the WAN link and the trunk recipes", () => {
    expect(blocks.map((b) => b.file).sort()).to.deep.equal(Object.keys(PROMISES).sort());
  });

  for (const block of blocks) {
    it(`runs ${block.file} as root and shows what it says`, async function () {
      if (process.getuid?.() !== 0) {
        if (process.env["CI"] === "true") throw new Error("the recipes need root (CI=true: a test that cannot run fails)");
        console.log("      skipped: the recipes attach Linux network namespaces, which needs root");
        this.skip();
      }
      for (const tool of ["ip", "ping", "curl", ...block.tools]) requireTool(this, tool, tool === "ip" ? "iproute2" : tool === "ping" ? "iputils-ping" : tool);
      const { code, output } = await runRecipe(block);
      expect(code, output).to.equal(0);
      PROMISES[block.file]?.(output);
    });
  }
});

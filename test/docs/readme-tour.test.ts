import { expect } from "chai";
import { alive, listening } from "../support/process-checks.js";
import { endShellRun } from "../support/end-shell-run.js";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freeTcpPort } from "../support/free-tcp-port.js";
import { gns3PeerPrefix, requireGns3Peer } from "../support/gns3-peer.js";
import { shellBlocks } from "../support/readme-blocks.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** npm install, a build and a lab on a 2-core machine shared with other test runs. */
const TOUR_MS = 420_000;
/** The VPCS 0.8.3 the GNS3 peer builds (the tour names it by NETEMU_VPCS_PATH; Debian's 0.5b2 runs too, ADR 0088). */
const PEER_VPCS = join(gns3PeerPrefix(), "bin", "vpcs");



/** `time=N ms` of each echo VPCS printed. */
const rtts = (text: string): number[] => [...text.matchAll(/bytes from 10\.0\.0\.2 icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms/g)].map((m) => Number(m[1]));

/** npx keeps a directory per local package it ran (~/.npm/_npx/<hash>): the one made for the clone goes with it. */
function forgetNpxEntries(clone: string): void {
  const npx = join(process.env["npm_config_cache"] ?? join(homedir(), ".npm"), "_npx");
  if (!existsSync(npx)) return;
  for (const entry of readdirSync(npx)) {
    const manifest = join(npx, entry, "package.json");
    if (existsSync(manifest) && readFileSync(manifest, "utf8").includes(clone)) rmSync(join(npx, entry), { recursive: true, force: true });
  }
}

/**
 * The README's quick tour, as a newcomer runs it: a fresh `git clone` of the repository at HEAD, then the
 * tour's block taken from the README and run as it is written, in one bash, in the clone. Its `npm install`
 * is the real one, offline (`npm_config_offline=true`: the packages of package-lock.json from npm's cache,
 * which the repository's own `npm ci` filled, so no registry is asked and a lock that needs one fails);
 * its `npm run build` and `npx netemu` are the real ones too. What differs from a newcomer's shell is only
 * the environment: a free port (`NETEMU_PORT`, and `NETEMU_SERVER` for the clients) and a scratch config
 * directory, so that the test does not meet another netemu on 3080, and `NETEMU_VPCS_PATH` naming VPCS
 * 0.8.3 (ADR 0089).
 */
describe("the README's quick tour, run as written on a fresh clone (ADR 0089)", function () {
  this.timeout(TOUR_MS + 60_000);

  it("installs, builds, serves in the background with its log in a file, deploys labs/vpcs.yml, and shows the added delay in the second ping", async function () {
    requireGns3Peer(this);
    const tour = shellBlocks(readFileSync(join(ROOT, "README.md"), "utf8")).filter((b) => b.directive.kind === "tour");
    expect(tour, "the README has one block marked `readme-test: tour`").to.have.length(1);
    const block = tour[0]!.text;

    const scratch = mkdtempSync(join(tmpdir(), "netemu-tour-"));
    const clone = join(scratch, "netemu");
    const cloned = spawnSync("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone], { encoding: "utf8" });
    expect(cloned.status, cloned.stderr).to.equal(0);
    const head = (dir: string) => spawnSync("git", ["rev-parse", "HEAD"], { cwd: dir, encoding: "utf8" }).stdout.trim();
    expect(head(clone), "the clone is at the repository's HEAD").to.equal(head(ROOT));

    const port = await freeTcpPort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      npm_config_offline: "true",
      NETEMU_PORT: String(port),
      NETEMU_SERVER: `http://127.0.0.1:${port}`,
      NETEMU_CONFIG_DIR: join(scratch, "config"),
      NETEMU_VPCS_PATH: PEER_VPCS,
    };
    const child = spawn("bash", ["-e", "-o", "pipefail", "-c", block], { cwd: clone, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    try {
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), TOUR_MS);
        child.once("exit", (c) => (clearTimeout(timer), resolve(c)));
      });
      expect(code, output).to.equal(0);

      // The log went to the file, not between the commands' answers.
      expect(output, "no log line among the tour's output").not.to.match(/"level":\d+/);
      const log = readFileSync(join(clone, "netemu.log"), "utf8");
      expect(log).to.include('"msg":"netemu listening"');

      // The deploy's table names the PCs' consoles; the pings before and after the impairment.
      const consoles = [...output.matchAll(/^pc\d\s+vpcs\s+started\s+telnet 127\.0\.0\.1:(\d+)/gm)].map((m) => Number(m[1]));
      expect(consoles, output).to.have.length(2);
      const impaired = output.search(/^vpcs\tsw1\tEthernet0\tin: -\tout: delay=200$/m);
      expect(impaired, output).to.be.greaterThan(0);
      const before = rtts(output.slice(0, impaired));
      const after = rtts(output.slice(impaired));
      expect(before.length, output).to.be.at.least(2);
      expect(after.length, output).to.be.at.least(2);
      // The lab's 50 ms each way on pc2's link: no round trip under 100 ms (a delay is never early).
      expect(Math.min(...before), output).to.be.at.least(100);
      // 200 ms more on sw1 -> pc1: the fastest echoes compared (the first of a run may wait for ARP);
      // at least 190 ms more, and at most 600 (a busy 2-core machine adds its own waits).
      expect(Math.min(...after) - Math.min(...before), output).to.be.within(190, 600);
      console.log(`      round trips before the impairment ${before.join(", ")} ms; after ${after.join(", ")} ms`);

      // destroy: the PCs' processes (their pids from the server's log) ended, their consoles closed.
      const pids = log
        .split("\n")
        .flatMap((line) => {
          try {
            const entry = JSON.parse(line) as { msg?: string; pid?: number; program?: string };
            return entry.msg === "host process started" && entry.program?.endsWith("vpcs") === true && entry.pid !== undefined ? [entry.pid] : [];
          } catch {
            return [];
          }
        });
      expect(pids, log).to.have.length(2);
      expect(pids.filter(alive), "VPCS processes left after destroy").to.deep.equal([]);
      for (const console of consoles) expect(await listening(console), `console ${console} after destroy`).to.equal(false);

      // The first npm install left the clone as git has it (package-lock.json not rewritten).
      const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: clone, encoding: "utf8" });
      expect(status.stdout, "tracked files changed by the tour").to.equal("");
    } finally {
      await endShellRun(child.pid as number, scratch); // the server the tour left in the background, and its PCs
      forgetNpxEntries(clone);
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

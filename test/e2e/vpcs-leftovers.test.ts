import { expect } from "chai";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { knownProcess } from "../../src/adapters/system/proc-processes.js";
import { startTestServer } from "../support/http-harness.js";
import { runningIn } from "../support/process-checks.js";
import { DEBIAN_VPCS, GNS3_PEER_VPCS } from "../support/vpcs-console.js";

const here = dirname(fileURLToPath(import.meta.url));
const alive = (pid: number): boolean => knownProcess(pid) !== undefined;

/**
 * A netemu server in a process of its own: it starts one VPCS node on its compute, prints the pids that
 * VPCS runs as (the pid netemu knows, and what that one forked), then waits to be killed.
 */
function serverScript(configDir: string, vpcsPath: string): string {
  const harness = join(here, "..", "support", "http-harness.js");
  return [
    'await import("reflect-metadata");',
    `const { startTestServer } = await import(${JSON.stringify(harness)});`,
    `const s = await startTestServer({ settings: { configDir: ${JSON.stringify(configDir)}, vpcsPath: ${JSON.stringify(vpcsPath)} } });`,
    'const project = "5a2f6d7e-0000-4000-8000-000000000001";',
    'await s.request("POST", "/v2/compute/projects", { name: "p", project_id: project });',
    'const pc = (await s.request("POST", `/v2/compute/projects/${project}/vpcs/nodes`, { name: "PC1" })).json;',
    'const r = await s.request("POST", `/v2/compute/projects/${project}/vpcs/nodes/${pc.node_id}/start`, {});',
    'if (r.status !== 204) throw new Error(r.text);',
    'const { TOKENS } = await import(' + JSON.stringify(join(here, "..", "..", "src", "application", "ports", "tokens.js")) + ");",
    "const pid = s.netemu.container.resolve(TOKENS.HostProcesses).pidOf(pc.node_id);",
    'const { readFileSync } = await import("node:fs");',
    'const forked = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\\s+/).filter(Boolean).map(Number);',
    "console.log(JSON.stringify([pid, ...forked]));",
    "setInterval(() => {}, 1000);",
  ].join("\n");
}

for (const [version, vpcsPath] of [["0.8.3", GNS3_PEER_VPCS], ["0.5b2", DEBIAN_VPCS]] as const) {
  describe(`end to end: VPCS ${version} processes left by a netemu killed with -9 end at its next start on the same config directory`, function () {
    this.timeout(60_000);

    before(function () {
      if (!existsSync(vpcsPath)) this.skip();
    });

    it("ends exactly the VPCS processes it recorded, and leaves a VPCS it did not start running", async () => {
      const configDir = mkdtempSync(join(tmpdir(), "netemu-killed-"));
      // A VPCS nobody's netemu started (same program, another directory): it must be left alone.
      const decoyDir = mkdtempSync(join(tmpdir(), "netemu-decoy-"));
      const decoy = spawn(vpcsPath, ["-p", "9911", "-m", "7", "-i", "1", ...(version === "0.8.3" ? ["-F"] : []), "-s", "39911", "-c", "39912"], { cwd: decoyDir, stdio: "ignore", detached: true });
      const decoyPid = decoy.pid as number;
      let pids: number[] = [];
      try {
        const child = spawn(process.execPath, ["--input-type=module", "-e", serverScript(configDir, vpcsPath)], { stdio: ["ignore", "pipe", "inherit"] });
        const line = await new Promise<string>((resolve, reject) => {
          child.stdout.once("data", (d: Buffer) => resolve(d.toString()));
          child.once("exit", (code) => reject(new Error(`the server exited with ${String(code)}`)));
        });
        pids = JSON.parse(line) as number[];
        expect(pids.length, "VPCS and what it forked").to.be.at.least(2);
        child.kill("SIGKILL");
        await new Promise((r) => child.once("exit", r));
        expect(pids.filter(alive), "its VPCS outlived it").to.deep.equal(pids);
        expect(readdirSync(join(configDir, "host-processes"))).to.have.length(1);

        const next = await startTestServer({ settings: { configDir, vpcsPath } });
        try {
          for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
        } finally {
          await next.close();
        }
        expect(pids.filter(alive), "what it left is gone").to.deep.equal([]);
        expect(readdirSync(join(configDir, "host-processes")), "and its record").to.deep.equal([]);
        // 0.5b2 daemonizes: the decoy's daemon is not its launcher; the decoy's directory finds them.
        expect(runningIn(vpcsPath, decoyDir).length, "the decoy still runs").to.be.at.least(1);
      } finally {
        // Nothing of this test outlives it, whether it passed or not.
        for (const pid of [...runningIn(vpcsPath, decoyDir), decoyPid, ...pids].filter(alive)) process.kill(pid, "SIGKILL");
        rmSync(configDir, { recursive: true, force: true });
        rmSync(decoyDir, { recursive: true, force: true });
      }
    });
  });
}

/**
 * The C load side (bench/native/udp-loadgen.c: generator and sink in one single-threaded process,
 * sendmmsg / recvmmsg) for the data-plane rig. On a 2-core machine the Node generator and sink took
 * ~57 % of a core at 100,000 frames/s, CPU the device under test needed (issue 20, docs/benchmarks.md).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface LoadgenRun {
  sent: number;
  received: number;
  /** Frames that were not this run's (a previous run's late frames, the flooded hello). */
  stray: number;
  sendMs: number;
  wallMs: number;
  achievedRate: number;
  /** Rounds whose send the kernel refused (a full send queue): the frames left on a later round. */
  sendBlocked: number;
  cpuUs: number;
  latency: { p50: number; p99: number; max: number; min: number };
}

/**
 * Compiles the load generator with cc next to the compiled bench (nothing downloaded); answers its
 * path, or why not (no compiler, a failed build).
 */
export function buildLoadgen(): { path: string } | { error: string } {
  const here = dirname(fileURLToPath(import.meta.url));
  const source = join(here, "..", "..", "..", "bench", "native", "udp-loadgen.c");
  const out = join(here, "..", "native", "udp-loadgen");
  mkdirSync(dirname(out), { recursive: true });
  const r = spawnSync(process.env["CC"] ?? "cc", ["-O2", "-Wall", "-Wextra", "-o", out, source], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.error !== undefined) return { error: r.error.message };
  if (r.status !== 0) return { error: `cc exited with ${r.status}: ${r.stderr.trim().split("\n").slice(0, 3).join(" ")}` };
  return { path: out };
}

/**
 * One run: frames from 127.0.0.1:genPort to `target`, received on 127.0.0.1:sinkPort from `sinkPeer`.
 * The sink first sends a hello frame from its MAC, so a learning switch knows where it is. Ends the
 * process by its pid if it has not answered 15 s after the run's duration.
 */
export function runLoadgen(
  path: string,
  o: { genPort: number; target: number; sinkPort: number; sinkPeer: number; rate: number; durationMs: number; size: number; runId: number; latency: boolean; cpu?: number },
): Promise<LoadgenRun> {
  const args = [o.genPort, o.target, o.sinkPort, o.sinkPeer, o.rate, o.durationMs, o.size, o.runId, o.latency ? 1 : 0, 1].map(String);
  return new Promise((resolve, reject) => {
    // Pinned on one CPU where asked (bench:udp-paths keeps the load side off the forwarder's CPU).
    const p = o.cpu === undefined ? spawn(path, args, { stdio: ["ignore", "pipe", "pipe"] }) : spawn("taskset", ["-c", String(o.cpu), path, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => void (out += d.toString("utf8")));
    p.stderr.on("data", (d: Buffer) => void (err += d.toString("utf8")));
    const timer = setTimeout(() => p.pid !== undefined && p.exitCode === null && process.kill(p.pid, "SIGKILL"), o.durationMs + 15_000);
    p.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    p.on("exit", (code, signal) => {
      clearTimeout(timer);
      try {
        if (code !== 0) throw new Error(`udp-loadgen exited with ${code ?? signal}: ${err.trim()}`);
        resolve(JSON.parse(out) as LoadgenRun);
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

// Scratch (not committed): fixed-rate CPU per frame of the chain of 4 in one worker, N fresh DUTs.
import { DataplaneRig } from "../lib/dataplane-rig.js";
const flags = (process.env.DUT_FLAGS ?? "").split(" ").filter((s) => s !== "");
const n = Number(process.env.N ?? 6);
const ip = (process.env.IP ?? "on") as string;
const rig = await DataplaneRig.start({ loadSide: "c" });
for (let i = 0; i < n; i++) {
  const dut = await rig.startDut({ mode: "netemu", bufferBytes: 4 << 20, workers: 1, chain: 4, inProcessLinks: ip === "on", placement: "alternate", balance: false, execArgv: flags });
  if (process.env.PIN !== undefined) (await import("node:child_process")).execFileSync("taskset", ["-a", "-p", "-c", process.env.PIN, String(dut.child.pid)], { stdio: "ignore" });
  await rig.trial(dut, { rate: Number(process.env.RATE ?? 20000), durationMs: 2000, size: 64 });
  const fs = await import("node:fs");
  const sw = (): Map<string, number> => new Map(fs.readdirSync(`/proc/${dut.child.pid}/task`).map((t) => [fs.readFileSync(`/proc/${dut.child.pid}/task/${t}/comm`, "utf8").trim() + ":" + t, Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(fs.readFileSync(`/proc/${dut.child.pid}/task/${t}/status`, "utf8"))?.[1])]));
  const s0 = sw();
  const perf = process.env.PERF === undefined ? undefined : (await import("node:child_process")).spawn("perf", ["record", "-q", "-g", "-F", "4000", "-p", String(dut.child.pid), "-o", `${process.env.PERF}.${i}`, "--", "sleep", "1.5"], { stdio: "ignore" });
  const perfDone = perf === undefined ? undefined : new Promise((r) => perf.on("exit", r));
  const a = await rig.trial(dut, { rate: Number(process.env.RATE ?? 20000), durationMs: 2000, size: 64 });
  const s1 = sw();
  await perfDone;
  console.log([...s1].map(([k, v]) => [k, v - (s0.get(k) ?? 0)]).filter(([, d]) => (d as number) > 100).map(([k, d]) => `${k}=${d}`).join(" "), "sent", a.sent);
  const b = await rig.trial(dut, { rate: Number(process.env.RATE ?? 20000), durationMs: 2000, size: 64 });
  console.log(`RUN ${i} pid ${dut.child.pid}: ${(a.dutCpuUs / a.sent).toFixed(2)} ${(b.dutCpuUs / b.sent).toFixed(2)} µs/frame`);
  await dut.child.stop();
}
await rig.stop();

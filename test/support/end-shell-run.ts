import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The pids of the processes whose process group is `group`, read from /proc. */
function membersOf(group: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command's closing parenthesis: state, ppid, pgrp.
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp === group) pids.push(Number(entry));
    } catch {
      // The process ended while it was read.
    }
  }
  return pids;
}

/** The pids of the processes whose working directory lies under `directory` (what a test's server started there). */
function workingUnder(directory: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`).replace(/ \(deleted\)$/, "");
      if (cwd === directory || cwd.startsWith(`${directory}/`)) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

const signal = (pid: number, sig: NodeJS.Signals): void => {
  try {
    process.kill(pid, sig);
  } catch {
    // It has ended already.
  }
};

/**
 * Ends what a shell block a test ran left behind (a netemu started with `&`, and the VPCS it started in
 * process groups of their own): SIGTERM to the block's group first, so that netemu stops its hosts as a
 * user's Ctrl-C would, SIGKILL to whatever is still there after `graceMs`, then, by pid, every process still
 * working under the test's scratch directory. A SIGKILL alone left VPCS processes holding console ports
 * that later tests asked for.
 */
export async function endShellRun(group: number, scratch: string, graceMs = 15_000): Promise<void> {
  signal(-group, "SIGTERM");
  for (const end = Date.now() + graceMs; membersOf(group).length > 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 100));
  signal(-group, "SIGKILL");
  for (const pid of workingUnder(scratch)) signal(pid, "SIGKILL");
}

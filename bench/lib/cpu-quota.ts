import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A process held to a share of one core by a CPU cgroup this benchmark made, until `release()`. */
export interface CpuQuota {
  readonly percent: number;
  /** Moves the process back to the root cgroup and removes the one made for it. */
  release(): void;
}

/**
 * The scheduler's period: short, so that a held process is stopped for a few milliseconds at most at a
 * time (its sockets' 4 MiB buffers hold what comes meanwhile) rather than the default 100 ms; long
 * enough that the quota in it is at least the kernel's smallest, 1 ms.
 */
const periodUsFor = (percent: number): number => Math.max(2000, Math.ceil(100_000 / percent));

/**
 * Holds `pid` (all its threads, and those it starts later) to `percent` of one core with CFS bandwidth
 * control, in a cgroup of its own: cgroup v1's `cpu` controller where it is mounted, else v2's `cpu.max`.
 * Needs root; throws, naming the file, where neither can be written. Used where the load side cannot
 * saturate the process under test on a 2-core machine: held to a share of a core, the process is what
 * limits the rate, and two set-ups are compared by the rate that share forwards.
 */
export function holdToCpuShare(pid: number, percent: number): CpuQuota {
  if (!(percent >= 5 && percent <= 100)) throw new Error(`a CPU share is 5 to 100 % of a core, not ${percent}`);
  const periodUs = periodUsFor(percent);
  const quotaUs = Math.round((periodUs * percent) / 100);
  const v1 = "/sys/fs/cgroup/cpu";
  const v1Group = join(v1, `netemu-bench-${pid}`);
  const v2 = "/sys/fs/cgroup";
  const v2Group = join(v2, `netemu-bench-${pid}`);
  const write = (file: string, text: string): void => {
    try {
      writeFileSync(file, text);
    } catch (err) {
      throw new Error(`cannot hold the process under test to ${percent} % of a core: writing ${file}: ${(err as Error).message} (root and a CPU cgroup controller are needed)`);
    }
  };
  // A group half set up goes again: a failed run leaves nothing behind.
  const made = (root: string, group: string, setUp: () => void): CpuQuota => {
    mkdirSync(group);
    try {
      setUp();
    } catch (err) {
      leave(root, group, pid);
      throw err;
    }
    return { percent, release: () => leave(root, group, pid) };
  };
  if (existsSync(join(v1, "cpu.cfs_quota_us"))) {
    return made(v1, v1Group, () => {
      write(join(v1Group, "cpu.cfs_period_us"), String(periodUs));
      write(join(v1Group, "cpu.cfs_quota_us"), String(quotaUs));
      // cgroup.procs moves every thread of the process; threads started later are born in the group.
      write(join(v1Group, "cgroup.procs"), String(pid));
    });
  }
  if (existsSync(join(v2, "cgroup.controllers")) && readFileSync(join(v2, "cgroup.controllers"), "utf8").split(" ").map((c) => c.trim()).includes("cpu")) {
    write(join(v2, "cgroup.subtree_control"), "+cpu");
    return made(v2, v2Group, () => {
      write(join(v2Group, "cpu.max"), `${quotaUs} ${periodUs}`);
      write(join(v2Group, "cgroup.procs"), String(pid));
    });
  }
  throw new Error(`cannot hold the process under test to ${percent} % of a core: no CPU cgroup controller at ${v1} or ${v2}`);
}

function leave(root: string, group: string, pid: number): void {
  try {
    writeFileSync(join(root, "cgroup.procs"), String(pid));
  } catch {
    // The process has ended already: the group is empty.
  }
  rmdirSync(group);
}

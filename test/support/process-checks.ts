import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { connect } from "node:net";
import { knownProcess } from "../../src/adapters/system/proc-processes.js";

/** Whether something accepts TCP connections at the port on 127.0.0.1 (a VPCS console). */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
    socket.on("error", () => resolve(false));
  });
}

/** Whether a process with this pid exists, a zombie included (a signal 0 reaches it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether the process runs: it exists and is not a zombie waiting for its parent. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return false;
  }
}

/** The live processes (a zombie is not one) running `exe` in `cwd`, a node's directory: none may be left after a stop. */
export function runningIn(exe: string, cwd: string): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return knownProcess(pid)?.exe === exe && readlinkSync(`/proc/${pid}/cwd`) === cwd;
      } catch {
        // Gone, or not ours to read.
        return false;
      }
    });
}

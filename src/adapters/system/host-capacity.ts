import { availableParallelism, totalmem } from "node:os";
import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import type { HostCapacity } from "../../application/ports/host.js";

/**
 * The machine's size, read once at start (a 3.x compute's capabilities, ADR 0066): its CPUs, its
 * memory, and the size of the disk that holds the projects.
 */
export function hostCapacity(projectsPath: string): HostCapacity {
  let diskBytes = 0;
  // The projects directory may not exist yet: its nearest existing ancestor is on the same disk, or close.
  for (let dir = projectsPath; ; dir = dirname(dir)) {
    try {
      const fs = statfsSync(dir);
      diskBytes = fs.blocks * fs.bsize;
      break;
    } catch {
      if (dirname(dir) === dir) break;
    }
  }
  return { cpus: availableParallelism(), memoryBytes: totalmem(), diskBytes };
}

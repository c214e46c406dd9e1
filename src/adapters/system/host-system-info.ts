import os from "node:os";
import type { SystemInfo, SystemInfoProvider } from "../../application/ports/system.js";

/** The host facts GNS3 puts in its debug bundle: OS, runtime, CPU, memory, interfaces. */
export class HostSystemInfo implements SystemInfoProvider {
  constructor(private readonly packageVersion: string) {}

  async collect(): Promise<SystemInfo> {
    const cpus = os.cpus();
    const memory = process.memoryUsage();
    const lines = [
      `netemu: ${this.packageVersion}`,
      `OS: ${os.type()} ${os.release()} ${os.arch()}`,
      `Node.js: ${process.version}`,
      `CPU: ${cpus.length} x ${cpus[0]?.model ?? "unknown"}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
      `Memory: ${Math.round(os.totalmem() / 2 ** 20)} MiB total, ${Math.round(os.freemem() / 2 ** 20)} MiB free; process RSS ${Math.round(memory.rss / 2 ** 20)} MiB, heap ${Math.round(memory.heapUsed / 2 ** 20)} MiB`,
      `Uptime: ${Math.round(process.uptime())} s`,
      "Networks:",
    ];
    for (const [name, addresses] of Object.entries(os.networkInterfaces())) {
      lines.push(`* ${name}: ${(addresses ?? []).map((a) => `${a.address}/${a.netmask}`).join(", ")}`);
    }
    return { lines };
  }
}

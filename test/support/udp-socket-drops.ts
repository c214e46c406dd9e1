import { readFileSync } from "node:fs";

/**
 * Datagrams the kernel dropped for want of room in the receive buffer of the IPv4 UDP sockets bound
 * to `port` in this network namespace (/proc/net/udp's last column): a loss no process saw, told apart
 * from one netemu would cause.
 */
export function udpSocketDrops(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  let drops = 0;
  for (const line of readFileSync("/proc/net/udp", "utf8").split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 13 || fields[1]?.split(":")[1] !== hexPort) continue;
    drops += Number(fields[fields.length - 1]);
  }
  return drops;
}

import "reflect-metadata";
import { readdirSync } from "node:fs";
import { createNetemu } from "../../src/adapters/composition-root.js";

/**
 * The server side of the soak run: a netemu on 127.0.0.1 that prints its URL, then every second a
 * JSON line with its RSS, heap and open descriptors, until the driver stops it (SIGTERM).
 */
const [configDir, udpStart, udpEnd] = process.argv.slice(2);
if (configDir === undefined || udpStart === undefined || udpEnd === undefined) {
  process.stderr.write("usage: soak-server CONFIG_DIR UDP_START UDP_END\n");
  process.exit(2);
}
const netemu = createNetemu({
  logLevel: "silent",
  settings: { configDir, host: "127.0.0.1", udpPortRange: { start: Number(udpStart), end: Number(udpEnd) } },
});
const { url } = await netemu.listen(0, "127.0.0.1");
process.stdout.write(JSON.stringify({ url }) + "\n");
const report = (): void => {
  const m = process.memoryUsage();
  process.stdout.write(JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, fds: readdirSync("/proc/self/fd").length }) + "\n");
};
const timer = setInterval(report, 1000);
process.once("SIGTERM", () => {
  clearInterval(timer);
  report();
  void netemu.shutdown().then(() => process.exit(0));
});

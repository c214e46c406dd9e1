import { spawn } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/**
 * `npm run soak -- --minutes N`: for N minutes, against a netemu in its own process on 127.0.0.1,
 * a mix of API calls (projects, switches, links created and deleted, filters changed, GETs) and a
 * steady flow of frames between two hosts across a filtered link. At the end: requests, errors by
 * status, RSS / heap / descriptors at start and end, frames sent, received and lost.
 */
const { values } = parseArgs({ options: { minutes: { type: "string", default: "1" }, rate: { type: "string", default: "2000" } } });
const minutes = Number(values.minutes);
const framesPerSecond = Number(values.rate);
if (!(minutes > 0 && minutes <= 120) || !(framesPerSecond > 0 && framesPerSecond <= 50_000)) {
  process.stderr.write("usage: soak --minutes N (0 < N <= 120) [--rate FRAMES_PER_SECOND]\n");
  process.exit(2);
}

interface Stats {
  rss: number;
  heapUsed: number;
  fds: number;
}

const here = fileURLToPath(new URL(".", import.meta.url));
const configDir = mkdtempSync(join(tmpdir(), "netemu-soak-"));
const server = spawn(process.execPath, [join(here, "soak-server.js"), configDir, "43000", "43999"], { stdio: ["ignore", "pipe", "inherit"] });
let url = "";
const samples: Stats[] = [];
let buffered = "";
server.stdout.on("data", (d: Buffer) => {
  buffered += d.toString();
  const lines = buffered.split("\n");
  buffered = lines.pop() ?? "";
  for (const line of lines) {
    const msg = JSON.parse(line) as { url?: string } & Partial<Stats>;
    if (msg.url !== undefined) url = msg.url;
    else samples.push(msg as Stats);
  }
});
while (url === "" || samples.length === 0) await new Promise((r) => setTimeout(r, 50));

let requests = 0;
const errors = new Map<number, number>();
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  requests++;
  const r = await fetch(url + path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } }) });
  const text = await r.text();
  if (r.status >= 400) errors.set(r.status, (errors.get(r.status) ?? 0) + 1);
  return { status: r.status, json: text === "" ? undefined : JSON.parse(text) };
}

// A fixed lab carrying the traffic: host A - SW1 - (filtered link) - SW2 - host B.
const lab = (await call("POST", "/v2/projects", { name: "soak-traffic" })).json.project_id as string;
const ports = [{ name: "Ethernet0", port_number: 0, type: "access", vlan: 1 }, { name: "Ethernet1", port_number: 1, type: "access", vlan: 1 }];
const sw1 = (await call("POST", `/v2/projects/${lab}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local", properties: { ports_mapping: ports } })).json.node_id;
const sw2 = (await call("POST", `/v2/projects/${lab}/nodes`, { name: "SW2", node_type: "ethernet_switch", compute_id: "local", properties: { ports_mapping: ports } })).json.node_id;
const trunk = (await call("POST", `/v2/projects/${lab}/links`, { nodes: [{ node_id: sw1, adapter_number: 0, port_number: 1 }, { node_id: sw2, adapter_number: 0, port_number: 1 }] })).json.link_id;
await call("PUT", `/v2/projects/${lab}/links/${trunk}`, { filters: { delay: [5, 2] } });

const openHost = async (): Promise<{ socket: Socket; port: number; received: number }> => {
  const socket = createSocket("udp4");
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", () => r()));
  const host = { socket, port: socket.address().port, received: 0 };
  socket.on("message", () => host.received++);
  return host;
};
const hostA = await openHost();
const hostB = await openHost();
const lportA = (await call("POST", `/v2/compute/projects/${lab}/ports/udp`)).json.udp_port;
const lportB = (await call("POST", `/v2/compute/projects/${lab}/ports/udp`)).json.udp_port;
await call("POST", `/v2/compute/projects/${lab}/ethernet_switch/nodes/${sw1}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: lportA, rhost: "127.0.0.1", rport: hostA.port });
await call("POST", `/v2/compute/projects/${lab}/ethernet_switch/nodes/${sw2}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: lportB, rhost: "127.0.0.1", rport: hostB.port });
const frame = (dst: number, src: number): Buffer => {
  const f = Buffer.alloc(64);
  f.writeUIntBE(dst, 0, 6);
  f.writeUIntBE(src, 6, 6);
  f.writeUInt16BE(0x0800, 12);
  return f;
};
// Learn both addresses once, so the flow is known unicast.
hostB.socket.send(frame(0xffffffffffff, 0x020000000002), lportB, "127.0.0.1");
await new Promise((r) => setTimeout(r, 100));

const start = samples.at(-1) as Stats;
const endAt = Date.now() + minutes * 60_000;
let sent = 0;
const receivedBefore = hostB.received;
const traffic = setInterval(() => {
  const burst = Math.round(framesPerSecond / 100);
  for (let i = 0; i < burst; i++) hostA.socket.send(frame(0x020000000002, 0x020000000001), lportA, "127.0.0.1");
  sent += burst;
}, 10);

// The API mix, one worker per "student", each building and tearing down its own little lab.
async function student(n: number): Promise<void> {
  while (Date.now() < endAt) {
    const p = (await call("POST", "/v2/projects", { name: `soak-${n}-${requests}` })).json?.project_id as string;
    const a = (await call("POST", `/v2/projects/${p}/nodes`, { name: "A", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
    const b = (await call("POST", `/v2/projects/${p}/nodes`, { name: "B", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
    const l = (await call("POST", `/v2/projects/${p}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: 0 }, { node_id: b, adapter_number: 0, port_number: 0 }] })).json.link_id;
    await call("PUT", `/v2/projects/${p}/links/${l}`, { filters: { packet_loss: [10], corrupt: [5] } });
    await call("GET", `/v2/projects/${p}/links/${l}/available_filters`);
    await call("PUT", `/v2/projects/${p}/links/${l}`, { suspend: true });
    await call("PUT", `/v2/projects/${p}/nodes/${a}`, { properties: { ports_mapping: [{ name: "x", port_number: 0, type: "dot1q", vlan: 1 }] } }); // 409: connected, port count differs
    await call("GET", "/v2/version");
    await call("DELETE", `/v2/projects/${p}/links/${l}`);
    await call("DELETE", `/v2/projects/${p}`);
  }
}
await Promise.all([1, 2, 3, 4].map(student));
clearInterval(traffic);
await new Promise((r) => setTimeout(r, 500));
const received = hostB.received - receivedBefore;
// Let idle keep-alive connections time out (5 s on the server) before the last sample.
await new Promise((r) => setTimeout(r, 6500));
const end = samples.at(-1) as Stats;
server.kill("SIGTERM");
await new Promise((r) => server.once("exit", r));
hostA.socket.close();
hostB.socket.close();
rmSync(configDir, { recursive: true, force: true });

const mib = (n: number): string => (n / 2 ** 20).toFixed(1);
const expected409 = errors.get(409) ?? 0;
const unexpected = [...errors.entries()].filter(([status]) => status !== 409);
console.log(`soak: ${minutes} min, ${requests} requests (${(requests / (minutes * 60)).toFixed(0)}/s)`);
console.log(`  errors: ${expected409} expected 409 (port count change on a connected switch), unexpected: ${unexpected.length === 0 ? "none" : JSON.stringify(Object.fromEntries(unexpected))}`);
console.log(`  RSS ${mib(start.rss)} -> ${mib(end.rss)} MiB, heap ${mib(start.heapUsed)} -> ${mib(end.heapUsed)} MiB, descriptors ${start.fds} -> ${end.fds}`);
console.log(`  frames: ${sent} sent, ${received} received, ${sent - received} lost (${(((sent - received) / Math.max(1, sent)) * 100).toFixed(3)} %)`);
process.exit(unexpected.length === 0 ? 0 : 1);

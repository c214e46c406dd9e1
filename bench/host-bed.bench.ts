/**
 * Real TCP/IP hosts through netemu (docs/host-bed.md): iperf3 TCP throughput each way, UDP loss at a
 * set rate, and ping round-trip times, for four paths: two hosts bridged to each other directly
 * (the bed's own ceiling, no netemu), through uBridge 0.9.19 (one bridge between two UDP NIOs, as GNS3
 * joins two nodes; skipped with a note when it is not installed), through one netemu switch, and through
 * two switches joined by a dot1q trunk (a controller link). netemu runs in this process, started over
 * its HTTP API. Needs root, socat, iperf3, ping, ip. Run: npm run bench:host-bed [-- --rounds N --seconds S]
 */
import { startTestServer, type TestServer } from "../test/support/http-harness.js";
import { existsSync } from "node:fs";
import { freeUdpPort, hostBedShortcomings, HostBed, type BedHost } from "../test/support/host-bed.js";
import { startUbridgeBridge, UBRIDGE } from "./lib/ubridge.js";

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = arg("rounds", 3);
const SECONDS = arg("seconds", 5);
const PINGS = arg("pings", 200);
const UDP_RATE = arg("udp-mbits", 50) * 1e6;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};
const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};
const mbit = (bps: number): string => (bps / 1e6).toFixed(0);
const ms = (x: number): string => x.toFixed(3);

interface PathFigures {
  readonly path: string;
  readonly forward: number[];
  readonly reverse: number[];
  readonly udpLoss: number[];
  readonly rtts: number[];
  readonly pingsSent: number;
}

async function measure(path: string, bed: HostBed, a: BedHost, b: BedHost): Promise<PathFigures> {
  const warm = await a.ping(b.ip, { count: 3 });
  if (warm.received === 0) throw new Error(`${path}: no ping reply: ${warm.output}`);
  const figures: PathFigures = { path, forward: [], reverse: [], udpLoss: [], rtts: [], pingsSent: PINGS };
  for (let round = 0; round < ROUNDS; round++) {
    process.stderr.write(`${path}: round ${round + 1}/${ROUNDS}\n`);
    figures.forward.push((await bed.iperf3(a, b, { seconds: SECONDS })).receivedBps);
    figures.reverse.push((await bed.iperf3(a, b, { seconds: SECONDS, reverse: true })).receivedBps);
    figures.udpLoss.push((await bed.iperf3(a, b, { seconds: SECONDS, udpBitrate: UDP_RATE })).udp!.lostPercent);
  }
  // Echoes 10 ms apart on an otherwise idle path.
  const ping = await a.ping(b.ip, { count: PINGS, intervalS: 0.01 });
  figures.rtts.push(...ping.rttsMs);
  return figures;
}

async function main(): Promise<void> {
  const missing = hostBedShortcomings();
  if (missing.length > 0) throw new Error(`the host bed cannot run: it lacks ${missing.join("; ")}`);
  const bed = await HostBed.open();
  let s: TestServer | undefined;
  const results: PathFigures[] = [];
  const notes: string[] = [];
  try {
    const [pa, pb] = [await freeUdpPort(), await freeUdpPort()];
    const da = await bed.addHost("10.12.0.1/24", pb, { udpPort: pa });
    const db = await bed.addHost("10.12.0.2/24", pa, { udpPort: pb });
    results.push(await measure("direct (socat ↔ socat, no netemu)", bed, da, db));
    await bed.close();

    if (existsSync(UBRIDGE)) {
      // The hosts' socat ports and uBridge's own two, each NIO pointing at the other side's.
      const [ha, hb, ua, ub] = [await freeUdpPort(), await freeUdpPort(), await freeUdpPort(), await freeUdpPort()];
      const ubridge = await startUbridgeBridge([{ lport: ua, rport: ha }, { lport: ub, rport: hb }]);
      try {
        const ua1 = await bed.addHost("10.12.0.1/24", ua, { udpPort: ha });
        const ub1 = await bed.addHost("10.12.0.2/24", ub, { udpPort: hb });
        results.push(await measure(`uBridge ${ubridge.version} (one bridge, two UDP NIOs)`, bed, ua1, ub1));
      } finally {
        await bed.close();
        await ubridge.stop();
      }
    } else {
      notes.push(`uBridge not measured: ${UBRIDGE} is not there (../shared/gns3-peer/install.sh builds it; NETEMU_BENCH_UBRIDGE points elsewhere)`);
    }

    s = await startTestServer();
    const server = s;
    const projectId = (await server.request("POST", "/v2/projects", { name: "host-bed-bench" })).json.project_id as string;
    const ports = [{ port_number: 0, type: "access", vlan: 12 }, { port_number: 1, type: "access", vlan: 12 }, { port_number: 7, type: "dot1q", vlan: 1 }];
    const ports_mapping = ports.map((p) => ({ name: `Ethernet${p.port_number}`, ...p }));
    const node = async (name: string): Promise<string> =>
      (await server.request("POST", `/v2/projects/${projectId}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local", properties: { ports_mapping } })).json.node_id;
    const [sw1, sw2] = [await node("SW1"), await node("SW2")];
    const link = await server.request("POST", `/v2/projects/${projectId}/links`, {
      nodes: [{ node_id: sw1, adapter_number: 0, port_number: 7 }, { node_id: sw2, adapter_number: 0, port_number: 7 }],
    });
    if (link.status !== 201) throw new Error(`link: ${link.text}`);
    const attach = async (nodeId: string, port: number, cidr: string): Promise<BedHost> => {
      const lport = (await server.request("POST", `/v2/compute/projects/${projectId}/ports/udp`)).json.udp_port as number;
      const host = await bed.addHost(cidr, lport);
      const r = await server.request("POST", `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${nodeId}/adapters/0/ports/${port}/nio`, {
        type: "nio_udp", lport, rhost: "127.0.0.1", rport: host.udpPort,
      });
      if (r.status !== 201) throw new Error(`nio: ${r.text}`);
      return host;
    };
    const a = await attach(sw1, 0, "10.12.0.1/24");
    const b = await attach(sw1, 1, "10.12.0.2/24");
    const d = await attach(sw2, 0, "10.12.0.4/24");
    results.push(await measure("one netemu switch (access ports)", bed, a, b));
    results.push(await measure("two netemu switches, dot1q trunk", bed, a, d));
  } finally {
    await bed.close();
    await s?.close();
  }

  for (const n of notes) console.log(`${n}\n`);
  console.log(`${ROUNDS} rounds of ${SECONDS} s per figure (median [min–max]); UDP at ${UDP_RATE / 1e6} Mbit/s; ${PINGS} pings 10 ms apart.\n`);
  console.log("| Path | TCP A→B Mbit/s | TCP B→A Mbit/s | UDP loss % | ping RTT ms min / median / p99 / max | replies |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const r of results) {
    const span = (xs: number[]): string => `${mbit(median(xs))} [${mbit(Math.min(...xs))}–${mbit(Math.max(...xs))}]`;
    const rtt = `${ms(Math.min(...r.rtts))} / ${ms(median(r.rtts))} / ${ms(quantile(r.rtts, 0.99))} / ${ms(Math.max(...r.rtts))}`;
    console.log(`| ${r.path} | ${span(r.forward)} | ${span(r.reverse)} | ${median(r.udpLoss).toFixed(2)} [${Math.min(...r.udpLoss).toFixed(2)}–${Math.max(...r.udpLoss).toFixed(2)}] | ${rtt} | ${r.rtts.length}/${r.pingsSent} |`);
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);

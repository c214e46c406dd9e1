import { expect } from "chai";
import { execFile } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ComputeNotification } from "../../src/application/ports/notifications.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { httpWiredSwitch } from "../support/http-nios.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

const PROJECT = "66666666-3333-4444-8555-777777777777";
const A = "00:50:79:66:68:01";
const BROADCAST = "ff:ff:ff:ff:ff:ff";

/** A free UDP port on 127.0.0.1 with nobody listening on it. */
async function deadPort(): Promise<number> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  const port = socket.address().port;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

describe("the data plane in worker threads (real sockets on 127.0.0.1)", function () {
  this.timeout(30_000);
  let s: TestServer;
  const opened: UdpPeer[] = [];

  beforeEach(async () => {
    s = await startTestServer({ dataPlaneWorkers: 2 });
    await s.request("POST", "/v2/compute/projects", { name: "workers", project_id: PROJECT });
  });
  afterEach(async () => {
    await s.close();
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  const wiredSwitch = (name: string) => httpWiredSwitch(s, PROJECT, name, opened);

  it("switches frames on every switch, whichever worker runs it, and answers their counters and MAC tables", async () => {
    const switches = await Promise.all(["SW1", "SW2", "SW3", "SW4"].map(wiredSwitch));
    for (const sw of switches) {
      const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
      await sw.peers[0].send(frame, sw.lports[0]);
      const [got] = await sw.peers[1].waitFor(1);
      expect(got?.equals(frame)).to.equal(true);
    }
    for (const sw of switches) {
      const view = (await s.request("GET", sw.base)).json;
      expect(view.ports_statistics.map((p: { port_number: number; frames_in: number; frames_out: number }) => [p.port_number, p.frames_in, p.frames_out])).to.deep.equal([
        [0, 1, 0],
        [1, 0, 1],
      ]);
      expect((await s.request("GET", `${sw.base}/mac_table`)).json.map((e: { mac: string; port_number: number }) => [e.mac, e.port_number])).to.deep.equal([[A, 0]]);
    }
  });

  it("carries distinct frames worth several of the batched path's receive pools byte for byte and in order in the worker (ADR 0107)", async () => {
    const sw = await wiredSwitch("SW1");
    // 120 × 1,400 bytes: about three 64 KiB pools; in bursts of 8, so batches of one and of several, each
    // burst received before the next leaves (the receiving test socket's default buffer holds ~90 of them).
    const frames = Array.from({ length: 120 }, (_, i) => {
      const frame = ethernetFrame(BROADCAST, A, { payload: 1386 });
      frame.fill(i % 251, 14);
      return frame;
    });
    for (let i = 0; i < frames.length; i += 8) {
      await Promise.all(frames.slice(i, i + 8).map((f) => sw.peers[0].send(f, sw.lports[0])));
      await sw.peers[1].waitFor(Math.min(i + 8, frames.length), 5000);
    }
    const received = sw.peers[1].received;
    expect(received.map((f, i) => f.equals(frames[i]!))).to.deep.equal(frames.map(() => true));
  });

  it("applies filters, status and captures in the worker", async () => {
    const sw = await wiredSwitch("SW1");
    const put = await s.request("PUT", `${sw.base}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: sw.lports[1], rhost: "127.0.0.1", rport: sw.peers[1].port, filters: { frequency_drop: [-1] } });
    expect(put.status).to.equal(201);
    await sw.peers[0].send(ethernetFrame(BROADCAST, A), sw.lports[0]);
    expect(await sw.peers[1].settle(200), "frequency_drop -1 on port 1 drops everything").to.equal(0);
    await s.request("PUT", `${sw.base}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: sw.lports[1], rhost: "127.0.0.1", rport: sw.peers[1].port, filters: {} });

    expect((await s.request("POST", `${sw.base}/stop`)).status).to.equal(204);
    await sw.peers[0].send(ethernetFrame(BROADCAST, A), sw.lports[0]);
    expect(await sw.peers[1].settle(200), "a stopped switch forwards nothing").to.equal(0);
    expect((await s.request("POST", `${sw.base}/start`)).status).to.equal(204);

    const started = await s.request("POST", `${sw.base}/adapters/0/ports/1/start_capture`, { capture_file_name: "w.pcap", data_link_type: "DLT_EN10MB" });
    expect(started.status, started.text).to.equal(200);
    const again = await s.request("POST", `${sw.base}/adapters/0/ports/1/start_capture`, { capture_file_name: "w.pcap", data_link_type: "DLT_EN10MB" });
    expect(again.status, "the worker knows the port is capturing").to.equal(409);
    await sw.peers[0].send(ethernetFrame(BROADCAST, A, { payload: 50 }), sw.lports[0]);
    await sw.peers[1].waitFor(1);
    const abort = new AbortController();
    const pcap = await fetch(`${s.url}${sw.base}/adapters/0/ports/1/pcap`, { signal: abort.signal });
    expect(pcap.status).to.equal(200);
    const reader = (pcap.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value as Uint8Array).readUInt32LE(0), "classic pcap").to.equal(0xa1b2c3d4);
    abort.abort();
    expect((await s.request("POST", `${sw.base}/adapters/0/ports/1/stop_capture`)).status).to.equal(204);
  });

  it("relays what the worker tells the user, and refuses a NIO whose local port is taken, changing nothing", async () => {
    const sw = await wiredSwitch("SW1");
    const told: ComputeNotification[] = [];
    const watching = await s.netemu.useCases.watchNotifications.execute({ projectId: PROJECT, listener: (n) => told.push(n) });
    if (watching._tag === "Left") throw new Error(watching.left._tag);
    // Port 2 sends to nobody: the kernel's port unreachable comes back to the worker's socket.
    const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
    const nio = await s.request("POST", `${sw.base}/adapters/0/ports/2/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: await deadPort() });
    expect(nio.status).to.equal(201);
    for (let i = 0; i < 3 && !told.some((n) => n.kind === "peer_unreachable"); i++) {
      await sw.peers[0].send(ethernetFrame(BROADCAST, A), sw.lports[0]);
      await sw.peers[1].settle(150);
    }
    expect(told.find((n) => n.kind === "peer_unreachable")).to.deep.include({ kind: "peer_unreachable", portNumber: 2 });
    watching.right();

    const taken = await s.request("POST", `${sw.base}/adapters/0/ports/3/nio`, { type: "nio_udp", lport: sw.lports[0], rhost: "127.0.0.1", rport: 9 });
    expect(taken.status, taken.text).to.equal(409);
    expect(taken.json.message).to.include("Could not create an UDP connection");
    expect((await s.request("GET", sw.base)).json.ports_statistics.map((p: { port_number: number }) => p.port_number)).to.deep.equal([0, 1, 2]);
  });

  it("ends its workers on shutdown, closing every socket", async () => {
    const sw = await wiredSwitch("SW1");
    const started = Date.now();
    await s.netemu.shutdown();
    expect(Date.now() - started).to.be.below(2000);
    // The NIO's local port is free again: the worker's socket is closed.
    const probe = createSocket("udp4");
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.bind(sw.lports[0], "127.0.0.1", () => resolve());
    });
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });

  it("keeps an embedding host's process alive while a worker owes it an answer, and lets it end once idle", async () => {
    // A host whose only work is awaiting the data plane: with its workers unreferenced throughout,
    // Node would end it mid-await (exit code 13, "unsettled top-level await"). The host is given as
    // -e with --input-type, which a worker must not inherit, beside a per-process V8 flag, which a
    // worker refuses when told it explicitly.
    const configDir = mkdtempSync(join(tmpdir(), "netemu-host-"));
    const root = new URL("../../src/adapters/composition-root.js", import.meta.url).href;
    const host = [
      `import "reflect-metadata";`,
      `import { createNetemu } from ${JSON.stringify(root)};`,
      `const netemu = createNetemu({ logLevel: "silent", dataPlaneWorkers: 1, settings: { configDir: ${JSON.stringify(configDir)} } });`,
      `const project = await netemu.useCases.createComputeProject.execute({ name: "host" });`,
      `const sw = await netemu.useCases.createSwitch.execute({ projectId: project.right.projectId, name: "SW1" });`,
      `const table = await netemu.useCases.getMacTable.execute({ projectId: project.right.projectId, nodeId: sw.right.nodeId });`,
      `console.log(sw._tag, table._tag);`,
    ].join("\n");
    try {
      const ended = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(process.execPath, ["--max-semi-space-size=16", "--input-type=module", "-e", host], { timeout: 15_000 }, (err, stdout, stderr) =>
          resolve({ code: err === null ? 0 : typeof err.code === "number" ? err.code : null, stdout, stderr }),
        );
        child.stdin?.end();
      });
      expect(ended.stdout.trim(), ended.stderr).to.equal("Right Right");
      expect(ended.code, "it ends by itself, with nothing left to do").to.equal(0);
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});

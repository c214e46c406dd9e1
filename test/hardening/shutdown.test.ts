import { expect } from "chai";
import { request as httpRequest } from "node:http";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";
import { canBindUdp, openFds, sleep } from "../support/hardening-kit.js";

const PROJECT = "dddddddd-3333-4444-8555-666666666666";

interface Lab {
  readonly s: TestServer;
  readonly peers: UdpPeer[];
  readonly lports: number[];
  readonly base: string;
}

/** A switch with three live NIOs (one delayed, one capturing) and peers ready to send. */
async function lab(capture = true): Promise<Lab> {
  const s = await startTestServer();
  await s.request("POST", "/v2/compute/projects", { name: "stop", project_id: PROJECT });
  const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW" })).json;
  const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
  const peers = await Promise.all([0, 1, 2].map(() => UdpPeer.open()));
  const lports: number[] = [];
  for (let i = 0; i < 3; i++) {
    const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
    lports.push(lport);
    const filters = i === 1 ? { delay: [300, 50] } : {};
    expect((await s.request("POST", `${base}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peers[i]!.port, filters })).status).to.equal(201);
  }
  if (capture) {
    const cap = await s.request("POST", `${base}/adapters/0/ports/2/start_capture`, { capture_file_name: "stop.pcap", data_link_type: "DLT_EN10MB" });
    expect(cap.status).to.equal(200);
  }
  return { s, peers, lports, base };
}

/** Sends broadcasts from every peer as fast as the loop allows until stopped. */
function pump(l: Lab): { stop: () => Promise<number>; sent: () => number } {
  let running = true;
  let sent = 0;
  const loops = l.peers.map(async (peer, i) => {
    while (running) {
      try {
        await peer.send(ethernetFrame("ff:ff:ff:ff:ff:ff", `00:50:79:66:68:0${i + 1}`), l.lports[i]!);
        sent++;
      } catch {
        /* the NIO is gone: ICMP unreachable comes back as an error on a later send */
      }
      if (sent % 50 === 0) await sleep(1);
    }
  });
  return {
    sent: () => sent,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return sent;
    },
  };
}

/** Opens GET .../pcap and keeps reading it (a client following a live capture). */
function followPcap(url: string, path: string): { bytes: () => number; ended: Promise<void> } {
  let bytes = 0;
  const u = new URL(url);
  const ended = new Promise<void>((resolve) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: "GET" }, (res) => {
      res.on("data", (c: Buffer) => (bytes += c.length));
      res.on("end", () => resolve());
      res.on("error", () => resolve());
      res.on("close", () => resolve());
    });
    req.on("error", () => resolve());
    req.end();
  });
  return { bytes: () => bytes, ended };
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

describe("Shutdown while traffic flows", function () {
  this.timeout(20_000);
  let l: Lab | undefined;
  afterEach(async () => {
    if (l !== undefined) {
      await l.s.close();
      await Promise.all(l.peers.map((p) => p.close()));
      l = undefined;
    }
  });

  for (const capture of [false, true]) {
    it(`netemu.shutdown() under load${capture ? ", with a port capturing and a client following its pcap," : ""} closes every socket and connection within 2 s, and a second call meanwhile is harmless`, async () => {
      const fdsBefore = openFds();
      const lb = (l = await lab(capture));
      const traffic = pump(lb);
      const follower = capture ? followPcap(lb.s.url, `${lb.base}/adapters/0/ports/2/pcap`) : { bytes: () => 0, ended: Promise.resolve() };
      let ms = Number.NaN;
      try {
        await sleep(1000);
        const midway = (await lb.s.request("GET", lb.base)).json.ports_statistics as { frames_in: number }[];
        expect(midway.reduce((a, p) => a + p.frames_in, 0), "traffic flows before the stop").to.be.greaterThan(50);
        const started = performance.now();
        const first = lb.s.netemu.shutdown();
        await sleep(5);
        const second = lb.s.netemu.shutdown();
        const done = Promise.all([first, second, lb.s.netemu.stopped]).then(() => (ms = performance.now() - started));
        await withTimeout(done, 2000, "shutdown");
        await withTimeout(follower.ended, 2000, "the pcap stream to end");
      } finally {
        await traffic.stop();
        console.log(`      shutdown under load took ${ms.toFixed(0)} ms (${traffic.sent()} datagrams sent, ${follower.bytes()} pcap bytes streamed)`);
      }
      expect(ms).to.be.below(2000);
      for (const p of lb.lports) expect(await canBindUdp(p), `lport ${p} closed`).to.equal(true);
      await lb.s.netemu.shutdown(); // a third call, after the fact
      let refused = false;
      try {
        await fetch(`${lb.s.url}/v2/version`);
      } catch {
        refused = true;
      }
      expect(refused, "the HTTP server no longer accepts connections").to.equal(true);
      await Promise.all(lb.peers.map((p) => p.close()));
      lb.peers.length = 0;
      await sleep(50);
      expect(openFds(), "file descriptors back to their level before the lab").to.be.at.most(fdsBefore + 2);
    });
  }

  it("POST /v2/shutdown twice is harmless: the server stops once, within 2 s, with every socket closed", async () => {
    const lb = (l = await lab(false));
    const traffic = pump(lb);
    const outcome = (p: Promise<Response>) => p.then((r) => r.status, (e: Error) => e.name);
    let ms = Number.NaN;
    try {
      await sleep(100);
      const started = performance.now();
      const [a, b] = await Promise.all([outcome(fetch(`${lb.s.url}/v2/shutdown`, { method: "POST" })), outcome(fetch(`${lb.s.url}/v2/shutdown`, { method: "POST" }))]);
      expect(a).to.equal(201);
      expect([201, "TypeError"], `second answer ${String(b)}`).to.include(b);
      await withTimeout(lb.s.netemu.stopped, 2000, "the stop after POST /v2/shutdown");
      ms = performance.now() - started;
    } finally {
      await traffic.stop();
    }
    const late = await outcome(fetch(`${lb.s.url}/v2/shutdown`, { method: "POST" }));
    expect(late, "a third POST finds no server").to.equal("TypeError");
    console.log(`      POST /v2/shutdown ×2 stopped the server in ${ms.toFixed(0)} ms`);
    for (const p of lb.lports) expect(await canBindUdp(p), `lport ${p} closed`).to.equal(true);
  });
});

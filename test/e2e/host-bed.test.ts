import { expect } from "chai";
import { spawn } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { freeUdpPort, HostBed, requireHostBed, runCommand } from "../support/host-bed.js";

const namespaces = async (): Promise<string[]> => (await runCommand("ip", ["netns", "list"])).stdout.split("\n").map((l) => l.split(" ")[0] ?? "");

const CRASHING_RUN = fileURLToPath(new URL("../support/host-bed-crashing-run.js", import.meta.url));

/** Waits up to 5 s for a process that is not our child to end. */
const waitForExit = async (pid: number): Promise<void> => {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`process ${pid} still runs after 5 s`);
};

/** The pid of a process that ran and ended: a crashed run's pid. */
const deadPid = async (): Promise<number> => {
  const child = spawn("true");
  await new Promise((r) => child.once("exit", r));
  return child.pid as number;
};

/**
 * A UDP relay between two hosts' socat ports that, in each direction, drops the 20th of every 20
 * iperf3 UDP datagrams (IPv4, UDP, port 5201) and holds the 5th of every 10 back until the next one
 * has gone (or 50 ms): a known cause for the loss and out-of-order counts the bed reports. It can
 * also drop the first `dropHandshakes` handshake datagrams of iperf3's UDP streams, whichever way they go.
 */
async function startMisorderingRelay(
  options: { readonly misorder: boolean; readonly dropHandshakes: number } = { misorder: true, dropHandshakes: 0 },
): Promise<{ portForA: number; portForB: number; connect(aPort: number, bPort: number): void; close(): void }> {
  const bind = (): Promise<Socket> =>
    new Promise((resolve) => {
      const socket = createSocket("udp4");
      socket.bind(0, "127.0.0.1", () => resolve(socket));
    });
  const [fromA, fromB] = [await bind(), await bind()];
  const timers = new Set<NodeJS.Timeout>();
  let handshakes = 0;
  const isIperfUdp = (f: Buffer): boolean =>
    f.length >= 38 && f.readUInt16BE(12) === 0x0800 && f[23] === 17 && [f.readUInt16BE(34), f.readUInt16BE(36)].includes(5201);
  const direction = (inbound: Socket, outbound: Socket, to: () => number): void => {
    let n = 0;
    let held: Buffer | undefined;
    // Nothing goes out before `connect` names the hosts' ports.
    const send = (frame: Buffer): void => (to() === 0 ? undefined : outbound.send(frame, to(), "127.0.0.1"));
    const release = (): void => {
      if (held !== undefined) send(held);
      held = undefined;
    };
    inbound.on("message", (frame) => {
      if (!isIperfUdp(frame)) return send(frame);
      // iperf3's stream handshake, 4 bytes of UDP payload: losing it stalls the run (esnet/iperf#351).
      if (frame.readUInt16BE(38) === 12 && handshakes++ < options.dropHandshakes) return;
      if (!options.misorder) return send(frame);
      const k = n++;
      if (k % 20 === 19) return;
      if (k % 10 === 4) {
        held = frame;
        const timer = setTimeout(() => (timers.delete(timer), release()), 50);
        timers.add(timer);
        return;
      }
      send(frame);
      release();
    });
  };
  let aPort = 0;
  let bPort = 0;
  direction(fromA, fromB, () => bPort);
  direction(fromB, fromA, () => aPort);
  return {
    portForA: fromA.address().port,
    portForB: fromB.address().port,
    connect(a, b) {
      aPort = a;
      bPort = b;
    },
    close() {
      for (const t of timers) clearTimeout(t);
      fromA.close();
      fromB.close();
    },
  };
}

/** The test bed itself (test/support/host-bed.ts), without netemu: hosts wired to each other by their socat. */
describe("the host bed: network namespaces bridged to UDP by socat", function () {
  this.timeout(60_000);
  let bed: HostBed | undefined;

  before(function () {
    requireHostBed(this);
  });

  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  it("carries frames between two hosts whose UDP ports point at each other, both ways", async () => {
    bed = await HostBed.open();
    const [pa, pb] = [await freeUdpPort(), await freeUdpPort()];
    const a = await bed.addHost("10.12.0.1/24", pb, { udpPort: pa });
    const b = await bed.addHost("10.12.0.2/24", pa, { udpPort: pb });
    const ping = await a.ping(b.ip, { count: 3 });
    expect(ping.received, ping.output).to.equal(3);
    expect(ping.rttsMs).to.have.length(3);
    expect(await a.neighbour(b.ip)).to.equal(b.mac);
    const udp = await bed.iperf3(b, a, { seconds: 1, udpBitrate: 2e6 });
    expect(udp.udp!.packets).to.be.above(100);
  });

  it("reports what the receiver saw, each way: datagrams a relay between the hosts dropped and held back", async () => {
    bed = await HostBed.open();
    const relay = await startMisorderingRelay();
    try {
      const a = await bed.addHost("10.12.0.1/24", relay.portForA);
      const b = await bed.addHost("10.12.0.2/24", relay.portForB);
      relay.connect(a.udpPort, b.udpPort);
      expect((await a.ping(b.ip, { count: 2 })).received).to.equal(2);
      for (const reverse of [false, true]) {
        const { udp } = await bed.iperf3(a, b, { seconds: 2, udpBitrate: 4e6, udpLength: 1000, reverse });
        const label = `reverse: ${reverse}, ${JSON.stringify(udp)}`;
        // The relay drops 1 datagram in 20 and holds 1 in 10 back behind the next one.
        expect(udp!.lostPackets / udp!.sentPackets, label).to.be.within(0.04, 0.06);
        expect(udp!.outOfOrder / udp!.sentPackets, label).to.be.within(0.09, 0.11);
      }
    } finally {
      relay.close();
    }
  });

  it("runs iperf3 again when a lost handshake stalls it, says how many runs it took, and gives up after the last", async () => {
    bed = await HostBed.open();
    const relay = await startMisorderingRelay({ misorder: false, dropHandshakes: 2 });
    try {
      const a = await bed.addHost("10.12.0.1/24", relay.portForA);
      const b = await bed.addHost("10.12.0.2/24", relay.portForB);
      relay.connect(a.udpPort, b.udpPort);
      const udp = { seconds: 1, udpBitrate: 1e6, udpLength: 1000 };
      const once = await bed.iperf3(a, b, { ...udp, attempts: 1 }).then(() => "ran", (e: Error) => e.message);
      expect(once, "the first handshake lost, no second attempt").to.match(/could not open its stream in 1 attempts: status null/);
      const result = await bed.iperf3(a, b, udp);
      expect(result.attempts, "the second handshake lost, the third went through").to.equal(2);
      expect(result.udp!.lostPackets).to.equal(0);
    } finally {
      relay.close();
    }
  });

  it("close ends socat by pid and removes every namespace and TAP it made", async () => {
    bed = await HostBed.open();
    const a = await bed.addHost("10.12.0.1/24", await freeUdpPort());
    expect(a.bridged).to.equal(true);
    expect(await namespaces()).to.include(a.namespace);
    await bed.close();
    expect(a.bridged, "socat ended").to.equal(false);
    expect(await namespaces()).to.not.include(a.namespace);
    expect(existsSync(`/sys/class/net/${a.tap}`)).to.equal(false);
  });

  it("open removes the namespace and ends the socat of a run that was killed", async () => {
    const run = spawn(process.execPath, ["--enable-source-maps", CRASHING_RUN], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`the run printed nothing in 10 s: ${out}`)), 10_000);
        run.stdout.on("data", (d: Buffer) => {
          out += d.toString("utf8");
          if (out.includes("\n")) {
            clearTimeout(timer);
            resolve(out.split("\n")[0] as string);
          }
        });
      });
      const left = JSON.parse(line) as { namespace: string; tap: string; socatPid: number };
      process.kill(run.pid as number, "SIGKILL");
      await new Promise((r) => (run.exitCode !== null || run.signalCode !== null ? r(null) : run.once("exit", r)));
      expect(await namespaces(), "the killed run left its namespace").to.include(left.namespace);

      bed = await HostBed.open();

      expect(bed.removedLeftovers).to.include.members([left.namespace, `socat ${left.socatPid} (${left.tap})`]);
      expect(await namespaces()).to.not.include(left.namespace);
      await waitForExit(left.socatPid);
    } finally {
      run.kill("SIGKILL");
    }
  });

  it("open removes what a crashed run left (namespaces, TAPs, socat) and leaves a running one's alone", async () => {
    const dead = await deadPid();
    const alive = spawn("sleep", ["30"]);
    const live = `netemu-bed-${alive.pid}-0`;
    const stray = spawn("socat", [`TUN,tun-type=tap,tun-name=nb${dead}t2,iff-no-pi`, `UDP:127.0.0.1:${await freeUdpPort()}`], { stdio: "ignore" });
    try {
      expect((await runCommand("ip", ["netns", "add", `netemu-bed-${dead}-0`])).status).to.equal(0);
      expect((await runCommand("ip", ["tuntap", "add", "dev", `nb${dead}t1`, "mode", "tap"])).status).to.equal(0);
      expect((await runCommand("ip", ["netns", "add", live])).status).to.equal(0);
      for (let i = 0; i < 100 && !existsSync(`/sys/class/net/nb${dead}t2`); i++) await new Promise((r) => setTimeout(r, 20));

      bed = await HostBed.open();

      expect(bed.removedLeftovers).to.include.members([`netemu-bed-${dead}-0`, `nb${dead}t1`, `socat ${stray.pid} (nb${dead}t2)`]);
      expect(await namespaces()).to.not.include(`netemu-bed-${dead}-0`);
      expect(existsSync(`/sys/class/net/nb${dead}t1`)).to.equal(false);
      await new Promise((r) => (stray.exitCode !== null || stray.signalCode !== null ? r(null) : stray.once("exit", r)));
      expect(await namespaces(), "a live pid's namespace stays").to.include(live);
    } finally {
      alive.kill();
      stray.kill("SIGKILL");
      await runCommand("ip", ["netns", "del", live]);
      await runCommand("ip", ["netns", "del", `netemu-bed-${dead}-0`]);
      await runCommand("ip", ["link", "del", `nb${dead}t1`]);
    }
  });
});

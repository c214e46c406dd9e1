import { expect } from "chai";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freeUdpPort, HostBed, requireHostBed, runCommand } from "../support/host-bed.js";

const namespaces = async (): Promise<string[]> => (await runCommand("ip", ["netns", "list"])).stdout.split("\n").map((l) => l.split(" ")[0] ?? "");

/** The pid of a process that ran and ended: a crashed run's pid. */
const deadPid = async (): Promise<number> => {
  const child = spawn("true");
  await new Promise((r) => child.once("exit", r));
  return child.pid as number;
};

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

import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { createNetemu, type Netemu } from "../../src/adapters/composition-root.js";
import { canBindUdp, forceGc, freeUdpPorts, openFds, sleep, udpPool } from "../support/hardening-kit.js";

const PROJECT = "cccccccc-3333-4444-8555-666666666666";

interface Level {
  readonly fds: number;
  readonly heapMiB: number;
}

async function level(gc: () => void): Promise<Level> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(20);
  }
  return { fds: openFds(), heapMiB: process.memoryUsage().heapUsed / 2 ** 20 };
}

const show = (l: Level): string => `${l.fds} fds, ${l.heapMiB.toFixed(1)} MiB heap`;

describe("Resources: long add/remove cycles return to their starting level", function () {
  this.timeout(120_000);
  let netemu: Netemu;
  let configDir: string;
  const gc = forceGc();

  beforeEach(async () => {
    configDir = mkdtempSync(join(tmpdir(), "netemu-hard-"));
    netemu = createNetemu({ logLevel: "silent", settings: { host: "127.0.0.1", port: 0, configDir, udpPortRange: { start: 38000, end: 38099 } } });
    const p = await netemu.useCases.createComputeProject.execute({ name: "res", projectId: PROJECT });
    if (E.isLeft(p)) throw new Error(p.left._tag);
  });
  afterEach(async () => {
    await netemu.shutdown();
    rmSync(configDir, { recursive: true, force: true });
  });

  it("10,000 NIO add/remove cycles on the real data plane leave file descriptors and heap where they started", async () => {
    const sw = await netemu.useCases.createSwitch.execute({ projectId: PROJECT, name: "SW" });
    if (E.isLeft(sw)) throw new Error(sw.left._tag);
    const lports = await freeUdpPorts(4, 38200 + (process.pid % 50) * 8);
    const at = (port: number) => ({ projectId: PROJECT, nodeId: sw.right.nodeId, adapterNumber: 0, portNumber: port });
    const cycle = async (i: number): Promise<void> => {
      const port = i % 4;
      const added = await netemu.useCases.addNio.execute({
        port: at(port),
        nio: { type: "nio_udp", lport: lports[port]!, rhost: "127.0.0.1", rport: 9, filters: i % 2 === 0 ? { delay: [5, 1], packet_loss: [10] } : {} },
      });
      if (E.isLeft(added)) throw new Error(`cycle ${i}: add ${added.left._tag}`);
      const removed = await netemu.useCases.removeNio.execute({ port: at(port) });
      if (E.isLeft(removed)) throw new Error(`cycle ${i}: remove ${removed.left._tag}`);
    };
    for (let i = 0; i < 200; i++) await cycle(i); // warm-up: lazy allocations and JIT
    const before = await level(gc);
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) await cycle(i);
    const ms = performance.now() - started;
    const after = await level(gc);
    console.log(`      10,000 NIO cycles in ${Math.round(ms)} ms: before ${show(before)}, after ${show(after)}`);
    expect(after.fds).to.be.at.most(before.fds + 2);
    expect(after.heapMiB).to.be.below(before.heapMiB + 4);
    expect(udpPool(netemu).reserved()).to.deep.equal([]);
    for (const p of lports) expect(await canBindUdp(p)).to.equal(true);
  });

  it("1,000 switch create/delete cycles, each with a live NIO, leave file descriptors and heap where they started", async () => {
    const [lport] = await freeUdpPorts(1, 38600 + (process.pid % 50) * 8);
    const cycle = async (i: number): Promise<void> => {
      const sw = await netemu.useCases.createSwitch.execute({ projectId: PROJECT, name: `SW${i}` });
      if (E.isLeft(sw)) throw new Error(`cycle ${i}: create ${sw.left._tag}`);
      const added = await netemu.useCases.addNio.execute({
        port: { projectId: PROJECT, nodeId: sw.right.nodeId, adapterNumber: 0, portNumber: i % 8 },
        nio: { type: "nio_udp", lport: lport!, rhost: "127.0.0.1", rport: 9, filters: { corrupt: [5] } },
      });
      if (E.isLeft(added)) throw new Error(`cycle ${i}: add ${added.left._tag}`);
      const deleted = await netemu.useCases.deleteComputeNode.execute({ projectId: PROJECT, nodeId: sw.right.nodeId });
      if (E.isLeft(deleted)) throw new Error(`cycle ${i}: delete ${deleted.left._tag}`);
    };
    for (let i = 0; i < 50; i++) await cycle(i);
    const before = await level(gc);
    const started = performance.now();
    for (let i = 0; i < 1_000; i++) await cycle(i);
    const ms = performance.now() - started;
    const after = await level(gc);
    console.log(`      1,000 switch cycles in ${Math.round(ms)} ms: before ${show(before)}, after ${show(after)}`);
    expect(after.fds).to.be.at.most(before.fds + 2);
    expect(after.heapMiB).to.be.below(before.heapMiB + 4);
    expect(udpPool(netemu).reserved()).to.deep.equal([]);
    expect(await canBindUdp(lport!)).to.equal(true);
  });
});

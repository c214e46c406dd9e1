import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addressLineOf, typeIntoConsole } from "../../src/adapters/cli/lab/vpcs-console.js";
import { freeTcpPort } from "../support/free-tcp-port.js";
import { gns3PeerPrefix, requireGns3Peer } from "../support/gns3-peer.js";

/**
 * `netemu lab exec`'s console client against a real VPCS 0.8.3 telnet console, started as GNS3's compute
 * starts it (`-p console -F -R`, one instance, UDP towards a port nobody serves).
 */
describe("netemu lab exec: a line typed into a VPCS console, its answer read back (ADR 0084)", function () {
  this.timeout(30_000);
  let vpcs: ChildProcess | undefined;
  let dir: string;
  let consolePort: number;

  before(function () {
    requireGns3Peer(this);
  });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "netemu-lab-vpcs-"));
    consolePort = await freeTcpPort();
    const udp = await freeTcpPort();
    vpcs = spawn(join(gns3PeerPrefix(), "bin", "vpcs"), ["-p", String(consolePort), "-m", "1", "-i", "1", "-F", "-R", "-s", String(udp), "-c", String(udp + 1), "-t", "127.0.0.1"], { cwd: dir, stdio: "ignore" });
  });

  afterEach(async () => {
    const child = vpcs;
    vpcs = undefined;
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** The console, once VPCS listens (it takes a moment to start). */
  async function typed(line: string): Promise<E.Either<unknown, string>> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const r = await typeIntoConsole("127.0.0.1", consolePort, line, 15_000);
      if (E.isRight(r) || r.left._tag !== "ConsoleUnreachable" || Date.now() > deadline) return r;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("sets an address and prints what VPCS answered, without the echoed command or the prompt", async () => {
    const set = await typed("ip 10.0.0.1/24 10.0.0.254");
    expect(E.isRight(set) && set.right).to.match(/^Checking for duplicate address\.\.\.\n\S+ : 10\.0\.0\.1 255\.255\.255\.0 gateway 10\.0\.0\.254$/);
    const shown = await typed("show ip");
    expect(E.isRight(shown) && shown.right).to.match(/IP\/MASK\s+: 10\.0\.0\.1\/24/);
    expect(E.isRight(shown) && shown.right).not.to.match(/show ip|\S+> $/);
  });

  it("says when nothing listens at the console", async () => {
    const port = await freeTcpPort();
    const r = await typeIntoConsole("127.0.0.1", port, "show ip", 2000);
    expect(E.isLeft(r) && r.left._tag).to.equal("ConsoleUnreachable");
  });

  it("gives up after its time on a console that never prompts, with what it printed", async () => {
    const silent: Server = createServer((socket) => socket.write("hello, no prompt here\r\n"));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const r = await typeIntoConsole("127.0.0.1", (silent.address() as { port: number }).port, "show ip", 1500);
      expect(E.isLeft(r) && r.left).to.deep.include({ _tag: "ConsoleTimedOut", waitingFor: "a prompt", printed: "hello, no prompt here\n" });
    } finally {
      silent.close();
    }
  });
});

describe("netemu lab: a PC's address read from VPCS's show ip", () => {
  it("reads the address, prefix length and gateway as the line that sets them", () => {
    const shown = "NAME        : pc1[1]\nIP/MASK     : 10.0.0.1/24\nGATEWAY     : 10.0.0.254\nDNS         : \nMAC         : 00:50:79:66:68:00";
    expect(addressLineOf(shown)).to.equal("ip 10.0.0.1/24 10.0.0.254");
    expect(addressLineOf(shown.replace("10.0.0.254", "0.0.0.0"))).to.equal("ip 10.0.0.1/24");
  });

  it("reads no address from a PC that has none", () => {
    expect(addressLineOf("NAME        : pc1[1]\nIP/MASK     : 0.0.0.0/0\nGATEWAY     : 0.0.0.0")).to.equal(undefined);
  });
});

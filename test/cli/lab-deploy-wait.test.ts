import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLabCommand } from "../../src/adapters/cli/lab/lab-command.js";
import { freeTcpPort } from "../support/free-tcp-port.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";

const LAB = `name: waited
nodes:
  sw1: {kind: ethernet_switch}
  sw2: {kind: ethernet_switch}
links:
  - endpoints: [sw1:e0, sw2:e0]
`;

interface Run {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
  readonly ms: number;
}

async function lab(args: readonly string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const started = Date.now();
  const code = await runLabCommand(args, {}, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err, ms: Date.now() - started };
}

/** A TCP relay to the test server that starts listening at `port` only after `afterMs`: a server still starting. */
function relayLater(port: number, target: string, afterMs: number): { stop(): Promise<void> } {
  const { port: targetPort } = new URL(target);
  const relay: Server = createServer((client) => {
    const upstream = connect(Number(targetPort), "127.0.0.1");
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  const timer = setTimeout(() => relay.listen(port, "127.0.0.1"), afterMs);
  return {
    stop: () =>
      new Promise((resolve) => {
        clearTimeout(timer);
        relay.close(() => resolve());
        // A relay that never listened has nothing to close.
        if (!relay.listening) resolve();
      }),
  };
}

/**
 * The quick tour starts the server in the background (`npm start &`, which builds first) and deploys at
 * once: `deploy --wait S` asks again while nothing answers, up to S seconds (ADR 0089).
 */
describe("netemu lab deploy --wait: a server started a moment ago (ADR 0089)", function () {
  this.timeout(60_000);
  let s: TestServer;
  let dir: string;
  let file: string;

  beforeEach(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "netemu-lab-wait-"));
    file = join(dir, "lab.yml");
    writeFileSync(file, LAB);
  });
  afterEach(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("waits for a server that begins answering after the command started, then deploys the lab", async () => {
    const port = await freeTcpPort();
    const relay = relayLater(port, s.url, 1_500);
    try {
      const r = await lab(["deploy", file, "--wait", "30", "--server", `http://127.0.0.1:${port}`]);
      expect([r.code, r.err]).to.deep.equal([0, []]);
      expect(r.out[0]).to.match(/^netemu lab: deployed lab waited: 2 nodes, 1 link/);
      expect(r.ms).to.be.at.least(1_400);
    } finally {
      await relay.stop();
    }
    const projects = (await s.request("GET", "/v2/projects")).json as { name: string }[];
    expect(projects.map((p) => p.name)).to.deep.equal(["waited"]);
  });

  it("without --wait, answers 2 at once when nothing answers yet", async () => {
    const port = await freeTcpPort();
    const r = await lab(["deploy", file, "--server", `http://127.0.0.1:${port}`]);
    expect(r.code).to.equal(2);
    expect(r.err[0]).to.match(/^netemu lab: no answer from http:\/\/127\.0\.0\.1:\d+/);
    expect(r.ms).to.be.below(1_000);
  });

  it("gives up after the seconds it was given, with 2, saying how long it waited", async () => {
    const port = await freeTcpPort();
    const r = await lab(["deploy", file, "--wait", "1", "--server", `http://127.0.0.1:${port}`]);
    expect(r.code).to.equal(2);
    expect(r.err).to.have.length(1);
    expect(r.err[0]).to.match(/^netemu lab: no answer from http:\/\/127\.0\.0\.1:\d+: .* \(waited 1 s\)$/);
    expect(r.ms).to.be.within(900, 10_000);
  });

  it("refuses a --wait that is not a number of seconds, and --wait on the other commands", async () => {
    expect(await lab(["deploy", file, "--wait", "soon", "--server", s.url])).to.deep.include({ code: 2, err: ["netemu lab: --wait soon: give a number of seconds"] });
    expect(await lab(["deploy", file, "--wait=-1", "--server", s.url])).to.deep.include({ code: 2, err: ["netemu lab: --wait -1: give a number of seconds"] });
    expect(await lab(["inspect", "waited", "--wait", "5", "--server", s.url])).to.deep.include({ code: 2, err: ["netemu lab: --wait is not an option of inspect (netemu lab --help)"] });
  });

});

import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { type ComputeNode, attachNio, detachNio, replaceNio } from "../../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import type { UdpNio } from "../../../src/domain/switching/nio.js";
import { defaultPortsMapping } from "../../../src/domain/switching/port.js";
import { BROADCAST, eth } from "../switching/support.js";
import { type InMemoryDataPlane, inMemoryDataPlane } from "../../support/in-memory-data-plane.js";

const PROJECT = "11111111-2222-4333-8444-555555555556";
const NODE = "aaaaaaaa-0000-4000-8000-00000000f101";
const H1 = 0x020000000001;
const FILE = "/captures/port0.pcap";

const udpNio = (port: number, lport = 6000 + port): UdpNio => ({ type: "nio_udp", lport, rhost: "127.0.0.1", rport: 7000 + port, filters: {}, suspend: false });

function wired(): ComputeNode {
  let node: ComputeNode = createEthernetSwitch({ nodeId: NODE, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  for (const port of [0, 1]) {
    const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, port, udpNio(port));
    if (E.isLeft(attached)) throw new Error(attached.left._tag);
    node = attached.right;
  }
  return node;
}

function right<A>(e: E.Either<{ _tag: string }, A>): A {
  if (E.isLeft(e)) throw new Error(`expected Right, got ${e.left._tag}`);
  return e.right;
}

/**
 * What happens to a port between a capture's file being opened and its writer attached (ADR 0074): the
 * port may be closed, its node removed or handed over, the data plane closed, its NIO replaced. The
 * file is never left open: the writer is attached to the port as it then is, or closed and the caller
 * told why.
 */
describe("a capture whose port changes while its file is being opened (SwitchDataPlane, in memory)", () => {
  let w: InMemoryDataPlane;
  let node: ComputeNode;

  beforeEach(async () => {
    w = inMemoryDataPlane();
    node = wired();
    expect(E.isRight(await w.dp.sync(node))).to.equal(true);
    w.sink.hold();
  });

  it("closes the file and answers PortNotAllocated when the port's NIO is removed meanwhile", async () => {
    const starting = w.dp.start(NODE, 0, FILE);
    expect(E.isRight(await w.dp.sync(right(detachNio(node, 0))))).to.equal(true);
    w.sink.release();
    expect(await starting).to.deep.equal(E.left({ _tag: "PortNotAllocated", portNumber: 0 }));
    expect(w.sink.writerOf(FILE).closed, "the file is closed").to.equal(true);
    expect(await w.dp.fileOf(NODE, 0)).to.equal(undefined);
  });

  it("closes the file and answers PortNotAllocated when the node is removed meanwhile", async () => {
    const starting = w.dp.start(NODE, 0, FILE);
    await w.dp.removeNode(NODE);
    w.sink.release();
    expect(await starting).to.deep.equal(E.left({ _tag: "PortNotAllocated", portNumber: 0 }));
    expect(w.sink.writerOf(FILE).closed).to.equal(true);
  });

  it("closes the file when the data plane closes meanwhile, and close() waits for it", async () => {
    const starting = w.dp.start(NODE, 0, FILE);
    let closed = false;
    const closing = w.dp.close().then(() => (closed = true));
    await new Promise((r) => setImmediate(r));
    expect(closed, "close() waits for the file being opened").to.equal(false);
    w.sink.release();
    await closing;
    expect(w.sink.writerOf(FILE).closed, "closed by the time close() answered").to.equal(true);
    expect(await starting).to.deep.equal(E.left({ _tag: "PortNotAllocated", portNumber: 0 }));
  });

  it("attaches the capture to the port's new NIO when the NIO is replaced meanwhile, and records its frames", async () => {
    const starting = w.dp.start(NODE, 0, FILE);
    const replaced = right(replaceNio(node, 0, udpNio(0, 6100)));
    expect(E.isRight(await w.dp.sync(replaced))).to.equal(true);
    w.sink.release();
    expect(await starting).to.deep.equal(E.right(undefined));
    const frame = eth(BROADCAST, H1, [], 46);
    w.transport.at(6100).fromPeer(frame);
    expect(w.sink.writerOf(FILE).frames).to.have.length(1);
    expect(await w.dp.fileOf(NODE, 0)).to.equal(FILE);
    await w.dp.stop(NODE, 0);
    expect(w.sink.writerOf(FILE).closed).to.equal(true);
  });

  it("refuses to hand the node over while the file is being opened (a capture is starting on it), then records", async () => {
    const starting = w.dp.start(NODE, 0, FILE);
    expect(await w.dp.handOver(NODE)).to.deep.equal(E.left({ _tag: "CaptureRunning", portNumber: 0 }));
    w.sink.release();
    expect(await starting).to.deep.equal(E.right(undefined));
    w.transport.at(6000).fromPeer(eth(BROADCAST, H1, [], 46));
    expect(w.sink.writerOf(FILE).frames).to.have.length(1);
    expect(w.transport.at(6001).sent, "and forwards, still here").to.have.length(1);
  });

  it("answers CaptureAlreadyActive to a second start while the first one's file is being opened, and opens no second file", async () => {
    const first = w.dp.start(NODE, 0, FILE);
    expect(await w.dp.start(NODE, 0, "/captures/again.pcap")).to.deep.equal(E.left({ _tag: "CaptureAlreadyActive", portNumber: 0 }));
    w.sink.release();
    expect(await first).to.deep.equal(E.right(undefined));
    expect(w.sink.writers.map((x) => x.path)).to.deep.equal([FILE]);
  });

  it("lets the port capture again after its file could not be opened", async () => {
    w.sink.refuse(FILE, "EACCES: permission denied");
    const refused = w.dp.start(NODE, 0, FILE);
    w.sink.release();
    expect(await refused).to.deep.equal(E.left({ _tag: "CaptureFileUnwritable", filePath: FILE, reason: "EACCES: permission denied" }));
    expect(await w.dp.start(NODE, 0, "/captures/other.pcap")).to.deep.equal(E.right(undefined));
  });
});

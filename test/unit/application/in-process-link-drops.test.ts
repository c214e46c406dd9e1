import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { InlineBpfCompiler } from "../../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { InProcessLinks } from "../../../src/adapters/transport/in-process-links.js";
import { SwitchDataPlane } from "../../../src/application/dataplane/switch-data-plane.js";
import { FilterPrograms } from "../../../src/application/filter-programs.js";
import { NotificationHub } from "../../../src/application/notification-hub.js";
import { attachNio, type ComputeNode } from "../../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../../src/domain/switching/port.js";
import { InMemoryCaptureSink, InMemoryHostDevices, InMemoryUdpTransport, ManualTime, RecordingLogger, TEST_DATA_PLANE_OPTIONS, constantRandomness } from "../../support/in-memory-data-plane.js";

const PROJECT = "77777777-3333-4444-8555-7777777730b1";
const broadcast = (n: number): Uint8Array => Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0x50, 0x79, 0x66, 0x68, n, 0x08, 0x00, n, ...new Array(45).fill(0)]);

function withNio(node: ComputeNode, portNumber: number, lport: number, rport: number): ComputeNode {
  const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, portNumber, { type: "nio_udp", lport, rhost: "127.0.0.1", rport, filters: {}, suspend: false });
  if (E.isLeft(attached)) throw new Error(attached.left._tag);
  return attached.right;
}

describe("an in-process link's receive buffer in the data plane (ADR 0105)", () => {
  it("drops what one turn sends beyond the receiving port's buffer, counted on that port as receive_buffer, and passes the rest on", async () => {
    const time = new ManualTime();
    const sockets = new InMemoryUdpTransport(time);
    const turns: (() => void)[] = [];
    // Room for 5 frames of 60 bytes; the rounds and the next turns run by hand.
    const links = new InProcessLinks(sockets, { bindHost: "127.0.0.1", receiveBufferBytes: 300 }, { soon: (f) => void turns.push(f), defer: (f) => void turns.push(f), later: () => () => undefined });
    const dp = new SwitchDataPlane(links, new InMemoryCaptureSink(), time, time, constantRandomness(0.5), new FilterPrograms(new InlineBpfCompiler()), new RecordingLogger(), TEST_DATA_PLANE_OPTIONS, new NotificationHub(), new InMemoryHostDevices());
    const make = (nodeId: string) => createEthernetSwitch({ nodeId, projectId: PROJECT, name: nodeId.slice(-3), console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
    const sw1 = withNio(withNio(make("aaaaaaaa-0000-4000-8000-000000000301"), 0, 4000, 5000), 1, 4001, 4002);
    const sw2 = withNio(withNio(make("aaaaaaaa-0000-4000-8000-000000000302"), 1, 4002, 4001), 0, 4003, 5003);
    expect(E.isRight(await dp.sync(sw1))).to.equal(true);
    expect(E.isRight(await dp.sync(sw2))).to.equal(true);
    // The pairing's barriers, through the sockets (the kernel's part, played here).
    sockets.at(4002).fromPeer(sockets.at(4001).sent[0] as Uint8Array);
    sockets.at(4001).fromPeer(sockets.at(4002).sent[0] as Uint8Array);

    for (let n = 0; n < 8; n++) sockets.at(4000).fromPeer(broadcast(n));
    for (const turn of turns.splice(0)) turn();

    const into = (await dp.counters(sw2.nodeId)).get(1);
    expect([into?.framesIn, into?.drops["receive_buffer"]]).to.deep.equal([8, 3]);
    expect((await dp.counters(sw1.nodeId)).get(1)?.framesOut).to.equal(8);
    expect(sockets.at(4003).sent.map((f) => f[14])).to.deep.equal([0, 1, 2, 3, 4]);
    expect(sockets.at(4001).sent, "the link's socket sent its barrier only").to.have.length(1);
    await dp.close();
  });
});

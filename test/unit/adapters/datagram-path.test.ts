import { expect } from "chai";
import { chooseDatagramPath, datagramOptions } from "../../../src/adapters/transport/datagram-path.js";
import type { UdpTransport } from "../../../src/application/ports/udp-transport.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";

/** A transport that is only ever compared by identity here: no socket is opened. */
const aTransport = (): UdpTransport => ({}) as UdpTransport;

describe("the datagram path netemu's UDP NIOs run on (ADR 0068, 0078)", () => {
  it("binds the API's own address, a name as its IPv4 address, with the same buffer both ways", () => {
    expect(datagramOptions("localhost", 4096)).to.deep.equal({ bindHost: "127.0.0.1", receiveBufferBytes: 4096, sendBufferBytes: 4096 });
    expect(datagramOptions("::", 1).bindHost).to.equal("::");
    expect(datagramOptions("0.0.0.0", 1).bindHost).to.equal("0.0.0.0");
    expect(datagramOptions("192.0.2.7", 1).bindHost).to.equal("192.0.2.7");
  });

  it("runs on the host's own transport when it gives one, chooses nothing and says nothing", () => {
    const logger = new RecordingLogger();
    const own = aTransport();
    let chose = false;
    const path = chooseDatagramPath(own, datagramOptions("127.0.0.1", 1), logger, () => {
      chose = true;
      return { transport: aTransport(), path: { kind: "batched", coalescingMicroseconds: 0 } };
    });
    expect(path.transport).to.equal(own);
    expect(path.path).to.deep.equal({ kind: "host" });
    expect(chose).to.equal(false);
    expect(logger.lines).to.deep.equal([]);
  });

  it("says at start which path it chose, and why not the batched one", () => {
    const logger = new RecordingLogger();
    const batched = chooseDatagramPath(undefined, datagramOptions("127.0.0.1", 1), logger, () => ({ transport: aTransport(), path: { kind: "batched", coalescingMicroseconds: 0 } }));
    const dgram = chooseDatagramPath(undefined, datagramOptions("127.0.0.1", 1), logger, () => ({ transport: aTransport(), path: { kind: "dgram", reason: "NETEMU_UDP_PATH=dgram" } }));
    expect(batched.path).to.deep.equal({ kind: "batched", coalescingMicroseconds: 0 });
    expect(dgram.path).to.deep.equal({ kind: "dgram", reason: "NETEMU_UDP_PATH=dgram" });
    expect(logger.lines).to.deep.equal([
      { level: "info", msg: "datagram path: batched (recvmmsg/sendmmsg addon)", fields: undefined },
      { level: "info", msg: "datagram path: node:dgram", fields: { reason: "NETEMU_UDP_PATH=dgram" } },
    ]);
  });

  it("says the batched path's receive coalescing interval at start when it is on (ADR 0110)", () => {
    const logger = new RecordingLogger();
    chooseDatagramPath(undefined, datagramOptions("127.0.0.1", 1), logger, () => ({ transport: aTransport(), path: { kind: "batched", coalescingMicroseconds: 200 } }));
    expect(logger.lines).to.deep.equal([{ level: "info", msg: "datagram path: batched (recvmmsg/sendmmsg addon)", fields: { receiveCoalescingMicroseconds: 200 } }]);
  });
});

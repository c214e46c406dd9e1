/**
 * Run by test/integration/batched-udp-transport.test.ts inside a network namespace whose loopback has
 * an MTU of 1,400 (unshare -rn): sends runs of frames through the batched transport to a node:dgram
 * peer and prints, as one JSON line, the lengths the peer received and whether each was byte-exact.
 * Frames of 1,450 bytes cannot be cut by UDP GSO under that MTU (the kernel refuses the message);
 * as single datagrams the kernel fragments them, as it does on the dgram path.
 */
import { createSocket } from "node:dgram";
import * as E from "fp-ts/lib/Either.js";
import { BatchedUdpTransport, loadUdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";

const peer = createSocket("udp4");
await new Promise<void>((resolve) => peer.bind(0, "127.0.0.1", resolve));
const turns: Buffer[][] = [
  [...Array.from({ length: 10 }, (_, i) => Buffer.alloc(1450, i)), ...Array.from({ length: 20 }, (_, i) => Buffer.alloc(64, 100 + i))],
  Array.from({ length: 5 }, (_, i) => Buffer.alloc(1450, 200 + i)),
];
const expected = turns.flat();
const got: Buffer[] = [];
const all = new Promise<void>((resolve) => {
  peer.on("message", (m) => {
    got.push(m);
    if (got.length === expected.length) resolve();
  });
});
const transport = new BatchedUdpTransport({ bindHost: "127.0.0.1", receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20 }, loadUdpBatchAddon());
const probe = createSocket("udp4");
await new Promise<void>((resolve) => probe.bind(0, "127.0.0.1", resolve));
const lport = probe.address().port;
await new Promise<void>((resolve) => probe.close(() => resolve()));
const opened = await transport.open({ lport, rhost: "127.0.0.1", rport: peer.address().port, onFrame: () => undefined });
if (E.isLeft(opened)) throw new Error(opened.left);
for (const turn of turns) {
  for (const f of turn) opened.right.send(f);
  await new Promise((resolve) => setTimeout(resolve, 20));
}
let timer: NodeJS.Timeout | undefined;
await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
clearTimeout(timer);
process.stdout.write(`${JSON.stringify({ lengths: got.map((m) => m.length), exact: got.map((m, i) => expected[i] !== undefined && m.equals(expected[i])) })}\n`);
await opened.right.close();
peer.close();

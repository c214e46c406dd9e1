// Run by test/unit/adapters/udp-port-pool.test.ts under a low `ulimit -n`: takes every file
// descriptor left, then asks the real pool for a port, and prints what it answered and how long it took.
import { openSync } from "node:fs";
import { DgramUdpPortPool } from "../../src/adapters/transport/udp-port-pool.js";

const held: number[] = [];
try {
  for (;;) held.push(openSync("/dev/null", "r"));
} catch {
  // EMFILE: the process is out of descriptors, as a busy server can be.
}
const [start, end] = [Number(process.argv[2]), Number(process.argv[3])];
const began = process.hrtime.bigint();
const answer = await new DgramUdpPortPool(start, end, "127.0.0.1").reserve("p");
const ms = Number(process.hrtime.bigint() - began) / 1e6;
process.stdout.write(JSON.stringify({ answer, ms, descriptorsTaken: held.length }) + "\n");

import { loadUdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";

/**
 * Run by test/hardening/udp-batch-addon.test.ts inside a network namespace whose link holds its frames
 * (a slow tbf queue), so the socket's small send buffer fills: gives the addon two batches of 200
 * frames of 1,400 bytes and prints how many of each it says the kernel took, as JSON.
 */
const [bind, peer] = process.argv.slice(2) as [string, string];
const addon = loadUdpBatchAddon();
const handle = addon.open(4, bind, 0, peer, 9, 0, 4096, () => undefined, () => undefined);
const frames = Array.from({ length: 200 }, (_, i) => Buffer.alloc(1400, i));
const first = addon.send(handle, frames);
const second = addon.send(handle, frames);
addon.close(handle);
console.log(JSON.stringify({ first, second }));

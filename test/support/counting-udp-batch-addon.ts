import { loadUdpBatchAddon, type UdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";
import { isPairingBarrier } from "./pairing-barrier.js";
import { publishSendCounts } from "./send-counts-file.js";

/*
 * The batched path's addon, counting the frames each socket gives the kernel (by local port; a pairing's
 * barrier is not one) into
 * `<NETEMU_TEST_SENDS_FILE>.<thread id>.batched` (JSON), every 20 ms; loaded in its place through
 * NETEMU_UDP_ADDON (send-counting-data-plane-worker.ts). Its exports are the addon's surface.
 */
const real = loadUdpBatchAddon({});
const lports = new WeakMap<object, number>();
const sent: Record<number, number> = {};
publishSendCounts(sent, "batched");

const known = (handle: unknown, lport: number): unknown => {
  lports.set(handle as object, lport);
  return handle;
};

export const open: UdpBatchAddon["open"] = (...args) => known(real.open(...args), args[2]);
export const adopt: UdpBatchAddon["adopt"] = (...args) => known(real.adopt(...args), args[2]);
export const send: UdpBatchAddon["send"] = (handle, frames) => {
  const lport = lports.get(handle as object);
  if (lport !== undefined) sent[lport] = (sent[lport] ?? 0) + frames.filter((f) => !isPairingBarrier(f)).length;
  return real.send(handle, frames);
};
export const close: UdpBatchAddon["close"] = (handle) => real.close(handle);
export const detach: UdpBatchAddon["detach"] = (handle) => real.detach(handle);
export const openTap: UdpBatchAddon["openTap"] = (...args) => real.openTap(...args);
export const openEthernet: UdpBatchAddon["openEthernet"] = (...args) => real.openEthernet(...args);
export const adoptDevice: UdpBatchAddon["adoptDevice"] = (...args) => real.adoptDevice(...args);
export const setCoalescing: UdpBatchAddon["setCoalescing"] = (us) => real.setCoalescing(us);
export const coalescing: UdpBatchAddon["coalescing"] = () => real.coalescing();
export const doorbell: UdpBatchAddon["doorbell"] = (onRing) => real.doorbell(onRing);
export const ring: UdpBatchAddon["ring"] = (id) => real.ring(id);

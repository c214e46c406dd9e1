/** A pairing's barrier datagram (ADR 0105, in-process-links.ts): not a frame, so the tests counting a socket's frames leave it out. */
export function isPairingBarrier(datagram: Uint8Array): boolean {
  return datagram.length === 32 && Buffer.from(datagram.buffer, datagram.byteOffset, 16).toString("latin1") === "netemu:barrier:1";
}

import { createSocket, type Socket } from "node:dgram";

const mac = (m: string) => Buffer.from(m.split(":").map((h) => Number.parseInt(h, 16)));
const ip = (a: string) => Buffer.from(a.split(".").map(Number));

function checksum(b: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 1 < b.length; i += 2) sum += b.readUInt16BE(i);
  if (b.length % 2 === 1) sum += (b[b.length - 1] as number) << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/**
 * "An emulator outside": a UDP socket on 127.0.0.1 that is a minimal IPv4 host on the far end of a
 * cloud's UDP tunnel (one Ethernet frame a datagram, as every GNS3 emulator sends them). It answers
 * ARP requests for its address and ICMP echo requests to it, and records every frame it gets.
 */
export class OutsideHost {
  readonly frames: Buffer[] = [];
  readonly echoRequests: Buffer[] = [];
  private peer: { port: number; address: string } | undefined;

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
    readonly macAddress: string,
    readonly ipAddress: string,
  ) {
    socket.on("message", (frame, from) => {
      this.peer = { port: from.port, address: from.address };
      this.frames.push(frame);
      this.answer(frame);
    });
  }

  static async open(macAddress = "02:00:00:00:00:99", ipAddress = "10.0.0.9"): Promise<OutsideHost> {
    const socket = createSocket("udp4");
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(0, "127.0.0.1", () => resolve());
    });
    return new OutsideHost(socket, socket.address().port, macAddress, ipAddress);
  }

  /** Sends a frame to the tunnel's far end (the cloud's lport). */
  send(frame: Buffer, port: number): Promise<void> {
    return new Promise((resolve, reject) => this.socket.send(frame, port, "127.0.0.1", (err) => (err ? reject(err) : resolve())));
  }

  /** An ARP request from this host for `target`. */
  arpRequest(target: string): Buffer {
    const arp = Buffer.concat([Buffer.from([0, 1, 8, 0, 6, 4, 0, 1]), mac(this.macAddress), ip(this.ipAddress), Buffer.alloc(6), ip(target)]);
    return Buffer.concat([mac("ff:ff:ff:ff:ff:ff"), mac(this.macAddress), Buffer.from([0x08, 0x06]), arp, Buffer.alloc(18)]);
  }

  /** The ARP replies this host received for `from` (an address's owner telling its MAC). */
  arpRepliesFrom(from: string): Buffer[] {
    return this.frames.filter((f) => f.readUInt16BE(12) === 0x0806 && f.readUInt16BE(20) === 2 && f.subarray(28, 32).equals(ip(from)));
  }

  private reply(frame: Buffer): void {
    if (this.peer !== undefined) this.socket.send(frame, this.peer.port, this.peer.address);
  }

  private answer(f: Buffer): void {
    if (f.length < 42) return;
    const type = f.readUInt16BE(12);
    if (type === 0x0806 && f.readUInt16BE(20) === 1 && f.subarray(38, 42).equals(ip(this.ipAddress))) {
      const asker = f.subarray(22, 28);
      const askerIp = f.subarray(28, 32);
      const arp = Buffer.concat([Buffer.from([0, 1, 8, 0, 6, 4, 0, 2]), mac(this.macAddress), ip(this.ipAddress), asker, askerIp]);
      this.reply(Buffer.concat([asker, mac(this.macAddress), Buffer.from([0x08, 0x06]), arp, Buffer.alloc(18)]));
      return;
    }
    if (type !== 0x0800 || f[23] !== 1 || !f.subarray(30, 34).equals(ip(this.ipAddress))) return;
    const ihl = ((f[14] as number) & 0x0f) * 4;
    const icmp = 14 + ihl;
    if (f[icmp] !== 8) return;
    this.echoRequests.push(f);
    const out = Buffer.from(f);
    f.copy(out, 0, 6, 12);
    f.copy(out, 6, 0, 6);
    f.copy(out, 26, 30, 34);
    f.copy(out, 30, 26, 30);
    out.writeUInt16BE(0, 24);
    out.writeUInt16BE(checksum(out.subarray(14, 14 + ihl)), 24);
    const totalLength = out.readUInt16BE(16);
    out[icmp] = 0;
    out.writeUInt16BE(0, icmp + 2);
    out.writeUInt16BE(checksum(out.subarray(icmp, 14 + totalLength)), icmp + 2);
    this.reply(out);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

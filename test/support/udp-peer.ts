import { createSocket, type Socket } from "node:dgram";

const PEER_RECEIVE_BUFFER = 4 << 20;

/** A host at the far end of a NIO: a UDP socket on 127.0.0.1 that records what it receives. */
export class UdpPeer {
  readonly received: Buffer[] = [];
  /** performance.now() of each frame's arrival (same index as `received`). */
  readonly receivedAtMs: number[] = [];
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: Socket, readonly port: number) {
    socket.on("message", (msg) => {
      this.received.push(msg);
      this.receivedAtMs.push(performance.now());
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(port = 0): Promise<UdpPeer> {
    // 4 MiB as netemu's own sockets ask (capped at net.core.rmem_max): with the kernel's default 208 KiB a
    // thread descheduled for a few ms drops the burst netemu sends as it catches up (CI: 25 of 3,000).
    const socket = createSocket({ type: "udp4", recvBufferSize: PEER_RECEIVE_BUFFER });
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, "127.0.0.1", () => resolve());
    });
    return new UdpPeer(socket, socket.address().port);
  }

  send(frame: Uint8Array, port: number): Promise<void> {
    return new Promise((resolve, reject) => this.socket.send(frame, port, "127.0.0.1", (err) => (err ? reject(err) : resolve())));
  }

  /** Waits until `count` frames have arrived, or fails after `ms`. */
  async waitFor(count: number, ms = 2000): Promise<Buffer[]> {
    const deadline = Date.now() + ms;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} frames on port ${this.port}, got ${this.received.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received;
  }

  /** Gives in-flight datagrams a moment, then says how many arrived. */
  async settle(ms = 100): Promise<number> {
    await new Promise((r) => setTimeout(r, ms));
    return this.received.length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

/** An Ethernet frame: dst, src (6 bytes each as "aa:bb:..."), optional 802.1Q tags, ethertype, payload. */
export function ethernetFrame(dst: string, src: string, opts: { tags?: { tpid: number; vid: number }[]; ethertype?: number; payload?: number } = {}): Buffer {
  const mac = (m: string) => Buffer.from(m.split(":").map((h) => Number.parseInt(h, 16)));
  const tags = (opts.tags ?? []).map((t) => {
    const b = Buffer.alloc(4);
    b.writeUInt16BE(t.tpid, 0);
    b.writeUInt16BE(t.vid & 0x0fff, 2);
    return b;
  });
  const type = Buffer.alloc(2);
  type.writeUInt16BE(opts.ethertype ?? 0x0800, 0);
  const payload = Buffer.alloc(opts.payload ?? 46, 0xab);
  return Buffer.concat([mac(dst), mac(src), ...tags, type, payload]);
}

/** A UDP port on 127.0.0.1 that was free a moment ago (bound, read, closed): a NIO's lport in a test. */
export async function freeUdpPort(): Promise<number> {
  const peer = await UdpPeer.open();
  await peer.close();
  return peer.port;
}

import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { CaptureSink, CaptureWriter } from "../../application/ports/capture-sink.js";

const SNAPLEN = 65535;
const LINKTYPE_ETHERNET = 1;

/** The 24-byte classic pcap header: magic a1b2c3d4 (µs), version 2.4, snaplen 65535, Ethernet. */
export function pcapGlobalHeader(): Buffer {
  const h = Buffer.alloc(24);
  h.writeUInt32LE(0xa1b2c3d4, 0);
  h.writeUInt16LE(2, 4);
  h.writeUInt16LE(4, 6);
  h.writeInt32LE(0, 8);
  h.writeUInt32LE(0, 12);
  h.writeUInt32LE(SNAPLEN, 16);
  h.writeUInt32LE(LINKTYPE_ETHERNET, 20);
  return h;
}

export function pcapRecord(frame: Uint8Array, timestampMs: number): Buffer {
  const caplen = Math.min(frame.length, SNAPLEN);
  const record = Buffer.allocUnsafe(16 + caplen);
  const micros = Math.round(timestampMs * 1000);
  record.writeUInt32LE(Math.floor(micros / 1e6), 0);
  record.writeUInt32LE(micros % 1e6, 4);
  record.writeUInt32LE(caplen, 8);
  record.writeUInt32LE(frame.length, 12);
  record.set(frame.subarray(0, caplen), 16);
  return record;
}

/**
 * Appends records in order through one write chain; each record is written as soon as the
 * previous one is, so a reader following the growing file (GET .../pcap) sees frames promptly.
 */
class PcapFileWriter implements CaptureWriter {
  private chain: Promise<unknown>;
  private closed = false;

  constructor(private readonly file: FileHandle) {
    this.chain = file.write(pcapGlobalHeader());
  }

  write(frame: Uint8Array, timestampMs: number): void {
    if (this.closed) return;
    const record = pcapRecord(frame, timestampMs);
    this.chain = this.chain.then(() => this.file.write(record)).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.chain.catch(() => undefined);
    await this.file.close();
  }
}

export class PcapFileSink implements CaptureSink {
  async open(filePath: string): Promise<E.Either<string, CaptureWriter>> {
    try {
      await mkdir(dirname(filePath), { recursive: true });
      const file = await open(filePath, "w", 0o644);
      return E.right(new PcapFileWriter(file));
    } catch (err) {
      return E.left((err as Error).message);
    }
  }
}

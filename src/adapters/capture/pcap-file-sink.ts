import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { CaptureSink, CaptureWriter } from "../../application/ports/capture-sink.js";

const SNAPLEN = 65535;
const LINKTYPE_ETHERNET = 1;

/** The 24-byte classic pcap header: magic a1b2c3d4 (µs), version 2.4, snaplen 65535, Ethernet. */
function pcapGlobalHeader(): Buffer {
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

function pcapRecord(frame: Uint8Array, timestampMs: number): Buffer {
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

/** Records waiting for the disk beyond this are dropped (and counted), so a slow disk cannot eat memory. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/**
 * Appends records in order. Records that arrive while a write is in progress are gathered and
 * written together by the next single write, so under load the file gets one write per batch, not
 * one per frame, and close() has at most one batch to flush. A reader following the growing file
 * (GET .../pcap) sees frames promptly.
 */
class PcapFileWriter implements CaptureWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private writing: Promise<void> | undefined;
  private closed = false;
  /** Set once a write failed: nothing more is written, the file handle waits for close(). */
  private failed = false;
  /** Records dropped because the disk fell more than MAX_PENDING_BYTES behind. */
  dropped = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly onFailure: ((reason: string) => void) | undefined,
  ) {
    this.enqueue(pcapGlobalHeader());
  }

  write(frame: Uint8Array, timestampMs: number): void {
    if (this.closed || this.failed) return;
    if (this.pendingBytes > MAX_PENDING_BYTES) {
      this.dropped++;
      return;
    }
    this.enqueue(pcapRecord(frame, timestampMs));
  }

  private enqueue(record: Buffer): void {
    this.pending.push(record);
    this.pendingBytes += record.length;
    this.writing ??= this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = Buffer.concat(this.pending, this.pendingBytes);
        this.pending = [];
        this.pendingBytes = 0;
        await this.file.write(batch);
      }
    } catch (err) {
      // A full or vanished disk ends the capture's writes, never the data plane.
      this.pending = [];
      this.pendingBytes = 0;
      if (!this.failed && !this.closed) this.onFailure?.((err as Error).message);
      this.failed = true;
    } finally {
      this.writing = undefined;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.writing !== undefined) await this.writing;
    await this.file.close();
  }
}

export class PcapFileSink implements CaptureSink {
  async open(filePath: string, onFailure?: (reason: string) => void): Promise<E.Either<string, CaptureWriter>> {
    try {
      await mkdir(dirname(filePath), { recursive: true });
      const file = await open(filePath, "w", 0o644);
      return E.right(new PcapFileWriter(file, onFailure));
    } catch (err) {
      return E.left((err as Error).message);
    }
  }
}

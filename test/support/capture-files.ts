import { readFile, readdir, readlink } from "node:fs/promises";

/** One record of a classic little-endian pcap: its timestamp (ns since the epoch) and its bytes. */
export interface PcapRecord {
  readonly atNs: bigint;
  readonly data: Buffer;
}

/** The records of a classic little-endian pcap, µs (as netemu writes it) or ns (tcpdump --time-stamp-precision=nano). */
export function pcapRecords(file: Buffer, name: string): PcapRecord[] {
  const magic = file.length < 24 ? 0 : file.readUInt32LE(0);
  if (magic !== 0xa1b2c3d4 && magic !== 0xa1b23c4d) throw new Error(`${name} is not a classic pcap file (${file.length} bytes)`);
  const fractionNs = magic === 0xa1b23c4d ? 1n : 1000n;
  const records: PcapRecord[] = [];
  let offset = 24;
  while (offset + 16 <= file.length) {
    const caplen = file.readUInt32LE(offset + 8);
    // A record cut short is a write still under way: what precedes it is the file's content.
    if (offset + 16 + caplen > file.length) break;
    const atNs = BigInt(file.readUInt32LE(offset)) * 1_000_000_000n + BigInt(file.readUInt32LE(offset + 4)) * fractionNs;
    records.push({ atNs, data: file.subarray(offset + 16, offset + 16 + caplen) });
    offset += 16 + caplen;
  }
  return records;
}

/** The frames of a classic little-endian pcap file as netemu writes it (µs, Ethernet), in order. */
export async function pcapFrames(path: string): Promise<Buffer[]> {
  const file = await readFile(path);
  if (file.length >= 4 && file.readUInt32LE(0) !== 0xa1b2c3d4) throw new Error(`${path} is not a classic µs pcap file (${file.length} bytes)`);
  return pcapRecords(file, path).map((r) => r.data);
}

/**
 * What this process's open file descriptors point at that ends in `.pcap` (a deleted file reads
 * "<path> (deleted)"), under `dir` when given. Worker threads share the process's descriptors, so
 * a capture file a data-plane worker left open shows here too.
 */
export async function openPcapFiles(dir?: string): Promise<string[]> {
  const found: string[] = [];
  for (const fd of await readdir("/proc/self/fd")) {
    let target: string;
    try {
      target = await readlink(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed since the listing
    }
    const path = target.replace(/ \(deleted\)$/, "");
    if (path.endsWith(".pcap") && (dir === undefined || path.startsWith(dir))) found.push(target);
  }
  return found.sort();
}

/** Waits (bounded) until no descriptor points at a `.pcap` under `dir`; what is still open then. */
export async function pcapFilesStillOpen(dir: string, withinMs = 2000): Promise<string[]> {
  const deadline = Date.now() + withinMs;
  let open = await openPcapFiles(dir);
  while (open.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    open = await openPcapFiles(dir);
  }
  return open;
}

/**
 * `netemu bpf`: which frames of a classic pcap capture each pcap-filter expression matches.
 *
 *   netemu bpf 'EXPRESSION' CAPTURE.pcap
 *   netemu bpf -f EXPRESSIONS_FILE CAPTURE.pcap
 *
 * For each expression (one per line of the file; `#` starts a comment to the end of the line, as in tcpdump's
 * -F file; blank lines are ignored) it prints the expression, a tab, then the comma-separated 1-based numbers of
 * the matching frames, or `ERROR: <message>` if the expression is refused. `--help` prints the help and exits 0.
 * Exit status: 0 when every expression compiled, 2 otherwise (and 2 with a usage message on bad arguments or
 * an unreadable capture). Frames are matched on their captured bytes; `len` is the original length.
 */
import { readFile } from "node:fs/promises";
import * as E from "fp-ts/lib/Either.js";
import { compileCaptureMatcher } from "../../domain/bpf/index.js";
import { terminalText } from "./terminal-text.js";

const USAGE = [
  "usage: netemu bpf 'EXPRESSION' CAPTURE.pcap",
  "       netemu bpf -f EXPRESSIONS_FILE CAPTURE.pcap",
];

const HELP = [
  ...USAGE,
  "",
  "Prints, for each pcap-filter expression, the expression, a tab, and the 1-based numbers of the frames of",
  "CAPTURE.pcap (classic pcap, Ethernet) that it matches, comma-separated, or 'ERROR: <message>' when the",
  "expression is refused. Frames are matched on their captured bytes; 'len' is their length on the wire.",
  "",
  "  -f FILE   one expression per line; blank lines are ignored, and '#' starts a comment that runs to the",
  "            end of its line, wherever it is (as in a tcpdump -F file; '#' is never part of an expression)",
  "  --help    print this help",
  "",
  "Exit status: 0 when every expression compiled, 2 when one was refused or on bad arguments or files.",
  "The language: docs/bpf.md; where netemu differs from libpcap: docs/bpf-differences.md.",
];

/** The expressions of a -f file: `#` comments removed (tcpdump -F's rule), blank lines skipped. */
function expressionsOfFile(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.replace(/\r$/, ""))
    .map((l) => {
      const hash = l.indexOf("#");
      return (hash < 0 ? l : l.slice(0, hash)).trim();
    })
    .filter((l) => l !== "");
}

interface PcapRecord {
  /** the captured bytes */
  readonly data: Uint8Array;
  /** the frame's original length on the wire */
  readonly wireLength: number;
}

interface PcapCapture {
  readonly linkType: number;
  readonly records: readonly PcapRecord[];
  /** set when the file ends in the middle of a record */
  readonly truncated: boolean;
}

const MAGIC_MICRO = 0xa1b2c3d4;
const MAGIC_NANO = 0xa1b23c4d;

/** Parses a classic pcap file (either byte order, microsecond or nanosecond timestamps). */
function parsePcap(bytes: Uint8Array): E.Either<string, PcapCapture> {
  if (bytes.length < 24) return E.left("not a pcap file (shorter than a pcap header)");
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let little: boolean;
  const magicLe = dv.getUint32(0, true);
  if (magicLe === MAGIC_MICRO || magicLe === MAGIC_NANO) little = true;
  else {
    const magicBe = dv.getUint32(0, false);
    if (magicBe === MAGIC_MICRO || magicBe === MAGIC_NANO) little = false;
    else if (magicBe === 0x0a0d0d0a) return E.left("pcapng files are not supported; convert with: editcap -F pcap IN OUT");
    else return E.left("not a pcap file (unknown magic number)");
  }
  const linkType = dv.getUint32(20, little) & 0x0fffffff;
  const records: PcapRecord[] = [];
  let off = 24;
  let truncated = false;
  while (off < bytes.length) {
    if (off + 16 > bytes.length) {
      truncated = true;
      break;
    }
    const caplen = dv.getUint32(off + 8, little);
    const wireLength = dv.getUint32(off + 12, little);
    if (off + 16 + caplen > bytes.length) {
      truncated = true;
      break;
    }
    records.push({ data: bytes.subarray(off + 16, off + 16 + caplen), wireLength });
    off += 16 + caplen;
  }
  return E.right({ linkType, records, truncated });
}

export async function runBpfCommand(
  args: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  let expressions: string[];
  let capturePath: string;
  if (args.includes("--help") || args.includes("-h")) {
    HELP.forEach(out);
    return 0;
  }
  if (args[0] === "-f" && args.length === 3) {
    const file = args[1] as string;
    capturePath = args[2] as string;
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (e) {
      err(`netemu bpf: cannot read ${terminalText(file)}: ${terminalText((e as Error).message)}`);
      USAGE.forEach(err);
      return 2;
    }
    expressions = expressionsOfFile(text);
  } else if (args.length === 2 && args[0] !== "-f") {
    expressions = [args[0] as string];
    capturePath = args[1] as string;
  } else {
    USAGE.forEach(err);
    return 2;
  }

  let raw: Uint8Array;
  try {
    raw = new Uint8Array(await readFile(capturePath));
  } catch (e) {
    err(`netemu bpf: cannot read ${terminalText(capturePath)}: ${terminalText((e as Error).message)}`);
    USAGE.forEach(err);
    return 2;
  }
  const parsed = parsePcap(raw);
  if (E.isLeft(parsed)) {
    err(`netemu bpf: ${terminalText(capturePath)}: ${parsed.left}`);
    return 2;
  }
  const capture = parsed.right;
  if (capture.linkType !== 1) {
    err(`netemu bpf: ${terminalText(capturePath)}: link type ${capture.linkType} is not supported (only 1, Ethernet)`);
    return 2;
  }
  if (capture.truncated) err(`netemu bpf: ${terminalText(capturePath)}: truncated capture, the last record is ignored`);

  let status = 0;
  for (const expression of expressions) {
    const compiled = compileCaptureMatcher(expression);
    if (E.isLeft(compiled)) {
      out(`${terminalText(expression, "kept")}\tERROR: ${terminalText(compiled.left.message, "kept")}`);
      status = 2;
      continue;
    }
    const matcher = compiled.right;
    const numbers: number[] = [];
    capture.records.forEach((r, i) => {
      if (matcher(r.data, r.wireLength)) numbers.push(i + 1);
    });
    out(`${terminalText(expression, "kept")}\t${numbers.join(",")}`);
  }
  return status;
}

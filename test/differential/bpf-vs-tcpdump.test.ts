/**
 * Differential test: netemu's pcap-filter compiler against libpcap, through tcpdump.
 *
 * A seeded pcap of a few thousand varied frames is written to a temporary directory; for every expression
 * of bpf-corpus.txt, `tcpdump -r` tells which frames libpcap matches (or that it refuses the expression)
 * and netemu's matcher must say the same. The only differences allowed are the ones listed, with their
 * reason, in docs/bpf-differences.md.
 */
import { expect } from "chai";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { compileCaptureMatcher } from "../../src/domain/bpf/index.js";
import type { CapturedFrame } from "../support/bpf-frames.js";
import { generateChainAndTunnelFrames, generateFrames, writePcap } from "../support/bpf-frames.js";

/** BPF_DIFF_FRAMES / BPF_DIFF_SEED override the capture (to explore beyond the default one). */
const FRAME_COUNT = Number(process.env["BPF_DIFF_FRAMES"] ?? 4000);
const SEED = Number(process.env["BPF_DIFF_SEED"] ?? 20240601);
/** frames with header chains and Geneve tunnels, after the general mix */
const CHAIN_FRAME_COUNT = Math.ceil(FRAME_COUNT / 4);
const CONCURRENCY = 4;
const FIRST_SECOND = 1_700_000_000;
const repoRoot = new URL("../../../", import.meta.url);

interface Verdict {
  readonly accepted: boolean;
  readonly matches: readonly number[];
  readonly message: string;
}

function readCorpus(): string[] {
  const text = readFileSync(new URL("test/differential/bpf-corpus.txt", repoRoot), "utf8");
  return text.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
}

/** Expressions listed in docs/bpf-differences.md as "- `expression` — reason". */
function documentedDifferences(): Set<string> {
  const text = readFileSync(new URL("docs/bpf-differences.md", repoRoot), "utf8");
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    const m = /^- `(.*)` — /.exec(line);
    if (m?.[1] !== undefined) out.add(m[1]);
  }
  return out;
}

function runTcpdump(pcap: string, expression: string): Promise<Verdict> {
  return new Promise((resolve, reject) => {
    execFile(
      "tcpdump",
      ["-nn", "-q", "-tt", "-r", pcap, "--", expression],
      { timeout: 20_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && (error as NodeJS.ErrnoException).code === "ENOENT") {
          reject(error);
          return;
        }
        const message = stderr
          .split("\n")
          .filter((l) => l.startsWith("tcpdump: "))
          .map((l) => l.slice("tcpdump: ".length))
          .join("; ");
        if (error !== null) {
          resolve({ accepted: false, matches: [], message });
          return;
        }
        const matches: number[] = [];
        for (const line of stdout.split("\n")) {
          // frame i (0-based) was written with the timestamp FIRST_SECOND + i (see writePcap)
          const m = /^(\d+)\.\d{6} /.exec(line);
          if (m !== null) matches.push(Number(m[1]) - FIRST_SECOND + 1);
        }
        resolve({ accepted: true, matches, message: "" });
      },
    );
  });
}

function runNetemu(frames: readonly CapturedFrame[], expression: string): Verdict {
  const compiled = compileCaptureMatcher(expression);
  if (E.isLeft(compiled)) return { accepted: false, matches: [], message: compiled.left.message };
  const matcher = compiled.right;
  const matches: number[] = [];
  frames.forEach((f, i) => {
    if (matcher(f.data, f.wireLength)) matches.push(i + 1);
  });
  return { accepted: true, matches, message: "" };
}

function describeDifference(expression: string, lib: Verdict, ours: Verdict): string | undefined {
  if (!lib.accepted && !ours.accepted) return undefined;
  if (lib.accepted !== ours.accepted) {
    return lib.accepted ? `netemu refuses it (${ours.message}), libpcap accepts it` : `libpcap refuses it (${lib.message}), netemu accepts it`;
  }
  const a = new Set(lib.matches);
  const b = new Set(ours.matches);
  const onlyLib = lib.matches.filter((n) => !b.has(n));
  const onlyOurs = ours.matches.filter((n) => !a.has(n));
  if (onlyLib.length === 0 && onlyOurs.length === 0) return undefined;
  return `frames only libpcap matches: [${onlyLib.slice(0, 10).join(",")}${onlyLib.length > 10 ? ",..." : ""}], frames only netemu matches: [${onlyOurs.slice(0, 10).join(",")}${onlyOurs.length > 10 ? ",..." : ""}]`;
  void expression;
}

async function pool<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

describe("netemu's BPF compiler against libpcap (tcpdump -r)", function () {
  this.timeout(180_000);
  let dir = "";

  before(function () {
    const probe = spawnSync("tcpdump", ["--version"], { encoding: "utf8", timeout: 10_000 });
    if (probe.error !== undefined || probe.status !== 0) {
      const message = "tcpdump not installed: apt-get update && apt-get install -y tcpdump";
      if (process.env["CI"] === "true") throw new Error(message);
      console.log(`      ${message} (differential BPF test skipped)`);
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), "netemu-bpf-"));
  });

  after(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("matches the same frames and refuses the same expressions as libpcap, except the documented differences", async () => {
    const frames = [...generateFrames(FRAME_COUNT, SEED), ...generateChainAndTunnelFrames(CHAIN_FRAME_COUNT, SEED)];
    const pcap = join(dir, "frames.pcap");
    writeFileSync(pcap, writePcap(frames));
    const corpus = readCorpus();
    const allowed = documentedDifferences();

    const libpcap = await pool(corpus, CONCURRENCY, (e) => runTcpdump(pcap, e));
    const differences: { expression: string; detail: string }[] = [];
    corpus.forEach((expression, i) => {
      const detail = describeDifference(expression, libpcap[i] as Verdict, runNetemu(frames, expression));
      if (detail !== undefined) differences.push({ expression, detail });
    });

    const agreeing = corpus.length - differences.length;
    console.log(`      BPF agreement with libpcap: ${agreeing}/${corpus.length} expressions (${frames.length} frames)`);
    for (const d of differences) {
      console.log(`      ${allowed.has(d.expression) ? "documented" : "UNEXPECTED"} difference: ${d.expression} -> ${d.detail}`);
    }
    const report = process.env["BPF_DIFF_REPORT"];
    if (report !== undefined) writeFileSync(report, JSON.stringify(differences, null, 2));
    const unexpected = differences.filter((d) => !allowed.has(d.expression)).map((d) => d.expression);
    expect(unexpected, "differences not listed in docs/bpf-differences.md").to.deep.equal([]);
  });
});

import type { BpfCompiler } from "../application/ports/bpf-compiler.js";
import { compileLines } from "../domain/bpf/index.js";

/**
 * bpf filter lines, compiled by netemu's own pcap-filter compiler: checked when they are set
 * (a refusal is the 400 `Invalid BPF expression on line N: ...`) and run by the data plane.
 */
export const compileBpf: BpfCompiler = (lines) => compileLines(lines);

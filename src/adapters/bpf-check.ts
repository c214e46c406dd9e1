import * as E from "fp-ts/lib/Either.js";
import type { BpfCompiler } from "../application/ports/bpf-compiler.js";

/** Until the BPF compiler lands, only empty bpf settings can run on a live NIO. */
export const compileBpf: BpfCompiler = (lines) =>
  lines.length === 0
    ? E.right(() => false)
    : E.left("Invalid BPF expression on line 1: BPF filters are not available in this build of netemu");

/**
 * netemu/pcap-filter: the pcap-filter expression compiler netemu's bpf link filter uses, in pure
 * TypeScript (docs/bpf.md): compile an expression to a frame matcher, or explain what it compiles to.
 */
export {
  compileExpression,
  compileExpressionLines,
  compileCaptureMatcher,
  explainExpression,
  type FrameMatcher,
  type CaptureMatcher,
  type BpfCompileError,
} from "./domain/bpf/index.js";

/**
 * netemu/pcap-filter: the pcap-filter expression compiler netemu's bpf link filter uses, in pure
 * TypeScript (docs/bpf.md): compile an expression to a frame matcher, or explain what it compiles to; compile
 * several lines to a plain-data program another thread can run; and the limits every expression is held to.
 */
export {
  compileExpression,
  compileExpressionLines,
  compileCaptureMatcher,
  compileProgram,
  instantiateProgram,
  explainExpression,
  MAX_COMPILE_WORK,
  MAX_EXPRESSION_LENGTH,
  MAX_GENEVE,
  MAX_NESTING,
  type FrameMatcher,
  type CaptureMatcher,
  type BpfCompileError,
  type BpfLineError,
  type BpfProgram,
} from "./domain/bpf/index.js";

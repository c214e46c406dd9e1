/** A refusal raised while scanning, parsing or compiling a pcap-filter expression (internal; the public API
 * turns it into a `BpfCompileError` value). `position` is the 0-based offset in the expression, when known. */
export class BpfError extends Error {
  constructor(
    message: string,
    readonly position?: number,
  ) {
    super(message);
    this.name = "BpfError";
  }
}

import type * as E from "fp-ts/lib/Either.js";

/** Where captured frames go: a classic pcap file (DLT_EN10MB) in netemu's adapter. */
export interface CaptureWriter {
  write(frame: Uint8Array, timestampMs: number): void;
  close(): Promise<void>;
}

export interface CaptureSink {
  /**
   * Creates (truncates) the file; Left is the reason it could not. `onFailure` is called once if
   * writing fails later (disk full, file system gone): the writer then writes nothing more.
   */
  open(filePath: string, onFailure?: (reason: string) => void): Promise<E.Either<string, CaptureWriter>>;
}

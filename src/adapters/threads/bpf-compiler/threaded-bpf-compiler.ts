import type { Worker } from "node:worker_threads";
import type * as E from "fp-ts/lib/Either.js";
import type { BpfCompiler } from "../../../application/ports/bpf-compiler.js";
import { type BpfProgram, compileProgram } from "../../../domain/bpf/index.js";
import type { BpfLineError } from "../../../domain/filters/filter-settings.js";
import type { Logger } from "../../../application/ports/system.js";
import { startWorker } from "../worker-start.js";
import { type CallAnswer, WorkerCalls } from "../worker-calls.js";

export interface CompileRequest {
  readonly id: number;
  readonly lines: readonly string[];
}
export type CompileReply = CallAnswer<E.Either<BpfLineError, BpfProgram>>;

/**
 * Expressions up to this many characters in all are compiled at once on the caller's thread: the
 * filters people write ("icmp", "tcp port 80 and host 10.0.0.1") take microseconds, and the costliest
 * 64 characters measured (16 geneve tunnels) about 2 ms; 128 characters can take 6 ms, so anything
 * longer is worth the message to the compiler thread (~0.2 ms).
 */
export const INLINE_COMPILE_CHARACTERS = 64;

/**
 * The pcap-filter compiler off the API's event loop (ADR 0054): a filter of more than
 * INLINE_COMPILE_CHARACTERS is compiled on a thread of its own, started when first needed, so a big
 * compile does not hold the requests that do not need it. A thread that dies fails no compile: what
 * it owed is compiled inline, and the next big one starts a new thread.
 */
export class ThreadedBpfCompiler implements BpfCompiler {
  private worker: Worker | undefined;
  /** The compiles the running thread owes, each with its lines. */
  private calls: WorkerCalls<readonly string[]> | undefined;
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly inlineCharacters = INLINE_COMPILE_CHARACTERS,
    private readonly script = new URL("./bpf-compiler-thread.js", import.meta.url),
  ) {}

  compile(lines: readonly string[]): Promise<E.Either<BpfLineError, BpfProgram>> {
    let size = 0;
    for (const line of lines) size += line.length;
    if (this.closed || size <= this.inlineCharacters) return Promise.resolve(compileProgram(lines));
    let calls: WorkerCalls<readonly string[]>;
    try {
      calls = this.running();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return calls.call(lines, (id) => ({ id, lines: [...lines] }) satisfies CompileRequest);
  }

  private running(): WorkerCalls<readonly string[]> {
    if (this.calls !== undefined) return this.calls;
    const worker = startWorker(this.script, undefined);
    const calls = new WorkerCalls<readonly string[]>(worker, (error) => new Error(`bpf compiler thread: ${error}`));
    this.worker = worker;
    this.calls = calls;
    worker.on("message", (m: CompileReply) => calls.answer(m));
    worker.on("error", (err) => this.logger.error("bpf compiler thread failed", { err: err.stack ?? String(err) }));
    worker.on("exit", (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.calls = undefined;
      const owed = calls.takeOwed();
      if (owed.length > 0 && !this.closed) this.logger.error("bpf compiler thread stopped; its compiles run inline", { exitCode: code, owed: owed.length });
      for (const call of owed) {
        try {
          call.resolve(compileProgram(call.about));
        } catch (err) {
          call.reject(err as Error);
        }
      }
    });
    // An idle compiler thread does not keep the process alive; one that owes an answer does.
    worker.unref();
    return calls;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (worker !== undefined) await worker.terminate();
  }
}

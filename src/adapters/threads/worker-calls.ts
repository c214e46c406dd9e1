import type { Worker } from "node:worker_threads";

/** What a thread answers a call: the value, or the error it met, under the id of the call. */
export type CallAnswer<T = unknown> = { readonly id: number; readonly value: T } | { readonly id: number; readonly error: string };

/** A call posted and not answered yet: what it was about, and how to settle it. */
interface OwedCall<About> {
  readonly about: About;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The calls posted to one worker thread that it has not answered yet (ADR 0078), for every client
 * that talks to a thread by `postMessage`: each message gets an id, and its answer is matched back to
 * its caller by that id. The thread is held (`ref`) while it owes an answer and let go (`unref`) when
 * it owes none, so an idle thread does not keep an embedding host's process alive and one that owes
 * an answer does. What a thread owed when it ended is the client's to settle (`takeOwed`): the data
 * plane fails it, the compiler does the work itself.
 */
export class WorkerCalls<About> {
  private readonly owed = new Map<number, OwedCall<About>>();
  private nextId = 1;

  constructor(
    private readonly worker: Pick<Worker, "ref" | "unref" | "postMessage">,
    /** The error a call fails with when the thread answers with one. */
    private readonly failure: (error: string, about: About) => Error,
  ) {}

  /** Posts the message `build(id)`; the promise settles with the answer of that id. */
  call<T>(about: About, build: (id: number) => unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.owed.size === 0) this.worker.ref();
      this.owed.set(id, { about, resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage(build(id));
    });
  }

  /** Settles the call an answer is for; an answer to no call owed (one already settled) is dropped. */
  answer(answer: CallAnswer): void {
    const call = this.owed.get(answer.id);
    if (call === undefined) return;
    this.owed.delete(answer.id);
    if (this.owed.size === 0) this.worker.unref();
    if ("error" in answer) call.reject(this.failure(answer.error, call.about));
    else call.resolve(answer.value);
  }

  /** The calls still owed, forgotten here: the thread ended, and the caller settles them its own way. */
  takeOwed(): OwedCall<About>[] {
    const owed = [...this.owed.values()];
    this.owed.clear();
    return owed;
  }
}

/** A pause the test ends by hand: the store's retries and flush deadline wait on it, never on the clock. */
export class ManualPause {
  private readonly waiting: { readonly ms: number; readonly resolve: () => void }[] = [];

  readonly pause = (ms: number, cancel?: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      const entry = { ms, resolve };
      this.waiting.push(entry);
      cancel?.addEventListener("abort", () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve();
      }, { once: true });
    });

  /** The delays asked for and not yet ended, oldest first. */
  pending(): number[] {
    return this.waiting.map((w) => w.ms);
  }

  /** Ends every pause of `ms` (every pause when not given). */
  end(ms?: number): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const w = this.waiting[i] as { ms: number; resolve: () => void };
      if (ms === undefined || w.ms === ms) {
        this.waiting.splice(i, 1);
        w.resolve();
      }
    }
  }
}

/** Lets every promise already settled run its continuations (no timer involved). */
export async function settle(turns = 50): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * How many nodes a project-wide action (start all, stop all, close, delete) acts on at once: GNS3 2.2's
 * controller runs `Project.start_all`/`stop_all`/`suspend_all` in a `Pool(concurrency=3)`. Each node keeps
 * its own lock, so a node's own actions stay in order; only different nodes overlap.
 */
export const NODES_AT_ONCE = 3;

/**
 * Runs `act` on every item, at most `size` at a time, and answers the results in the items' order. Every
 * item is acted on even when another's act fails (rejects): the first rejection, in the items' order, is
 * rethrown once all are done, as GNS3's Pool raises one of its exceptions after joining all its tasks.
 */
export async function inPool<T, R>(items: readonly T[], size: number, act: (item: T) => Promise<R>): Promise<R[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { status: "fulfilled", value: await act(items[i] as T) };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<R>).value);
}

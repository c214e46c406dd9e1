import type { UseCases } from "../../../application/use-cases/index.js";

/** Disk use changes slowly and costs a statfs: read again at most this often. */
const DISK_REFRESH_MS = 5000;

/**
 * The ping a 3.x compute sends on its websocket: CPU, memory and the disk use its controller reads
 * unconditionally (`disk_usage_percent`, a KeyError when absent). Disk use comes from the async
 * statistics, so it is read before a client's first ping and refreshed in the background after;
 * a ping never waits for the disk.
 */
export class V3Pings {
  private diskUsagePercent = 0;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  constructor(private readonly uc: UseCases) {}

  /** Reads the disk use unless a recent reading is at hand. */
  refresh(): Promise<void> {
    if (Date.now() - this.readAt < DISK_REFRESH_MS) return Promise.resolve();
    this.reading ??= this.uc.getComputeStatistics
      .execute()
      .then(
        (s) => {
          this.diskUsagePercent = s.diskUsagePercent;
          this.readAt = Date.now();
        },
        // A failed reading keeps the last value; the next ping tries again.
        () => undefined,
      )
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  encode(): Buffer {
    void this.refresh();
    const load = this.uc.getHostLoad.execute();
    return Buffer.from(
      JSON.stringify({
        action: "ping",
        event: { cpu_usage_percent: load.cpuUsagePercent, disk_usage_percent: this.diskUsagePercent, memory_usage_percent: load.memoryUsagePercent },
      }),
    );
  }
}

import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  OsHostMetrics,
  type CpuTimes,
  type FileSystemBlocks,
  type HostMetricsSources,
} from "../../../src/adapters/system/host-metrics.js";

const KIB = 1024;

/** A machine whose every number the test sets; the clock and CPU times move only when told to. */
class FakeHost implements HostMetricsSources {
  clock = 10_000;
  cpuTimes: CpuTimes[] = [times(1000, 1000), times(1000, 1000)];
  meminfoText: string | undefined = meminfo({ MemTotal: 1000, MemAvailable: 250, SwapTotal: 0, SwapFree: 0 });
  load: number[] = [0, 0, 0];
  total = 2000 * KIB;
  free = 1500 * KIB;
  disk: FileSystemBlocks = { blocks: 1000, bfree: 300, bavail: 200 };
  statfsCalls: string[] = [];

  cpus = () => this.cpuTimes.map((t) => ({ times: t }));
  meminfo = () => this.meminfoText;
  loadavg = () => this.load;
  totalmem = () => this.total;
  freemem = () => this.free;
  statfs = async (path: string) => {
    this.statfsCalls.push(path);
    return this.disk;
  };
  now = () => this.clock;

  /** Let `ms` pass, each CPU spending `busy` of it working. */
  advance(ms: number, busy: number): void {
    this.clock += ms;
    this.cpuTimes = this.cpuTimes.map((t) => ({ ...t, user: t.user + busy, idle: t.idle + (ms - busy) }));
  }
}

function times(busy: number, idle: number): CpuTimes {
  return { user: busy, nice: 0, sys: 0, idle, irq: 0 };
}

/** /proc/meminfo text, values in kB. */
function meminfo(fields: Record<string, number>): string {
  return Object.entries(fields).map(([k, v]) => `${k}:${" ".repeat(16 - k.length)}${v} kB`).join("\n") + "\n";
}

describe("host metrics", () => {
  describe("CPU use", () => {
    it("answers 0 % until a sampling window has passed since it started", () => {
      const host = new FakeHost();
      const metrics = new OsHostMetrics("/srv", host);
      host.advance(100, 100);
      expect(metrics.load().cpuUsagePercent).to.equal(0);
    });

    it("measures 50 % when half of the CPU time between two samples was busy", () => {
      const host = new FakeHost();
      const metrics = new OsHostMetrics("/srv", host);
      host.advance(1000, 500);
      expect(metrics.load().cpuUsagePercent).to.equal(50);
    });

    it("counts nice, sys and irq time as busy and sums every CPU", () => {
      const host = new FakeHost();
      const metrics = new OsHostMetrics("/srv", host);
      host.clock += 1000;
      const [a, b] = host.cpuTimes as [CpuTimes, CpuTimes];
      // CPU a: 100 nice + 100 sys + 100 irq + 700 idle; CPU b: all idle → 300 of 2000 busy.
      host.cpuTimes = [
        { ...a, nice: a.nice + 100, sys: a.sys + 100, irq: a.irq + 100, idle: a.idle + 700 },
        { ...b, idle: b.idle + 1000 },
      ];
      expect(metrics.load().cpuUsagePercent).to.equal(15);
    });

    it("answers the previous value when asked again within 500 ms of the last sample", () => {
      const host = new FakeHost();
      const metrics = new OsHostMetrics("/srv", host);
      host.advance(1000, 500);
      expect(metrics.load().cpuUsagePercent).to.equal(50);
      host.advance(200, 200);
      expect(metrics.load().cpuUsagePercent).to.equal(50);
      host.advance(400, 400);
      // The window now spans the 600 ms since the last sample, all of them busy.
      expect(metrics.load().cpuUsagePercent).to.equal(100);
    });

    it("keeps the previous value when the CPU times shrink, as when a CPU goes offline", () => {
      const host = new FakeHost();
      const metrics = new OsHostMetrics("/srv", host);
      host.advance(1000, 250);
      expect(metrics.load().cpuUsagePercent).to.equal(25);
      host.advance(1000, 1000);
      host.cpuTimes = host.cpuTimes.slice(0, 1);
      expect(metrics.load().cpuUsagePercent).to.equal(25);
    });

    it("gives the ping's percentages to one decimal, as psutil does", () => {
      const host = new FakeHost();
      const metrics = new OsHostMetrics("/srv", host);
      host.advance(3000, 1000);
      host.meminfoText = meminfo({ MemTotal: 3000, MemAvailable: 2000 });
      expect(metrics.load()).to.deep.equal({ cpuUsagePercent: 33.3, memoryUsagePercent: 33.3 });
    });

    it("reports no CPU use on a machine that lists no CPUs", async () => {
      const host = new FakeHost();
      host.cpuTimes = [];
      host.load = [1, 1, 1];
      const metrics = new OsHostMetrics("/srv", host);
      host.clock += 1000;
      const stats = await metrics.statistics();
      expect(stats.cpuUsagePercent).to.equal(0);
      expect(stats.loadAveragePercent).to.deep.equal([100, 100, 100]);
    });
  });

  describe("memory use", () => {
    it("is (MemTotal − MemAvailable) / MemTotal from /proc/meminfo", () => {
      const host = new FakeHost();
      host.meminfoText = meminfo({ MemTotal: 1000, MemFree: 100, MemAvailable: 250 });
      expect(new OsHostMetrics("/srv", host).load().memoryUsagePercent).to.equal(75);
    });

    it("falls back to os.freemem() when /proc/meminfo has no MemAvailable", () => {
      const host = new FakeHost();
      host.meminfoText = meminfo({ MemTotal: 1000, MemFree: 100 });
      host.free = 600 * KIB;
      expect(new OsHostMetrics("/srv", host).load().memoryUsagePercent).to.equal(40);
    });

    it("uses os.totalmem() and os.freemem() where there is no /proc/meminfo", async () => {
      const host = new FakeHost();
      host.meminfoText = undefined;
      const stats = await new OsHostMetrics("/srv", host).statistics();
      expect(stats).to.deep.include({
        memoryTotal: 2000 * KIB,
        memoryFree: 1500 * KIB,
        memoryUsed: 500 * KIB,
        memoryUsagePercent: 25,
        swapTotal: 0,
        swapUsagePercent: 0,
      });
    });
  });

  describe("statistics", () => {
    it("reports GNS3's fields: bytes, and percentages truncated to integers", async () => {
      const host = new FakeHost();
      host.meminfoText = meminfo({
        MemTotal: 8000, MemFree: 1000, MemAvailable: 3000, Buffers: 10, SwapTotal: 4000, SwapFree: 3000,
      });
      host.load = [1, 0.5, 3];
      host.disk = { blocks: 1000, bfree: 300, bavail: 200 };
      const metrics = new OsHostMetrics("/srv", host);
      host.advance(1000, 333);
      expect(await metrics.statistics()).to.deep.equal({
        memoryTotal: 8000 * KIB,
        memoryFree: 3000 * KIB,
        memoryUsed: 5000 * KIB,
        swapTotal: 4000 * KIB,
        swapFree: 3000 * KIB,
        swapUsed: 1000 * KIB,
        cpuUsagePercent: 33,
        memoryUsagePercent: 62,
        swapUsagePercent: 25,
        // As df: used = blocks − bfree = 700, of used + bavail = 900 (root's reserve counts for neither).
        diskUsagePercent: 77,
        // Load over 2 CPUs, not capped: a load of 3 on 2 CPUs is 150 %.
        loadAveragePercent: [50, 25, 150],
      });
    });

    it("reports 0 % swap use when there is no swap", async () => {
      const host = new FakeHost();
      host.meminfoText = meminfo({ MemTotal: 1000, MemAvailable: 500, SwapTotal: 0, SwapFree: 0 });
      const stats = await new OsHostMetrics("/srv", host).statistics();
      expect(stats).to.deep.include({ swapTotal: 0, swapFree: 0, swapUsed: 0, swapUsagePercent: 0 });
    });

    it("shares the CPU sampler with the ping, so a statistics call inside the window repeats its value", async () => {
      const host = new FakeHost();
      const metrics = new OsHostMetrics("/srv", host);
      host.advance(1000, 700);
      expect(metrics.load().cpuUsagePercent).to.equal(70);
      host.advance(100, 0);
      expect((await metrics.statistics()).cpuUsagePercent).to.equal(70);
    });

    it("keeps every value finite and the percentages within 0..100 when the sources disagree", async () => {
      const host = new FakeHost();
      // More available than total, more free swap than swap, a file system reporting nonsense.
      host.meminfoText = meminfo({ MemTotal: 1000, MemAvailable: 5000, SwapTotal: 100, SwapFree: 900 });
      host.load = [Number.NaN, Number.POSITIVE_INFINITY, -1];
      host.disk = { blocks: 100, bfree: 500, bavail: 0 };
      const metrics = new OsHostMetrics("/srv", host);
      host.advance(1000, 2000);
      const stats = await metrics.statistics();
      for (const value of [...Object.values(stats).filter((v) => typeof v === "number"), ...stats.loadAveragePercent]) {
        expect(Number.isInteger(value), String(value)).to.equal(true);
        expect(value).to.be.at.least(0);
      }
      expect(stats).to.deep.include({
        cpuUsagePercent: 100,
        memoryFree: 1000 * KIB,
        memoryUsed: 0,
        memoryUsagePercent: 0,
        swapUsed: 0,
        swapUsagePercent: 0,
        diskUsagePercent: 0,
      });
      expect(stats.loadAveragePercent).to.deep.equal([0, 0, 0]);
    });

    it("measures the disk of the nearest existing parent when the directory does not exist yet", async () => {
      const host = new FakeHost();
      host.statfs = async (path: string) => {
        host.statfsCalls.push(path);
        if (path !== "/srv") throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
        return { blocks: 100, bfree: 50, bavail: 50 };
      };
      const stats = await new OsHostMetrics("/srv/netemu/projects", host).statistics();
      expect(host.statfsCalls).to.deep.equal(["/srv/netemu/projects", "/srv/netemu", "/srv"]);
      expect(stats.diskUsagePercent).to.equal(50);
    });

    it("passes on a statfs failure other than a missing directory", async () => {
      const host = new FakeHost();
      host.statfs = async () => {
        throw Object.assign(new Error("EACCES"), { code: "EACCES" });
      };
      const failure = await new OsHostMetrics("/srv", host).statistics().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).to.be.instanceOf(Error).with.property("message", "EACCES");
    });
  });

  describe("on this machine", () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "netemu-metrics-"))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("reports integer statistics within their ranges and a ping within 0..100", async () => {
      const metrics = new OsHostMetrics(join(dir, "not", "yet", "there"));
      const load = metrics.load();
      for (const value of [load.cpuUsagePercent, load.memoryUsagePercent]) {
        expect(value).to.be.within(0, 100);
      }
      const stats = await metrics.statistics();
      for (const [key, value] of Object.entries(stats)) {
        const values: unknown[] = Array.isArray(value) ? value : [value];
        for (const v of values) {
          expect(Number.isInteger(v), `${key}: ${String(v)}`).to.equal(true);
          expect(v as number, key).to.be.at.least(0);
        }
      }
      for (const key of ["cpuUsagePercent", "memoryUsagePercent", "swapUsagePercent", "diskUsagePercent"] as const) {
        expect(stats[key], key).to.be.within(0, 100);
      }
      expect(stats.memoryTotal).to.be.greaterThan(0);
      expect(stats.memoryUsed + stats.memoryFree).to.equal(stats.memoryTotal);
      expect(stats.swapUsed + stats.swapFree).to.equal(stats.swapTotal);
      expect(stats.loadAveragePercent).to.have.length(3);
    });
  });
});

/**
 * How close a delay line holds frames to a sub-millisecond delay (ADR 0101): frames pushed one at a time,
 * at random moments 2 to 5 ms apart, each held for DELAY_MS; what is measured is the time from the push to
 * the delivery on the same clock the line uses (performance.now). The precise mode (a delay with a fraction
 * of a ms) against the timer-only mode (whole-ms delays, as before).
 *
 *   npx tsc -p tsconfig.json && node build/bench/sub-ms-delay.bench.js [delay ms] [frames]
 */
import { DelayLine } from "../src/application/dataplane/delay-line.js";
import { NodeTimers } from "../src/adapters/system/node-timers.js";
import { SystemClock } from "../src/adapters/system/system-clock.js";

const DELAY_MS = Number(process.argv[2] ?? 0.5);
const FRAMES = Number(process.argv[3] ?? 400);

async function run(precise: boolean): Promise<number[]> {
  const clock = new SystemClock();
  const held: number[] = [];
  let pushedAt = 0;
  let done: () => void = () => undefined;
  const line = new DelayLine(clock, new NodeTimers(), () => {
    held.push(clock.nowMs() - pushedAt);
    done();
  });
  for (let i = 0; i < FRAMES; i++) {
    await new Promise((r) => setTimeout(r, 2 + Math.random() * 3));
    const delivered = new Promise<void>((r) => (done = r));
    pushedAt = clock.nowMs();
    line.push(new Uint8Array(64), DELAY_MS, precise);
    await delivered;
  }
  line.close();
  return held;
}

function quantiles(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number): string => ((s[Math.min(s.length - 1, Math.floor(p * s.length))] as number) * 1000).toFixed(0);
  return `min ${q(0)} µs, median ${q(0.5)} µs, p90 ${q(0.9)} µs, p99 ${q(0.99)} µs, max ${((s[s.length - 1] as number) * 1000).toFixed(0)} µs`;
}

/**
 * What the precise mode costs under steady traffic: a frame pushed every ms for 3 s (the line never empty
 * for long), the process's CPU time over that time, as a share of one core.
 */
async function cpuUnderLoad(precise: boolean): Promise<number> {
  const clock = new SystemClock();
  const line = new DelayLine(clock, new NodeTimers(), () => undefined);
  const start = process.cpuUsage();
  const t0 = clock.nowMs();
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      line.push(new Uint8Array(64), DELAY_MS, precise);
      if (clock.nowMs() - t0 > 3000) {
        clearInterval(tick);
        resolve();
      }
    }, 1);
  });
  const used = process.cpuUsage(start);
  const wall = clock.nowMs() - t0;
  line.close();
  return (used.user + used.system) / 1000 / wall;
}

async function main(): Promise<void> {
  for (const precise of [false, true, false, true]) {
    const held = await run(precise);
    const early = held.filter((h) => h < DELAY_MS).length;
    console.log(`${precise ? "precise   " : "timer only"} delay ${DELAY_MS} ms, ${FRAMES} frames: held ${quantiles(held)}; early ${early}`);
  }
  for (const precise of [false, true]) {
    console.log(`${precise ? "precise   " : "timer only"} delay ${DELAY_MS} ms, a frame every ms for 3 s: CPU ${((await cpuUnderLoad(precise)) * 100).toFixed(0)} % of a core`);
  }
}

void main();

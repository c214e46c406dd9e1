import { randomUUID } from "node:crypto";
import type { Clock, IdGenerator } from "../../application/ports/system.js";

export class SystemClock implements Clock {
  // Read once: the getter crosses into Node's internals on every call (~11 ns), and the data plane asks
  // the time for every frame at every switch. It is fixed for the thread that made this clock.
  private readonly originMs = performance.timeOrigin;

  nowMs(): number {
    return this.originMs + performance.now();
  }
}

export class RandomUuidGenerator implements IdGenerator {
  uuid(): string {
    return randomUUID();
  }
}

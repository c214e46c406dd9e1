import { randomUUID } from "node:crypto";
import type { Clock, IdGenerator } from "../../application/ports/system.js";

export class SystemClock implements Clock {
  nowMs(): number {
    return performance.timeOrigin + performance.now();
  }
}

export class RandomUuidGenerator implements IdGenerator {
  uuid(): string {
    return randomUUID();
  }
}

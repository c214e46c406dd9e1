import type { Logger } from "../../application/ports/system.js";

export interface LoginThrottleLimits {
  /** Failed logins from one address within `windowMs` before it is locked out. */
  readonly maxFailures: number;
  readonly windowMs: number;
  /** The first lockout; each further failure of the same episode doubles it, up to `maxLockoutMs`. */
  readonly firstLockoutMs: number;
  readonly maxLockoutMs: number;
  /** An address with no failure for this long (and no lockout running) starts afresh. */
  readonly forgetAfterMs: number;
  /** Addresses remembered at most; the least recently failing one is forgotten first. */
  readonly maxAddresses: number;
  /** At most one summary line per address per interval while its failures go on. */
  readonly summaryIntervalMs: number;
}

export const DEFAULT_LOGIN_THROTTLE_LIMITS: LoginThrottleLimits = {
  maxFailures: 10,
  windowMs: 60_000,
  firstLockoutMs: 1_000,
  maxLockoutMs: 300_000,
  forgetAfterMs: 3_600_000,
  maxAddresses: 10_000,
  summaryIntervalMs: 60_000,
};

/** Whether an address may try its credentials now, or must wait (whole seconds, for `Retry-After`). */
type LoginAdmission = { readonly throttled: false } | { readonly throttled: true; readonly retryAfterSeconds: number };

interface Episode {
  /** Failures counted towards the first lockout, since `windowStartMs`. */
  failures: number;
  windowStartMs: number;
  /** Lockouts so far in this episode: the next one lasts firstLockoutMs × 2^lockouts. */
  lockouts: number;
  lockedUntilMs: number;
  lastFailureMs: number;
  /** For the log: everything since the episode began, and since its last line. */
  totalFailures: number;
  failuresSinceLine: number;
  throttledSinceLine: number;
  lastLineMs: number;
}

/**
 * Failed logins by client address (the socket's, never a header the client writes): after
 * `maxFailures` within `windowMs` the address is locked out for `firstLockoutMs`, and every further
 * failure of the episode locks it out again for twice as long, up to `maxLockoutMs` (ADR 0061). A
 * success forgets the address. The table is bounded; the clock is given, so tests run on a fake one.
 * It logs a few lines per episode (the first failure, the lockout, then at most one summary per
 * interval), never one per request.
 */
export class LoginThrottle {
  private readonly episodes = new Map<string, Episode>();

  constructor(
    private readonly logger: Logger,
    private readonly nowMs: () => number,
    private readonly limits: LoginThrottleLimits = DEFAULT_LOGIN_THROTTLE_LIMITS,
  ) {}

  /** Addresses remembered now (bounded by `maxAddresses`). */
  get size(): number {
    return this.episodes.size;
  }

  /** Whether `address` is locked out now; a locked-out request is counted for the log. */
  admit(address: string): LoginAdmission {
    const now = this.nowMs();
    const e = this.current(address, now);
    if (e === undefined || now >= e.lockedUntilMs) return { throttled: false };
    e.throttledSinceLine++;
    this.summarize(address, e, now);
    return { throttled: true, retryAfterSeconds: Math.max(1, Math.ceil((e.lockedUntilMs - now) / 1000)) };
  }

  failed(address: string): void {
    const now = this.nowMs();
    let e = this.current(address, now);
    if (e === undefined) {
      e = { failures: 0, windowStartMs: now, lockouts: 0, lockedUntilMs: 0, lastFailureMs: now, totalFailures: 0, failuresSinceLine: 0, throttledSinceLine: 0, lastLineMs: now };
      this.logger.warn("login failed", { address, failures: 1 });
    } else {
      // Re-inserted: the Map's order is then the order of last failure, oldest first.
      this.episodes.delete(address);
    }
    this.episodes.set(address, e);
    if (this.episodes.size > this.limits.maxAddresses) this.episodes.delete(this.episodes.keys().next().value as string);
    if (e.lockouts === 0 && now - e.windowStartMs >= this.limits.windowMs) {
      e.failures = 0;
      e.windowStartMs = now;
    }
    e.failures++;
    e.totalFailures++;
    e.failuresSinceLine++;
    e.lastFailureMs = now;
    if (e.lockouts === 0 && e.failures < this.limits.maxFailures) {
      if (e.totalFailures > 1) this.summarize(address, e, now);
      return;
    }
    const lockoutMs = Math.min(this.limits.maxLockoutMs, this.limits.firstLockoutMs * 2 ** Math.min(e.lockouts, 30));
    e.lockouts++;
    e.lockedUntilMs = now + lockoutMs;
    if (e.lockouts === 1) {
      this.logger.warn("login throttled: too many failed logins from this address", { address, failures: e.totalFailures, retryAfterSeconds: Math.ceil(lockoutMs / 1000) });
      e.failuresSinceLine = 0;
      e.throttledSinceLine = 0;
      e.lastLineMs = now;
    } else this.summarize(address, e, now);
  }

  succeeded(address: string): void {
    const e = this.episodes.get(address);
    if (e === undefined) return;
    this.episodes.delete(address);
    this.logger.info("login succeeded after failed logins", { address, failures: e.totalFailures });
  }

  private current(address: string, now: number): Episode | undefined {
    const e = this.episodes.get(address);
    if (e === undefined) return undefined;
    if (now >= e.lockedUntilMs && now - e.lastFailureMs >= this.limits.forgetAfterMs) {
      this.episodes.delete(address);
      return undefined;
    }
    return e;
  }

  private summarize(address: string, e: Episode, now: number): void {
    if (now - e.lastLineMs < this.limits.summaryIntervalMs) return;
    this.logger.warn("failed logins go on from this address", {
      address,
      failures: e.totalFailures,
      failedSinceLastLine: e.failuresSinceLine,
      throttledSinceLastLine: e.throttledSinceLine,
      retryAfterSeconds: Math.max(0, Math.ceil((e.lockedUntilMs - now) / 1000)),
    });
    e.failuresSinceLine = 0;
    e.throttledSinceLine = 0;
    e.lastLineMs = now;
  }
}

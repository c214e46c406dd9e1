import { expect } from "chai";
import { DEFAULT_LOGIN_THROTTLE_LIMITS, LoginThrottle, type LoginThrottleLimits } from "../../../src/adapters/http/login-throttle.js";
import { LoginGate } from "../../../src/adapters/http/auth.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";

class FakeClock {
  ms = 1_000_000;
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

const LIMITS: LoginThrottleLimits = { ...DEFAULT_LOGIN_THROTTLE_LIMITS, maxFailures: 3, windowMs: 10_000, firstLockoutMs: 1_000, maxLockoutMs: 8_000, forgetAfterMs: 60_000, maxAddresses: 4, summaryIntervalMs: 5_000 };

describe("The failed-login throttle", () => {
  let clock: FakeClock;
  let logger: RecordingLogger;
  let throttle: LoginThrottle;
  beforeEach(() => {
    clock = new FakeClock();
    logger = new RecordingLogger();
    throttle = new LoginThrottle(logger, clock.now, LIMITS);
  });
  const failTimes = (address: string, n: number): void => {
    for (let i = 0; i < n; i++) throttle.failed(address);
  };

  it("admits an address until its failures reach the threshold, then locks it out for the first lockout", () => {
    failTimes("10.0.0.1", 2);
    expect(throttle.admit("10.0.0.1")).to.deep.equal({ throttled: false });
    throttle.failed("10.0.0.1");
    expect(throttle.admit("10.0.0.1")).to.deep.equal({ throttled: true, retryAfterSeconds: 1 });
    clock.advance(999);
    expect(throttle.admit("10.0.0.1").throttled).to.equal(true);
    clock.advance(1);
    expect(throttle.admit("10.0.0.1")).to.deep.equal({ throttled: false });
  });

  it("doubles the lockout at each further failure of the episode, up to the longest", () => {
    failTimes("10.0.0.1", 3);
    const lockouts: number[] = [];
    for (let i = 0; i < 6; i++) {
      const a = throttle.admit("10.0.0.1");
      lockouts.push(a.throttled ? a.retryAfterSeconds : 0);
      clock.advance(lockouts[i]! * 1000);
      expect(throttle.admit("10.0.0.1").throttled, `after lockout ${i}`).to.equal(false);
      throttle.failed("10.0.0.1");
    }
    expect(lockouts).to.deep.equal([1, 2, 4, 8, 8, 8]);
  });

  it("counts failures towards the first lockout within the window only", () => {
    failTimes("10.0.0.1", 2);
    clock.advance(10_000);
    failTimes("10.0.0.1", 2);
    expect(throttle.admit("10.0.0.1").throttled).to.equal(false);
    throttle.failed("10.0.0.1");
    expect(throttle.admit("10.0.0.1").throttled).to.equal(true);
  });

  it("keeps addresses apart: one locked out, another admitted", () => {
    failTimes("127.0.0.1", 3);
    expect(throttle.admit("127.0.0.1").throttled).to.equal(true);
    expect(throttle.admit("127.0.0.2").throttled).to.equal(false);
  });

  it("forgets an address on a success: its next failures count from zero", () => {
    failTimes("10.0.0.1", 2);
    throttle.succeeded("10.0.0.1");
    failTimes("10.0.0.1", 2);
    expect(throttle.admit("10.0.0.1").throttled).to.equal(false);
    expect(throttle.size).to.equal(1);
  });

  it("forgets an address that has not failed for forgetAfterMs: a lockout starts again at the first one", () => {
    failTimes("10.0.0.1", 3);
    failTimes("10.0.0.1", 2); // locked out for 2 s, then 4 s
    clock.advance(60_000);
    failTimes("10.0.0.1", 3);
    expect(throttle.admit("10.0.0.1")).to.deep.equal({ throttled: true, retryAfterSeconds: 1 });
  });

  it("remembers at most maxAddresses addresses, forgetting the one that failed longest ago", () => {
    for (const a of ["a", "b", "c", "d"]) throttle.failed(a);
    throttle.failed("a"); // a is now the most recent
    throttle.failed("e");
    expect(throttle.size).to.equal(4);
    failTimes("b", 2); // b was forgotten: two failures are not three
    expect(throttle.admit("b").throttled).to.equal(false);
    failTimes("a", 1); // a was kept: this is its third
    expect(throttle.admit("a").throttled).to.equal(true);
  });

  it("stays bounded under a flood of distinct addresses", () => {
    for (let i = 0; i < 1000; i++) throttle.failed(`10.0.${i >> 8}.${i & 255}`);
    expect(throttle.size).to.equal(4);
  });

  it("logs an episode in a few lines with the address and the count, never one per request", () => {
    failTimes("10.0.0.1", 3);
    for (let i = 0; i < 100; i++) throttle.admit("10.0.0.1");
    const warned = logger.lines.filter((l) => l.level === "warn");
    expect(warned.map((l) => [l.msg, l.fields?.["address"], l.fields?.["failures"]])).to.deep.equal([
      ["login failed", "10.0.0.1", 1],
      ["login throttled: too many failed logins from this address", "10.0.0.1", 3],
    ]);
    clock.advance(5_000);
    for (let i = 0; i < 100; i++) {
      throttle.admit("10.0.0.1");
      throttle.failed("10.0.0.1");
    }
    const summaries = logger.lines.filter((l) => l.msg === "failed logins go on from this address");
    expect(summaries).to.have.length(1);
    expect(summaries[0]?.fields).to.deep.include({ address: "10.0.0.1", failures: 4, failedSinceLastLine: 1, throttledSinceLastLine: 100 });
    throttle.succeeded("10.0.0.1");
    expect(logger.lines.at(-1)).to.deep.include({ level: "info", msg: "login succeeded after failed logins" });
    expect(logger.lines.at(-1)?.fields).to.deep.include({ address: "10.0.0.1", failures: 103 });
  });
});

describe("The login gate", () => {
  const settings = { enabled: true, user: "admin", password: "s3cret" };
  const right = `Basic ${Buffer.from("admin:s3cret").toString("base64")}`;
  const wrong = `Basic ${Buffer.from("admin:guess").toString("base64")}`;
  const counted = { failed: 0, throttled: 0 };
  const counters = { loginFailed: () => void counted.failed++, loginThrottled: () => void counted.throttled++ };
  beforeEach(() => Object.assign(counted, { failed: 0, throttled: 0 }));

  it("answers a locked-out address throttled even with the right password, so the answer tells nothing of it", () => {
    const gate = new LoginGate(settings, new LoginThrottle(new RecordingLogger(), new FakeClock().now, LIMITS), counters);
    for (let i = 0; i < 3; i++) expect(gate.check("10.0.0.1", wrong, "http").kind).to.equal("refused");
    expect(gate.check("10.0.0.1", right, "http")).to.deep.equal({ kind: "throttled", retryAfterSeconds: 1 });
    expect(gate.check("10.0.0.1", wrong, "websocket").kind).to.equal("throttled");
    expect(gate.check("10.0.0.2", right, "http").kind).to.equal("admitted");
    expect(counted).to.deep.equal({ failed: 3, throttled: 2 });
  });

  it("takes an IPv4 client of a dual-stack socket (::ffff:a.b.c.d) for the same address as a.b.c.d", () => {
    const logger = new RecordingLogger();
    const gate = new LoginGate(settings, new LoginThrottle(logger, new FakeClock().now, LIMITS), counters);
    for (let i = 0; i < 3; i++) gate.check("::ffff:10.0.0.1", wrong, "http");
    expect(gate.check("10.0.0.1", right, "http").kind).to.equal("throttled");
    expect(logger.lines[0]?.fields).to.deep.include({ address: "10.0.0.1" });
  });

  it("admits everyone and counts nothing when auth is off", () => {
    const gate = new LoginGate({ enabled: false, user: "", password: "" }, new LoginThrottle(new RecordingLogger(), new FakeClock().now, LIMITS), counters);
    for (let i = 0; i < 5; i++) expect(gate.check("10.0.0.1", wrong, "http").kind).to.equal("admitted");
    expect(counted).to.deep.equal({ failed: 0, throttled: 0 });
  });
});

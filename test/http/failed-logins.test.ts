import { expect } from "chai";
import { request } from "node:http";
import { WebSocket } from "ws";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { parseExposition } from "../support/prometheus-text.js";

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
const RIGHT = basic("admin", "s3cret");
const WRONG = basic("admin", "guess");

/** A request sent from a given loopback address (the throttle keys on the socket's address). */
function get(url: string, path: string, from: string, authorization: string): Promise<{ status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method: "GET", localAddress: from, agent: false, headers: { Authorization: authorization }, timeout: 5000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, ...(res.headers["retry-after"] === undefined ? {} : { retryAfter: res.headers["retry-after"] }) }));
    });
    req.on("timeout", () => req.destroy(new Error("no answer within 5 s")));
    req.on("error", reject);
    req.end();
  });
}

/** What an upgrade of the notification websocket from `from` came to: the refusal's status and Retry-After, or open. */
function upgrade(url: string, from: string, authorization: string): Promise<{ status?: number; retryAfter?: string; open?: true }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace("http", "ws")}/v2/compute/notifications/ws`, { localAddress: from, headers: { Authorization: authorization }, handshakeTimeout: 5000 });
    ws.on("error", reject);
    ws.once("open", () => {
      ws.terminate();
      resolve({ open: true });
    });
    ws.once("unexpected-response", (req, res) => {
      res.resume();
      res.on("end", () => {
        req.destroy();
        const retryAfter = res.headers["retry-after"];
        resolve({ status: res.statusCode ?? 0, ...(retryAfter === undefined ? {} : { retryAfter }) });
      });
    });
  });
}

/** The clock the throttle reads: still unless a test moves it, so no lockout ends while a test runs. */
class StillClock {
  ms = 5_000_000;
  nowMs(): number {
    return this.ms;
  }
}

describe("Guessed passwords over HTTP", function () {
  this.timeout(30_000);
  let s: TestServer;
  let logger: RecordingLogger;
  let clock: StillClock;
  beforeEach(async () => {
    logger = new RecordingLogger();
    clock = new StillClock();
    s = await startTestServer({ overrides: { logger, clock }, settings: { auth: { enabled: true, user: "admin", password: "s3cret" } } });
  });
  afterEach(async () => s.close());

  const linesAbout = (address: string) => logger.lines.filter((l) => l.fields?.["address"] === address && l.level !== "debug");

  it("locks out an address after 10 failed logins: 429 with Retry-After, even for the right password; another address is unaffected", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      const r = await get(s.url, "/v2/version", "127.0.0.1", WRONG);
      statuses.push(r.status);
      if (r.status === 429) {
        expect(r.retryAfter).to.equal("1");
        expect(JSON.parse(r.body)).to.deep.equal({ message: "Too many failed logins from this address: retry after 1 s", status: 429 });
      }
    }
    expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(401));
    expect(statuses.slice(10)).to.deep.equal(Array(190).fill(429));
    const right = await get(s.url, "/v2/version", "127.0.0.1", RIGHT);
    expect(right).to.deep.include({ status: 429, retryAfter: "1" });
    expect((await get(s.url, "/v2/version", "127.0.0.2", RIGHT)).status).to.equal(200);
    expect((await get(s.url, "/v2/version", "127.0.0.2", WRONG)).status).to.equal(401);
  });

  it("lifts the lockout once Retry-After has passed, and a right password then clears the address", async () => {
    for (let i = 0; i < 10; i++) await get(s.url, "/v2/version", "127.0.0.1", WRONG);
    expect((await get(s.url, "/v2/version", "127.0.0.1", RIGHT)).status).to.equal(429);
    clock.ms += 1000;
    expect((await get(s.url, "/v2/version", "127.0.0.1", RIGHT)).status).to.equal(200);
    // Cleared: nine more wrong ones are not enough for another lockout.
    for (let i = 0; i < 9; i++) expect((await get(s.url, "/v2/version", "127.0.0.1", WRONG)).status).to.equal(401);
    expect((await get(s.url, "/v2/version", "127.0.0.1", RIGHT)).status).to.equal(200);
  });

  it("logs the brute force in a few warn lines naming the address, not one per request, and never the credentials", async () => {
    for (let i = 0; i < 200; i++) await get(s.url, "/v2/version", "127.0.0.1", WRONG);
    await get(s.url, "/v2/version", "127.0.0.2", WRONG);
    const first = linesAbout("127.0.0.1");
    expect(first.map((l) => [l.level, l.msg, l.fields?.["failures"]])).to.deep.equal([
      ["warn", "login failed", 1],
      ["warn", "login throttled: too many failed logins from this address", 10],
    ]);
    expect(linesAbout("127.0.0.2").map((l) => l.msg)).to.deep.equal(["login failed"]);
    // The request lines of refused logins are at debug, with the address.
    const requestLines = logger.lines.filter((l) => l.msg === "request");
    expect(requestLines).to.have.length(201);
    expect(requestLines.every((l) => l.level === "debug")).to.equal(true);
    expect(requestLines.filter((l) => l.fields?.["status"] === 429)[0]?.fields).to.deep.include({ address: "127.0.0.1", message: "Too many failed logins from this address: retry after 1 s" });
    expect(JSON.stringify(logger.lines)).not.to.contain("guess").and.not.to.contain(WRONG.slice(6));
  });

  it("counts failed and throttled logins in /metrics, by door", async () => {
    for (let i = 0; i < 50; i++) await get(s.url, "/v2/version", "127.0.0.1", WRONG);
    await get(s.url, "/v2/version", "127.0.0.1", RIGHT);
    expect((await upgrade(s.url, "127.0.0.1", RIGHT)).status).to.equal(429);
    const scrape = await get(s.url, "/metrics", "127.0.0.2", RIGHT);
    const m = parseExposition(scrape.body);
    expect(m.value("netemu_login_failures_total", { door: "http" })).to.equal(10);
    expect(m.value("netemu_login_failures_total", { door: "websocket" })).to.equal(0);
    expect(m.value("netemu_login_throttled_total", { door: "http" })).to.equal(41);
    expect(m.value("netemu_login_throttled_total", { door: "websocket" })).to.equal(1);
  });

  it("throttles the notification websocket's upgrade too: 429 with Retry-After before any upgrade", async () => {
    // Failures at the websocket count towards the same lockout as those of requests.
    for (let i = 0; i < 5; i++) expect((await upgrade(s.url, "127.0.0.1", WRONG)).status).to.equal(401);
    for (let i = 0; i < 5; i++) await get(s.url, "/v2/version", "127.0.0.1", WRONG);
    expect(await upgrade(s.url, "127.0.0.1", RIGHT)).to.deep.equal({ status: 429, retryAfter: "1" });
    expect((await get(s.url, "/v2/version", "127.0.0.1", RIGHT)).status).to.equal(429);
    expect(await upgrade(s.url, "127.0.0.2", RIGHT)).to.deep.equal({ open: true });
  });
});

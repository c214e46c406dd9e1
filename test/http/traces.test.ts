import { expect } from "chai";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";

/** The trace routes (ADR 0103): upload the raw text by name, list, read back, delete; clear 4xx. */
describe("HTTP: /v2/netemu/traces", function () {
  this.timeout(20_000);
  let s: TestServer;
  beforeEach(async () => {
    s = await startTestServer();
  });
  afterEach(() => s.close());

  it("takes a Mahimahi trace as raw text and answers its summary: lines, duration, mean capacity", async () => {
    const text = Array.from({ length: 1000 }, (_, i) => String(i + 1)).join("\n") + "\n";
    const r = await s.raw("PUT", "/v2/netemu/traces/twelve-mbit", text, { "content-type": "text/plain" });
    expect(r.status, r.text).to.equal(201);
    expect(r.json).to.deep.equal({ name: "twelve-mbit", kind: "capacity", lines: 1000, bytes: Buffer.byteLength(text), duration_ms: 1000, mean_capacity_kbps: 12000 });
    expect(existsSync(join(s.configDir, "traces", "twelve-mbit"))).to.equal(true);
    const listed = await s.request("GET", "/v2/netemu/traces");
    expect(listed.json).to.deep.equal([r.json]);
    const got = await s.request("GET", "/v2/netemu/traces/twelve-mbit");
    expect(got.status).to.equal(200);
    expect(got.headers.get("content-type")).to.match(/^text\/plain/);
    expect(got.text).to.equal(text);
  });

  it("takes a value trace and says whether it loops", async () => {
    const r = await s.raw("PUT", "/v2/netemu/traces/delays", "0 20\n5000 80\n10000\n");
    expect(r.status, r.text).to.equal(201);
    expect(r.json).to.deep.include({ kind: "values", lines: 3, duration_ms: 10000, loops: true });
  });

  it("refuses a trace that does not read with a 400 naming the line, and keeps nothing", async () => {
    const r = await s.raw("PUT", "/v2/netemu/traces/bad", "1\n5\n4\n");
    expect(r.status).to.equal(400);
    expect(r.json.message).to.equal('Trace "bad" does not read: line 3: 4 ms comes before the 5 ms of the line above (timestamps must not decrease)');
    expect((await s.request("GET", "/v2/netemu/traces")).json).to.deep.equal([]);
  });

  it("refuses a name that is not a safe file name with a 400", async () => {
    const r = await s.raw("PUT", "/v2/netemu/traces/.hidden", "1\n");
    expect(r.status).to.equal(400);
    expect(r.json.message).to.match(/^Invalid trace name "\.hidden"/);
  });

  it("answers 404 for a trace that was not uploaded, to a read and to a delete", async () => {
    expect((await s.request("GET", "/v2/netemu/traces/nowhere")).status).to.equal(404);
    const d = await s.request("DELETE", "/v2/netemu/traces/nowhere");
    expect(d.status).to.equal(404);
    expect(d.json.message).to.equal('Trace "nowhere" not found');
  });

  it("deletes a trace no filter names (204), and forgets its file", async () => {
    await s.raw("PUT", "/v2/netemu/traces/gone", "10\n");
    expect((await s.request("DELETE", "/v2/netemu/traces/gone")).status).to.equal(204);
    expect(existsSync(join(s.configDir, "traces", "gone"))).to.equal(false);
  });
});

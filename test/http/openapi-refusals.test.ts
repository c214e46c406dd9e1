import { expect } from "chai";
import fc from "fast-check";
import * as E from "fp-ts/lib/Either.js";
import { request } from "node:http";
import { readFileSync } from "node:fs";
import { OPENAPI_PATH } from "../../src/adapters/http/openapi/document.js";
import { FILTERS_FIELDS, FILTERS_REF } from "../../src/adapters/http/openapi/filters.js";
import { createApiRouter } from "../../src/adapters/http/app.js";
import { refusalStatus } from "../../src/adapters/http/error-mapping.js";
import { PACKAGE_VERSION } from "../../src/adapters/system/package-version.js";
import { DELAY_DISTRIBUTIONS, FILTER_KINDS } from "../../src/domain/filters/catalogue.js";
import { parseFilterSettings } from "../../src/domain/filters/filter-settings.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { validates } from "../support/json-schema-check.js";

type Operation = { operationId: string; responses: Record<string, any>; security?: unknown };
type Doc = { info: Record<string, any>; servers?: { url: string }[]; security?: unknown; paths: Record<string, Record<string, Operation>>; components: Record<string, any> };

const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

/** A path of the template with each parameter filled: a UUID, digits, or a file name. */
const concrete = (path: string): string =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => (name.endsWith("_id") ? "7f4e4a2d-4444-4555-8666-777788889999" : name === "path" ? "a.txt" : "0"));

/** One request from a given loopback address (the login throttle keys on it), bounded in time. */
function send(url: string, method: string, path: string, from: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method, localAddress: from, agent: false, headers, timeout: 5000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("timeout", () => req.destroy(new Error("no answer within 5 s")));
    req.on("error", reject);
    req.end();
  });
}

/** The clock the login throttle reads: still, so no lockout ends while a test runs. */
class StillClock {
  ms = 5_000_000;
  nowMs(): number {
    return this.ms;
  }
}

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("The OpenAPI document of a server without --auth", () => {
  let s: TestServer;
  let doc: Doc;
  before(async () => {
    s = await startTestServer();
    doc = (await s.request("GET", OPENAPI_PATH)).json as Doc;
  });
  after(async () => s.close());

  it("declares the basic-auth scheme as optional: no credentials are needed, and none are refused", async () => {
    expect(doc.components["securitySchemes"]).to.deep.equal({ basic: { type: "http", scheme: "basic", description: "GNS3's --auth: user and password from the server's configuration" } });
    expect(doc.security).to.deep.equal([{}, { basic: [] }]);
    expect((await s.request("GET", "/v2/version")).status).to.equal(200);
    expect((await s.request("GET", "/v2/version", undefined, { Authorization: basic("any", "thing") })).status).to.equal(200);
  });

  it("lists no 401 or 429, which such a server never answers", () => {
    for (const { op } of operationsOf(doc)) expect(Object.keys(op.responses), op.operationId).to.not.include.members(["401", "429"]);
    expect(doc.components["responses"]).to.not.have.any.keys("Unauthorized", "TooManyRequests");
  });

  it("names the server relative to the document and the licence of package.json", () => {
    expect(doc.servers).to.deep.equal([{ url: "/", description: "The server that serves this document" }]);
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { license: string };
    expect(doc.info["license"]).to.deep.equal({ name: pkg.license, identifier: pkg.license });
  });
});

describe("The OpenAPI document of a server with --auth", function () {
  this.timeout(30_000);
  let s: TestServer;
  let doc: Doc;
  before(async () => {
    s = await startTestServer({ overrides: { clock: new StillClock() }, settings: { auth: { enabled: true, user: "admin", password: "s3cret" } } });
    const r = await send(s.url, "GET", OPENAPI_PATH, "127.0.0.1", { Authorization: basic("admin", "s3cret") });
    expect(r.status).to.equal(200);
    doc = JSON.parse(r.body) as Doc;
  });
  after(async () => s.close());

  it("requires basic auth, and every operation lists 401 and 429", () => {
    expect(doc.security).to.deep.equal([{ basic: [] }]);
    const ops = operationsOf(doc);
    expect(ops.length).to.be.greaterThan(80);
    for (const { path, op } of ops) {
      // /v3/compute refuses as a 3.x compute does, with its own bodies (ADR 0066).
      if (path.startsWith("/v3/")) {
        expect(op.responses["401"]?.content?.["application/json"]?.schema, op.operationId).to.deep.equal({ $ref: "#/components/schemas/V3Error" });
        expect(op.responses["429"]?.headers, op.operationId).to.have.key("Retry-After");
        continue;
      }
      expect(op.responses["401"], op.operationId).to.deep.equal({ $ref: "#/components/responses/Unauthorized" });
      expect(op.responses["429"], op.operationId).to.deep.equal({ $ref: "#/components/responses/TooManyRequests" });
    }
  });

  it("is true of every route: each one, this document and the metrics included, answers 401 without credentials", async () => {
    const ops = operationsOf(doc);
    expect(ops.map((o) => o.op.operationId)).to.include.members(["netemu.openapi", "netemu.ready", "server.metrics", "server.shutdown"]);
    // Each request from its own loopback address, so that the throttle locks none of them out.
    for (const [i, { path, method, op }] of ops.entries()) {
      const r = await send(s.url, method, concrete(path), `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`);
      expect(r.status, `${method} ${path} (${op.operationId})`).to.equal(401);
      if (path.startsWith("/v3/")) {
        // 3.0.6's 401: JSON, no WWW-Authenticate (its exception handler drops headers).
        expect(r.headers["www-authenticate"], op.operationId).to.equal(undefined);
        expect(JSON.parse(r.body), op.operationId).to.deep.equal({ message: "Not authenticated" });
        continue;
      }
      expect(r.headers["www-authenticate"], op.operationId).to.equal('Basic realm="GNS3 server"');
      expect(r.body, op.operationId).to.equal("");
    }
    const unauthorized = doc.components["responses"]["Unauthorized"];
    expect(unauthorized.content, "a 401 has no body").to.equal(undefined);
    expect(unauthorized.headers).to.have.key("WWW-Authenticate");
  });

  it("describes the throttle's 429 as it is answered: the error body, and Retry-After in seconds", async () => {
    let last = { status: 0, headers: {} as Record<string, unknown>, body: "" };
    for (let i = 0; i < 11; i++) last = await send(s.url, "GET", "/v2/version", "127.0.9.9", { Authorization: basic("admin", "guess") });
    expect(last.status).to.equal(429);
    const throttled = doc.components["responses"]["TooManyRequests"];
    expect(validates(throttled.content["application/json"].schema, JSON.parse(last.body), doc as never)).to.equal(true);
    expect(throttled.headers).to.have.key("Retry-After");
    expect(validates(throttled.headers["Retry-After"].schema, Number(last.headers["retry-after"]))).to.equal(true);
  });
});

describe("The refusals the OpenAPI document lists", function () {
  this.timeout(30_000);
  const P = "7f4e4a2d-4444-4555-8666-777788889999";
  const UNKNOWN = "7f4e4a2d-4444-4555-8666-000000000000";
  const seen: { route: string; status: number; body: unknown }[] = [];
  let s: TestServer;
  let doc: Doc;

  before(async () => {
    // Not local, so that shutdown is refused; a small body limit, so that a 413 is cheap.
    s = await startTestServer({ bodyLimitBytes: 4096, settings: { local: false } });
    s.netemu.app.middleware.unshift(async (ctx, next) => {
      await next();
      const route = (ctx.state as { route?: string }).route;
      if (route !== undefined && ctx.status >= 400 && ctx.status < 500) seen.push({ route, status: ctx.status, body: ctx.body });
    });
    doc = (await s.request("GET", OPENAPI_PATH)).json as Doc;
    const req = (method: string, path: string, body?: unknown) => s.request(method, path, body);
    const ok = async (method: string, path: string, body?: unknown) => {
      const r = await req(method, path, body);
      expect(r.status, `${method} ${path}: ${r.text}`).to.be.within(200, 299);
      return r.json as Record<string, unknown>;
    };
    // 400: a malformed body on a route that takes none, a body that does not fit, an ID that is not a UUID.
    await s.raw("POST", "/v2/debug", "{");
    await req("POST", "/v2/projects", { name: 5 });
    await req("GET", "/v2/compute/projects/not-a-uuid");
    // 413: a body past the limit.
    await req("POST", "/v2/projects", { name: "x".repeat(5000) });
    // 403: a server that is not local is not shut down over the API.
    await req("POST", "/v2/shutdown");
    await req("POST", "/v2/debug");
    // 404 on the compute and on the controller.
    await req("GET", `/v2/compute/projects/${UNKNOWN}`);
    await req("GET", `/v2/projects/${UNKNOWN}/links/${UNKNOWN}`);
    // 409s: a version mismatch, a taken project name, a NIO on a port in use, captures and a NIO removal on a port without NIO.
    await req("POST", "/v2/version", { version: "1.0" });
    const C = (await ok("POST", "/v2/projects", { name: "refusals" }))["project_id"] as string;
    await req("POST", "/v2/projects", { name: "refusals" });
    await ok("POST", "/v2/compute/projects", { name: "compute", project_id: P });
    const node = `/v2/compute/projects/${P}/ethernet_switch/nodes/${(await ok("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "S" }))["node_id"] as string}`;
    const lport = (await ok("POST", `/v2/compute/projects/${P}/ports/udp`))["udp_port"] as number;
    await ok("POST", `${node}/adapters/0/ports/1/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
    await req("POST", `${node}/adapters/0/ports/1/nio`, { type: "nio_null" });
    await req("POST", `${node}/adapters/0/ports/2/stop_capture`);
    await req("POST", `${node}/adapters/0/ports/2/start_capture`, { capture_file_name: "x.pcap", data_link_type: "DLT_EN10MB" });
    await req("DELETE", `${node}/adapters/0/ports/2/nio`);
    await req("GET", `${node}/adapters/0/ports/1/pcap`);
    // The controller: a port linked to itself, a pcap without capture, filters out of range, a second capture, then a closed project.
    const nodes = `/v2/projects/${C}/nodes`;
    const a = (await ok("POST", nodes, { name: "A", node_type: "ethernet_switch", compute_id: "local" }))["node_id"] as string;
    const b = (await ok("POST", nodes, { name: "B", node_type: "ethernet_switch", compute_id: "local" }))["node_id"] as string;
    await req("POST", `/v2/projects/${C}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: 1 }, { node_id: a, adapter_number: 0, port_number: 1 }] });
    const link = `/v2/projects/${C}/links/${(await ok("POST", `/v2/projects/${C}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: 3 }, { node_id: b, adapter_number: 0, port_number: 1 }] }))["link_id"] as string}`;
    await req("GET", `${link}/pcap`);
    await req("PUT", link, { filters: { bandwidth: [1] } });
    await ok("POST", `${link}/start_capture`, { capture_file_name: "link.pcap" });
    await req("POST", `${link}/start_capture`, { capture_file_name: "again.pcap" });
    await ok("POST", `${link}/stop_capture`);
    await ok("POST", `/v2/projects/${C}/close`);
    await req("POST", nodes, { name: "C", node_type: "ethernet_switch", compute_id: "local" });
    await req("GET", link);
  });
  after(async () => s.close());

  it("include every refusal a route answered, with a body that fits the Error schema", () => {
    // The requests above met refusals on this many routes, every status of the table among them.
    expect(new Set(seen.map((a) => a.route)).size).to.be.greaterThan(15);
    const byId = new Map(operationsOf(doc).map(({ op }) => [op.operationId, op] as const));
    expect(new Set(seen.map((a) => a.status))).to.deep.equal(new Set([400, 403, 404, 409, 413]));
    for (const answer of seen) {
      const listed = byId.get(answer.route)?.responses[String(answer.status)] as { $ref: string } | undefined;
      expect(listed, `${answer.route} answered ${answer.status}`).to.not.equal(undefined);
      const response = doc.components["responses"][(listed as { $ref: string }).$ref.replace("#/components/responses/", "")];
      expect(validates(response.content["application/json"].schema, JSON.parse(String(answer.body)), doc as never), `${answer.route} ${answer.status}`).to.equal(true);
    }
  });

  it("give every operation a 4xx, and a 404 exactly where its path names something", () => {
    for (const { path, op } of operationsOf(doc)) {
      const statuses = Object.keys(op.responses).filter((k) => /^4\d\d$/.test(k));
      expect(statuses, op.operationId).to.include.members(["400", "413"]);
      // netemu.impairments.set names its port in the body, by names a GNS3 user reads (ADR 0067).
      expect(statuses.includes("404"), op.operationId).to.equal(path.includes("{") || op.operationId === "netemu.impairments.set");
    }
  });

  it("are said of routes that exist, each with the statuses of the refusals its value declares", () => {
    const ids = new Set(operationsOf(doc).map(({ op }) => op.operationId));
    const byId = new Map(operationsOf(doc).map(({ op }) => [op.operationId, op] as const));
    const declaring = createApiRouter({ useCases: s.netemu.useCases, settings: s.netemu.settings, packageVersion: PACKAGE_VERSION }).entries().filter((e) => (e.refusals ?? []).length > 0);
    expect(declaring.length).to.be.greaterThan(50);
    for (const { name, template, refusals } of declaring) {
      expect(ids.has(name), name).to.equal(true);
      // /v3/compute lists its dialect's refusals, whatever the route (ADR 0066).
      if (template.startsWith("/v3/")) continue;
      // A refusal the document lists (a 4xx, or a worker's 503); any other 5xx is the operation's `default`.
      const statuses = (refusals ?? []).map(refusalStatus).filter((status) => status < 500 || status === 503);
      expect(Object.keys(byId.get(name)?.responses ?? {}), name).to.include.members(statuses.map(String));
    }
  });
});

describe("The OpenAPI document's filters", () => {
  let s: TestServer;
  let doc: Doc;
  before(async () => {
    s = await startTestServer();
    doc = (await s.request("GET", OPENAPI_PATH)).json as Doc;
  });
  after(async () => s.close());

  it("types every filter kind, GNS3's five and netemu's, and no other", () => {
    const filters = doc.components["schemas"]["Filters"];
    expect(Object.keys(filters.properties)).to.deep.equal([...FILTER_KINDS]);
    expect(filters.additionalProperties).to.equal(false);
    expect(FILTER_KINDS).to.have.length(20);
    expect(filters.properties["delay"].anyOf[0]).to.deep.include({ minItems: 1, maxItems: 2 });
    expect(filters.properties["burst_loss"].anyOf[0]).to.deep.include({ minItems: 2, maxItems: 4 });
    // ADR 0101: a chance is a number to 0.01 % or a text with %; a count stays an integer.
    expect(filters.properties["packet_loss"].anyOf[0].prefixItems).to.deep.equal([
      { description: "Chance (%, to 0.01 %), or with its unit (0.5%); answered in %", anyOf: [{ type: "number", minimum: 0, maximum: 100 }, { type: "string", pattern: "^[+-]?\\d+(\\.\\d+)?\\s*%$" }] },
    ]);
    expect(filters.properties["frequency_drop"].anyOf[0].prefixItems).to.deep.equal([{ type: "integer", minimum: -1, maximum: 32767, description: "Frequency (th packet)" }]);
  });

  it("leaves no filters field a bare object, in bodies or in answers", () => {
    let typed = 0;
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (typeof node !== "object" || node === null) return;
      const properties = (node as { properties?: Record<string, { $ref?: string }> }).properties;
      for (const field of FILTERS_FIELDS) {
        const p = properties?.[field];
        if (p !== undefined && typeof (p as { type?: unknown }).type !== "undefined" && !("prefixItems" in p)) expect.fail(`a bare ${field}: ${JSON.stringify(p)}`);
        if (p?.$ref === FILTERS_REF) typed++;
      }
      Object.values(node).forEach(visit);
    };
    visit(doc.paths);
    // link bodies and answers (filters and each end's filters), the NIO bodies and answers (filters, _in, _out).
    expect(typed).to.be.greaterThan(20);
  });

  it("accepts a kind's values exactly when the domain's parse takes them", () => {
    const filters = doc.components["schemas"]["Filters"];
    const value = fc.oneof(
      fc.integer({ min: -3, max: 110 }),
      fc.constantFrom(0, 8, 7, 32767, 32768, 10_000, 10_001, 10_000_000, 10_000_001, 99, 100, 101, 1.5, null, true),
      fc.constantFrom(...DELAY_DISTRIBUTIONS, "", " ", "\n", "tcp", "udp port 53", "not an expression", "Normal"),
    );
    const entry = fc.oneof({ weight: 8, arbitrary: fc.array(value, { maxLength: 5 }) }, { weight: 1, arbitrary: fc.array(value, { minLength: 60, maxLength: 70 }) });
    fc.assert(
      fc.property(fc.constantFrom(...FILTER_KINDS), entry, (kind, values) => {
        const body = { [kind]: values };
        expect(validates(filters, body, doc as never), `${JSON.stringify(body)}`).to.equal(E.isRight(parseFilterSettings(body)));
      }),
      { numRuns: 3000, seed: 1863 },
    );
  });
});

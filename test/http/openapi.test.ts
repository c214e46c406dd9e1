import { expect } from "chai";
import * as t from "io-ts";
import { createApiRouter } from "../../src/adapters/http/app.js";
import type { ApiRouter } from "../../src/adapters/http/api-router.js";
import { OPENAPI_PATH, openApiPath } from "../../src/adapters/http/openapi/document.js";
import { toJsonSchema, UndescribableCodec } from "../../src/adapters/http/openapi/json-schema.js";
import { asOneOf, jsonClosedObject, jsonInteger, jsonString } from "../../src/adapters/http/schema.js";
import { PACKAGE_VERSION } from "../../src/adapters/package-version.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { disagreement, validates } from "../support/json-schema-check.js";

type Doc = { openapi: string; info: Record<string, unknown>; paths: Record<string, Record<string, any>>; components: { schemas: Record<string, unknown> } };

describe("the OpenAPI document", () => {
  let s: TestServer;
  let doc: Doc;
  let api: ApiRouter;

  before(async () => {
    s = await startTestServer();
    const r = await s.request("GET", OPENAPI_PATH);
    expect(r.status).to.equal(200);
    expect(r.headers.get("content-type")).to.match(/^application\/json/);
    doc = r.json as Doc;
    // The same routes the served app registered, built again to read what the router really serves.
    api = createApiRouter({ useCases: s.netemu.useCases, settings: s.netemu.settings, packageVersion: PACKAGE_VERSION });
  });
  after(async () => s.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

  it("is served at /v2/netemu/openapi.json as OpenAPI 3.1 with netemu's version", () => {
    expect(doc.openapi).to.equal("3.1.0");
    expect(doc.info).to.deep.include({ title: "netemu", version: PACKAGE_VERSION });
  });

  it("lists every route the router serves, and no route it does not serve", () => {
    const served = api.router.stack.map((layer) => {
      const path = String(layer.path).replace(/[:*](\w+)/g, "{$1}");
      const method = layer.methods.filter((m) => m !== "HEAD")[0];
      return `${method} ${path} ${layer.name}`;
    });
    const documented = operations().map(({ path, method, op }) => `${method} ${path} ${op.operationId}`);
    expect([...documented].sort()).to.deep.equal([...served].sort());
    expect(served.length).to.be.greaterThan(80);
  });

  it("names each operation after its route handler, once", () => {
    const ids = operations().map(({ op }) => op.operationId as string);
    expect(new Set(ids).size).to.equal(ids.length);
    expect([...ids].sort()).to.deep.equal(api.entries().map((e) => e.name).sort());
  });

  it("gives each route's body the schema of the codec the route decodes it with", () => {
    const withBodies = api.entries().filter((e) => e.body !== undefined);
    expect(withBodies.length).to.be.greaterThan(15);
    for (const route of withBodies) {
      const op = doc.paths[openApiPath(route.template)]?.[route.method.toLowerCase()];
      expect(op?.requestBody?.content?.["application/json"]?.schema, route.name).to.deep.equal(toJsonSchema(route.body as t.Mixed));
    }
    for (const { op } of operations()) {
      const route = api.entries().find((e) => e.name === op.operationId);
      if (route?.body === undefined && route?.rawBody !== true) expect(op.requestBody, `${op.operationId} decodes no body`).to.equal(undefined);
    }
  });

  it("has body schemas that accept exactly what their codecs accept, on generated bodies", () => {
    const codecs = new Map(api.entries().flatMap((e) => (e.body === undefined ? [] : [[e.body, e.name] as const])));
    let seed = 4501;
    for (const [codec, name] of codecs) {
      const found = disagreement(codec as t.Mixed, toJsonSchema(codec as t.Mixed), 300, seed++);
      expect(found, `${name}: the codec and its schema disagree`).to.equal(undefined);
    }
  });

  it("declares every path parameter of every path, required, and no other", () => {
    for (const { path, op } of operations()) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = ((op.parameters ?? []) as { name: string; in: string; required: boolean }[]).filter((p) => p.in === "path");
      expect(declared.map((p) => p.name), `${op.operationId}`).to.deep.equal(inPath);
      for (const p of declared) expect(p.required, `${op.operationId} ${p.name}`).to.equal(true);
    }
  });

  it("follows OpenAPI's required fields: paths from /, responses on every operation, references that resolve", () => {
    expect(doc.info["title"]).to.be.a("string");
    expect(doc.info["version"]).to.be.a("string");
    for (const path of Object.keys(doc.paths)) expect(path).to.match(/^\//);
    for (const { method, op } of operations()) {
      expect(["GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS"]).to.include(method);
      expect(Object.keys(op.responses ?? {}), op.operationId).to.not.be.empty;
      for (const key of Object.keys(op.responses)) expect(key).to.match(/^(default|[1-5](XX|\d\d))$/);
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs).to.not.be.empty;
    for (const ref of refs) expect(doc.components.schemas, ref).to.have.property(ref.replace("#/components/schemas/", ""));
  });

  it("describes the refusal every route may answer, and it fits a real one", async () => {
    const refusal = (await s.request("GET", "/v2/compute/projects/not-a-uuid")).json;
    expect(validates(doc.components.schemas["Error"] as never, refusal)).to.equal(true);
  });

  it("lives at a path no other route answers", () => {
    const matched = api.router.match(OPENAPI_PATH, "GET").pathAndMethod.map((layer) => layer.name);
    expect(matched).to.deep.equal(["netemu.openapi"]);
    const anyMethod = api.router.match(OPENAPI_PATH, "POST").path.map((layer) => layer.name);
    expect(anyMethod).to.deep.equal(["netemu.openapi"]);
  });
});

describe("the codec to JSON Schema converter", () => {
  it("refuses loudly a codec whose kind it does not know", () => {
    expect(() => toJsonSchema(t.string)).to.throw(UndescribableCodec, 'no JSON Schema for the codec "string" (StringType)');
    const handWritten = new t.Type<string, string, unknown>("Custom", (u): u is string => typeof u === "string", (u, c) => t.success(String(u)), t.identity);
    expect(() => toJsonSchema(jsonClosedObject("Holder", { inner: handWritten }, {}))).to.throw(UndescribableCodec, '"Custom" (a hand-written t.Type)');
  });

  it("renders nullable values, bounds, patterns and closed objects as JSON Schema says them", () => {
    const codec = jsonClosedObject("Example", { id: jsonString({ minLength: 2, pattern: /^a/ }) }, { n: jsonInteger({ minimum: 1, maximum: 9 }) }, { additional: false });
    expect(toJsonSchema(codec)).to.deep.equal({
      title: "Example",
      type: "object",
      properties: { id: { type: "string", minLength: 2, pattern: "^a" }, n: { type: "integer", minimum: 1, maximum: 9 } },
      required: ["id"],
      additionalProperties: false,
    });
  });

  it("lets the cross-check catch a codec whose declared shape lies about what it accepts", () => {
    const branch = jsonClosedObject("Only", { type: t.literal("only") }, {});
    const liar = asOneOf(new t.Type<unknown, unknown, unknown>("Liar", (u): u is unknown => true, (u) => t.success(u), t.identity), [branch]);
    expect(disagreement(liar, toJsonSchema(liar), 200, 7)).to.not.equal(undefined);
  });
});

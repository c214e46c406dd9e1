import { expect } from "chai";
import Koa from "koa";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import * as E from "fp-ts/lib/Either.js";
import { ApiRouter } from "../../src/adapters/http/api-router.js";
import { createBodyParser } from "../../src/adapters/http/request-body.js";
import { choice, json, route } from "../../src/adapters/http/route.js";
import { openApiDocument } from "../../src/adapters/http/openapi/document.js";
import { jsonBoolean, jsonClosedObject, jsonInteger, jsonString } from "../../src/adapters/http/schema.js";
import type { UseCases } from "../../src/application/use-cases/index.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";

const NO_USE_CASES = {} as UseCases;

/** A report whose status says part of it: 200 when up, 503 with GNS3's message when not. */
const HEALTH = route({
  name: "test.health",
  method: "GET",
  path: "/v2/test/health/{up}",
  refusals: [],
  run: async (_uc, { params }) => E.right({ up: params.up === "yes" }),
  answer: choice(
    {
      up: json(200, jsonClosedObject("Up", { up: jsonBoolean }, {}), (h: { up: boolean }) => ({ up: h.up })),
      down: json(503, jsonClosedObject("Down", { message: jsonString(), status: jsonInteger(), up: jsonBoolean }, {}), (h: { up: boolean }) => ({ message: "it is down", status: 503, up: h.up })),
    },
    (h) => (h.up ? "up" : "down"),
  ),
});

describe("an answer that is a choice of statuses by the value (ADR 0080)", () => {
  let api: ApiRouter;
  let server: Server;
  let url: string;
  before(async () => {
    api = new ApiRouter(createBodyParser(1024 * 1024));
    api.addRoute(HEALTH, NO_USE_CASES);
    const app = new Koa();
    app.use(api.router.routes());
    server = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers the status and body the value chooses", async () => {
    const up = await fetch(`${url}/v2/test/health/yes`);
    expect([up.status, JSON.parse(await up.text())]).to.deep.equal([200, { up: true }]);
    const down = await fetch(`${url}/v2/test/health/no`);
    expect([down.status, JSON.parse(await down.text())]).to.deep.equal([503, { message: "it is down", status: 503, up: false }]);
  });

  it("is described with every status it may answer, each with its schema", () => {
    const doc = openApiDocument(api.entries(), { version: "0", gns3Version: "2.2.59", auth: false }) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { title?: string } }> }> }>> };
    const responses = doc.paths["/v2/test/health/{up}"]?.["get"]?.responses ?? {};
    expect(responses["200"]?.content?.["application/json"]?.schema.title).to.equal("Up");
    expect(responses["503"]?.content?.["application/json"]?.schema.title).to.equal("Down");
  });
});

describe("the server's routes as values", () => {
  let s: TestServer;
  const logger = new RecordingLogger();
  before(async () => {
    s = await startTestServer({ settings: { local: false }, overrides: { logger } });
  });
  after(async () => s.close());

  it("send the OpenAPI document as application/json with its charset, as before they were values", async () => {
    const r = await fetch(`${s.url}/v2/netemu/openapi.json`);
    expect(r.headers.get("content-type")).to.equal("application/json; charset=utf-8");
    expect(JSON.parse(await r.text()).openapi).to.equal("3.1.0");
  });

  it("document the refusals of debug and shutdown from their use cases' tags: a 403 on a non-local server", async () => {
    const doc = (await s.request("GET", "/v2/netemu/openapi.json")).json as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const path of ["/v2/debug", "/v2/shutdown"]) {
      expect(Object.keys(doc.paths[path]?.["post"]?.responses ?? {}), path).to.include("403");
      const r = await s.request("POST", path);
      expect([r.status, r.json], path).to.deep.equal([403, { message: `You can only ${path === "/v2/debug" ? "debug" : "stop"} a local server`, status: 403 }]);
    }
  });
});

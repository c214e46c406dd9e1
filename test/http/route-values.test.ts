import { expect } from "chai";
import Koa from "koa";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import * as E from "fp-ts/lib/Either.js";
import { ApiRouter } from "../../src/adapters/http/api-router.js";
import { createApiRouter } from "../../src/adapters/http/app.js";
import { createBodyParser } from "../../src/adapters/http/request-body.js";
import { decodePart, empty, json, pathParameters, raw, route } from "../../src/adapters/http/route.js";
import { refusalStatus, toHttpError } from "../../src/adapters/http/error-mapping.js";
import { OPENAPI_PATH, openApiDocument } from "../../src/adapters/http/openapi/document.js";
import { jsonClosedObject, jsonInteger, jsonObject, jsonString } from "../../src/adapters/http/schema.js";
import type { UseCases } from "../../src/application/use-cases/index.js";
import type { ErrorOf } from "../../src/application/errors.js";
import { DROP_REASONS } from "../../src/domain/switching/port-counters.js";
import { startTestServer } from "../support/http-harness.js";

/** No use case is reached: the routes below run their own work, so that the router alone is tested. */
const NO_USE_CASES = {} as UseCases;

const Answer = jsonClosedObject("Renamed", { name: jsonString(), port_number: jsonInteger() }, {});
const Body = jsonClosedObject("Rename", { name: jsonString({ minLength: 1 }) }, {});

/** A route declared as one value: a port renamed, refused with ProjectNameTaken when the name is "taken". */
const RENAME = route({
  name: "test.port.rename",
  method: "PUT",
  path: "/v2/test/projects/{project_id}/ports/{port_number:\\d+}",
  body: Body,
  refusals: ["ProjectNameTaken"],
  run: async (_uc, { params, body }): Promise<E.Either<ErrorOf<"ProjectNameTaken">, { name: string; port: number }>> =>
    body.name === "taken" ? E.left({ _tag: "ProjectNameTaken", name: body.name }) : E.right({ name: `${params.project_id}:${body.name}`, port: params.port_number }),
  answer: json(200, Answer, (v: { name: string; port: number }) => ({ name: v.name, port_number: v.port })),
});

const FORGET = route({
  name: "test.port.forget",
  method: "DELETE",
  path: "/v2/test/ports/{port_number:\\d+}",
  refusals: [],
  run: async () => E.right(undefined),
  answer: empty(204),
});

/** A body whose `port` is read by what the use case knows: here, a port named "strict" takes integers only. */
const Port = jsonClosedObject("Port", { value: jsonInteger({ minimum: 0 }) }, {});
const SET = route({
  name: "test.port.set",
  method: "PUT",
  path: "/v2/test/settings/{name}",
  body: jsonClosedObject("Setting", { port: jsonObject }, {}),
  refusals: [],
  run: async (_uc, { params, body }) => {
    if (params.name !== "strict") return E.right(undefined);
    const port = decodePart(Port, body.port);
    return E.isLeft(port) ? port : E.right(undefined);
  },
  answer: empty(204),
});

const STREAM = route({
  name: "test.stream",
  method: "GET",
  path: "/v2/test/stream",
  refusals: [],
  run: async () => E.right("frames"),
  answer: raw(200, "application/vnd.tcpdump.pcap", (text: string) => text),
});

async function serve(api: ApiRouter): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use(api.router.routes());
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("a route declared as one value", () => {
  let api: ApiRouter;
  let server: { url: string; close: () => Promise<void> };
  before(async () => {
    api = new ApiRouter(createBodyParser(1024 * 1024));
    for (const r of [RENAME, FORGET, STREAM, SET]) api.addRoute(r, NO_USE_CASES);
    server = await serve(api);
  });
  after(async () => server.close());

  it("decodes the template's parameters as it declares them: digit-only ones as numbers", () => {
    expect(pathParameters("/p/{project_id}/a/{adapter_number:\\d+}/f/{path:.+}", (name) => ({ project_id: "P", adapter_number: "07", path: "a/b" })[name] ?? "")).to.deep.equal({
      project_id: "P",
      adapter_number: 7,
      path: "a/b",
    });
  });

  it("answers the use case's result as its answer says, with the status the route declares", async () => {
    const r = await fetch(`${server.url}/v2/test/projects/P1/ports/3`, { method: "PUT", body: JSON.stringify({ name: "uplink" }) });
    expect(r.status).to.equal(200);
    expect(r.headers.get("x-route")).to.equal("/v2/test/projects/{project_id}/ports/{port_number:\\d+}");
    expect(await r.json()).to.deep.equal({ name: "P1:uplink", port_number: 3 });
  });

  it("answers a refusal through the one error mapping", async () => {
    const r = await fetch(`${server.url}/v2/test/projects/P1/ports/3`, { method: "PUT", body: JSON.stringify({ name: "taken" }) });
    expect(r.status).to.equal(409);
    expect(await r.json()).to.deep.equal({ message: 'Project "taken" already exists', status: 409 });
  });

  it("refuses a body that does not fit its codec with GNS3's 400 before the use case runs", async () => {
    const r = await fetch(`${server.url}/v2/test/projects/P1/ports/3`, { method: "PUT", body: JSON.stringify({ name: "" }) });
    expect(r.status).to.equal(400);
    expect(((await r.json()) as { path: string }).path).to.equal("/v2/test/projects/{project_id}/ports/{port_number:\\d+}");
  });

  it("refuses a part of the body its run reads with what the use case knows as a body that does not fit: GNS3's 400, the route named", async () => {
    const loose = await fetch(`${server.url}/v2/test/settings/loose`, { method: "PUT", body: JSON.stringify({ port: { value: "x" } }) });
    expect(loose.status).to.equal(204);
    const strict = await fetch(`${server.url}/v2/test/settings/strict`, { method: "PUT", body: JSON.stringify({ port: { value: "x" } }) });
    expect(strict.status).to.equal(400);
    const body = (await strict.json()) as { message: string; method: string; path: string; request: unknown };
    expect(body.message, body.message).to.match(/^JSON schema error with API request '\/v2\/test\/settings\/strict' and JSON data .*: 'x' is not of type 'integer'$/);
    expect(body).to.deep.include({ method: "PUT", path: "/v2/test/settings/{name}", request: { port: { value: "x" } } });
  });

  it("answers an empty answer without a body, and a raw one with its content type", async () => {
    const gone = await fetch(`${server.url}/v2/test/ports/4`, { method: "DELETE" });
    expect(gone.status).to.equal(204);
    expect(await gone.text()).to.equal("");
    const stream = await fetch(`${server.url}/v2/test/stream`);
    expect(stream.status).to.equal(200);
    expect(stream.headers.get("content-type")).to.equal("application/vnd.tcpdump.pcap");
    expect(await stream.text()).to.equal("frames");
  });

  it("is described by the document from the same value: its answer's codec and its refusals' statuses", () => {
    const doc = openApiDocument(api.entries(), { version: "0", gns3Version: "2.2.59", auth: false }) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const responses = doc.paths["/v2/test/projects/{project_id}/ports/{port_number}"]?.["put"]?.responses ?? {};
    expect(responses["200"]).to.deep.equal({
      description: "GNS3's answer, keys sorted",
      content: { "application/json": { schema: { title: "Renamed", type: "object", properties: { name: { type: "string" }, port_number: { type: "integer" } }, required: ["name", "port_number"], additionalProperties: false } } },
    });
    // 400 and 413 for every route, 404 for a path naming something, 409 from its one refusal tag.
    expect(Object.keys(responses).filter((k) => /^4/.test(k))).to.deep.equal(["400", "404", "409", "413"]);
    const stream = doc.paths["/v2/test/stream"]?.["get"]?.responses ?? {};
    expect(stream["200"]).to.deep.equal({ description: "A stream", content: { "application/vnd.tcpdump.pcap": { schema: { type: "string", format: "binary" } } } });
  });
});

describe("the refusal statuses", () => {
  it("are the one error mapping's, tag by tag", () => {
    expect(refusalStatus("ProjectNameTaken")).to.equal(toHttpError({ _tag: "ProjectNameTaken", name: "x" }).status);
    expect(refusalStatus("FileNotFound")).to.equal(toHttpError({ _tag: "FileNotFound" }).status);
    expect(refusalStatus("ImpairmentsUnwritable")).to.equal(500);
  });
});

describe("the compute's switch and hub routes, declared as values", () => {
  type Op = { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> };
  let paths: Record<string, Record<string, Op>>;
  before(async () => {
    const s = await startTestServer();
    paths = ((await s.request("GET", OPENAPI_PATH)).json as { paths: typeof paths }).paths;
    await s.close();
  });

  it("type each drop reason of a port's counters, packet_loss among them, in the switch's answer", () => {
    const get = paths["/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}"]?.["get"];
    const node = get?.responses["200"]?.content?.["application/json"]?.schema as { properties: Record<string, { items: { properties: Record<string, { properties?: Record<string, unknown> }> } }> };
    const drops = node.properties["ports_statistics"]?.items.properties["drops"];
    expect(Object.keys(drops?.properties ?? {})).to.have.members([...DROP_REASONS]);
    expect(drops?.properties?.["packet_loss"]).to.deep.equal({ type: "integer", minimum: 0 });
  });

  it("describe a port's capture stream with its content type", () => {
    const pcap = paths["/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/pcap"]?.["get"];
    expect(Object.keys(pcap?.responses["200"]?.content ?? {})).to.deep.equal(["application/vnd.tcpdump.pcap"]);
  });

  it("describe the MAC table's entries", () => {
    const table = paths["/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/mac_table"]?.["get"];
    const schema = table?.responses["200"]?.content?.["application/json"]?.schema as { items: { properties: Record<string, unknown> } };
    expect(Object.keys(schema.items.properties)).to.have.members(["mac", "vlan", "port_number", "age"]);
  });
});

describe("the controller's node, link and capture routes, declared as values", () => {
  type Op = { responses: Record<string, unknown> };
  let paths: Record<string, Record<string, Op>>;
  before(async () => {
    const s = await startTestServer();
    paths = ((await s.request("GET", OPENAPI_PATH)).json as { paths: typeof paths }).paths;
    await s.close();
  });
  const statuses = (path: string, method: string) => Object.keys(paths[path]?.[method]?.responses ?? {}).filter((k) => /^[45]\d\d$/.test(k));

  it("list the statuses of their use cases' refusals: a link capture's 503 (a worker down) from its tag, on the compute's route too", () => {
    expect(statuses("/v2/projects/{project_id}/links/{link_id}/start_capture", "post")).to.deep.equal(["400", "403", "404", "409", "413", "503"]);
    expect(statuses("/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/start_capture", "post")).to.include("503");
    // A project closed (403), a link's end or filter refused (400, 404, 409).
    expect(statuses("/v2/projects/{project_id}/links", "post")).to.deep.equal(["400", "403", "404", "409", "413"]);
    // A template is read from the built-in list only: no 403 or 409.
    expect(statuses("/v2/templates/{template_id}", "get")).to.deep.equal(["400", "404", "413"]);
  });
});

describe("/v3/compute's switch, hub and project routes", () => {
  it("are the v2 route values through the 3.x dialect: the same use case's refusals, under v3 names", async () => {
    const s = await startTestServer({ settings: { v3: { gns3Version: "3.0.6", noAuth: true } } });
    try {
      const entries = createApiRouter({ useCases: s.netemu.useCases, settings: s.netemu.settings, packageVersion: "0" }).entries();
      const byName = new Map(entries.map((e) => [e.name, e] as const));
      const twins: [string, string][] = [
        ["v3.compute.ethernet_switch.get", "compute.ethernet_switch.get"],
        ["v3.compute.ethernet_hub.nio.create", "compute.ethernet_hub.nio.create"],
        ["v3.compute.ethernet_switch.capture.start", "compute.ethernet_switch.start_capture"],
        ["v3.compute.ethernet_hub.capture.stream", "compute.ethernet_hub.pcap"],
        ["v3.compute.project.file.write", "compute.project.file.write"],
        ["v3.compute.project.create", "compute.project.create"],
      ];
      for (const [v3, v2] of twins) {
        expect(byName.get(v3)?.refusals, v3).to.not.equal(undefined);
        expect(byName.get(v3)?.refusals, v3).to.deep.equal(byName.get(v2)?.refusals);
      }
      // One upload route, two statuses: 3.x answers 204 where 2.2 answered 201.
      expect([byName.get("compute.project.file.write")?.answer, byName.get("v3.compute.project.file.write")?.answer]).to.deep.equal([{ kind: "empty", status: 201 }, { kind: "empty", status: 204 }]);
      expect(byName.get("v3.compute.project.file.write")?.template).to.equal("/v3/compute/projects/{project_id}/files/{file_path:.+}");
      expect(byName.get("v3.compute.ethernet_hub.capture.stream")?.template).to.equal("/v3/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}/capture/stream");
      const doc = (await s.request("GET", OPENAPI_PATH)).json as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
      const stream = doc.paths["/v3/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/capture/stream"]?.["get"];
      expect(Object.keys(stream?.responses["200"]?.content ?? {})).to.deep.equal(["application/vnd.tcpdump.pcap"]);
    } finally {
      await s.close();
    }
  });
});

import { freeUdpPort } from "../support/udp-peer.js";
import { expect } from "chai";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as t from "io-ts";
import { createApiRouter } from "../../src/adapters/http/app.js";
import type { ApiRouter } from "../../src/adapters/http/api-router.js";
import { OPENAPI_PATH, openApiPath } from "../../src/adapters/http/openapi/document.js";
import { toJsonSchema, UndescribableCodec } from "../../src/adapters/http/openapi/json-schema.js";
import { WALKED_ANSWERS } from "../support/walked-answers.js";
import { withTypedFilters } from "../../src/adapters/http/openapi/filters.js";
import { asOneOf, jsonClosedObject, jsonInteger, jsonString } from "../../src/adapters/http/schema.js";
import { PACKAGE_VERSION } from "../../src/adapters/system/package-version.js";
import { FakeHostProcesses } from "../support/fake-host-processes.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { disagreement, validates } from "../support/json-schema-check.js";

type Doc = { openapi: string; info: Record<string, unknown>; paths: Record<string, Record<string, any>>; components: { schemas: Record<string, unknown> } };

/** What a local reference (`#/components/...`) points at in the document, or undefined. */
function pointedAt(doc: unknown, ref: string): unknown {
  let node: unknown = doc;
  for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Record<string, unknown> | undefined)?.[part];
  return node;
}

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
    // The served app counts requests and serves /metrics: a router with metrics, whatever they count.
    const metrics = { requestAnswered: () => undefined, scrape: async () => ({ contentType: "text/plain", text: "" }) };
    api = createApiRouter({ useCases: s.netemu.useCases, settings: s.netemu.settings, packageVersion: PACKAGE_VERSION, metrics });
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

  it("gives each route's body the schema of the codec the route decodes it with, filters typed", () => {
    const withBodies = api.entries().filter((e) => e.body !== undefined);
    expect(withBodies.length).to.be.greaterThan(15);
    for (const route of withBodies) {
      const op = doc.paths[openApiPath(route.template)]?.[route.method.toLowerCase()];
      expect(op?.requestBody?.content?.["application/json"]?.schema, route.name).to.deep.equal(withTypedFilters(toJsonSchema(route.body as t.Mixed)));
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
    for (const ref of refs) expect(pointedAt(doc, ref), ref).to.be.an("object");
  });

  it("describes the refusal every route may answer, and it fits a real one", async () => {
    const refusal = (await s.request("GET", "/v2/compute/projects/not-a-uuid")).json;
    expect(validates(doc.components.schemas["Error"] as never, refusal)).to.equal(true);
  });

  it("describes /v3's own refusals, and they fit real ones", async () => {
    // This server checks no credentials and was not told to serve /v3 without them.
    const refused = await s.request("GET", "/v3/compute/capabilities");
    expect(refused.status).to.equal(401);
    expect(validates(doc.components.schemas["V3Error"] as never, refused.json)).to.equal(true);
    const ops = doc.paths["/v3/compute/capabilities"] as Record<string, { responses: Record<string, unknown> }>;
    expect(Object.keys(ops["get"]?.responses ?? {})).to.include.members(["200", "401", "422"]);
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

describe("the documented success answers", () => {
  const P = "7f4e4a2d-4444-4555-8666-777788889999";
  const P2 = "7f4e4a2d-4444-4555-8666-77778888aaaa";
  const answers: { route: string | undefined; status: number; body: unknown }[] = [];
  let s: TestServer;
  let doc: Doc;

  before(async () => {
    // Project files kept, so that POST /v2/projects/load has a .gns3 file to read; VPCS nodes start
    // against a fake of their processes: the answers are what is checked here.
    s = await startTestServer({ persistProjects: true, settings: { v3: { gns3Version: "3.0.6", noAuth: true } }, overrides: { hostProcesses: new FakeHostProcesses() } });
    // Sees every answer as the route built it, before it leaves (added before the first request).
    s.netemu.app.middleware.unshift(async (ctx, next) => {
      await next();
      answers.push({ route: (ctx.state as { route?: string }).route, status: ctx.status, body: ctx.body });
    });
    const ok = async (method: string, path: string, body?: unknown) => {
      const r = await s.request(method, path, body);
      expect(r.status, `${method} ${path}: ${r.text}`).to.be.within(200, 299);
      return r.json;
    };
    await ok("GET", "/v2/version");
    await ok("GET", "/v2/compute/version");
    await ok("POST", "/v2/version", { version: "2.2.59" });
    await ok("GET", "/v2/compute/capabilities");
    await ok("POST", "/v2/compute/projects", { name: "doc", project_id: P });
    await ok("POST", "/v2/compute/projects", { name: "gone", project_id: P2 });
    await ok("GET", "/v2/compute/projects");
    await ok("GET", `/v2/compute/projects/${P}`);
    await ok("PUT", `/v2/compute/projects/${P}`, { variables: [{ name: "a", value: "b" }] });
    // netemu's impairments on a port by name (ADR 0067).
    await ok("POST", `/v2/compute/projects/${P}/ethernet_switch/nodes`, { name: "Impaired" });
    await ok("PUT", "/v2/netemu/impairments", { project: "doc", node: "Impaired", port: "Ethernet1", filters_out: { delay: [5] } });
    await ok("GET", "/v2/netemu/impairments?project=doc");
    await ok("DELETE", "/v2/netemu/impairments?project=doc");
    for (const nodeType of ["ethernet_switch", "ethernet_hub"]) {
      const nodes = `/v2/compute/projects/${P}/${nodeType}/nodes`;
      const node = `${nodes}/${(await ok("POST", nodes, { name: `N-${nodeType}` })).node_id as string}`;
      await ok("PUT", node, { name: `R-${nodeType}` });
      // GNS3 duplicates into a node the controller created first.
      const copy = nodeType === "ethernet_hub" ? "7f4e4a2d-0000-4000-8000-000000000002" : "7f4e4a2d-0000-4000-8000-000000000001";
      await ok("POST", nodes, { name: `C-${nodeType}`, node_id: copy });
      await ok("POST", `${node}/duplicate`, { destination_node_id: copy });
      for (const action of ["stop", "suspend", "start"]) await ok("POST", `${node}/${action}`);
      const lport = (await ok("POST", `/v2/compute/projects/${P}/ports/udp`)).udp_port as number;
      await ok("POST", `${node}/adapters/0/ports/1/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
      await ok("PUT", `${node}/adapters/0/ports/1/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { delay: [5] } });
      await ok("POST", `${node}/adapters/0/ports/2/nio`, { type: "nio_null" });
      await ok("PUT", `${node}/adapters/0/ports/2/nio`, { type: "nio_null" });
      await ok("GET", node);
      await ok("POST", `${node}/adapters/0/ports/1/start_capture`, { capture_file_name: `${nodeType}.pcap`, data_link_type: "DLT_EN10MB" });
      await ok("POST", `${node}/adapters/0/ports/1/stop_capture`);
      await ok("DELETE", `${node}/adapters/0/ports/1/nio`);
      await ok("DELETE", node);
    }
    {
      // GNS3's VPCS routes (ADR 0081): its one port is 0.
      const nodes = `/v2/compute/projects/${P}/vpcs/nodes`;
      const node = `${nodes}/${(await ok("POST", nodes, { name: "PC1", startup_script: "ip 10.0.0.1/24" })).node_id as string}`;
      await ok("PUT", node, { name: "PC2" });
      const copy = "7f4e4a2d-0000-4000-8000-000000000005";
      await ok("POST", nodes, { name: "PC3", node_id: copy });
      await ok("POST", `${node}/duplicate`, { destination_node_id: copy });
      for (const action of ["start", "suspend", "reload", "stop", "start"]) await ok("POST", `${node}/${action}`);
      await ok("POST", `${node}/console/reset`);
      const lport = (await ok("POST", `/v2/compute/projects/${P}/ports/udp`)).udp_port as number;
      await ok("POST", `${node}/adapters/0/ports/0/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
      await ok("PUT", `${node}/adapters/0/ports/0/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { delay: [5] } });
      await ok("GET", node);
      await ok("POST", `${node}/adapters/0/ports/0/start_capture`, { capture_file_name: "vpcs.pcap", data_link_type: "DLT_EN10MB" });
      await ok("POST", `${node}/adapters/0/ports/0/stop_capture`);
      await ok("DELETE", `${node}/adapters/0/ports/0/nio`);
      await ok("DELETE", node);
    }
    {
      // GNS3's Cloud routes (ADR 0082): a UDP tunnel port, linked.
      const nodes = `/v2/compute/projects/${P}/cloud/nodes`;
      const tunnel = (rport: number) => [{ name: "UDP tunnel 1", port_number: 0, type: "udp", lport: 1, rhost: "127.0.0.1", rport }];
      const free = await freeUdpPort();
      const node = `${nodes}/${(await ok("POST", nodes, { name: "Cloud1", ports_mapping: tunnel(9).map((p) => ({ ...p, lport: free })) })).node_id as string}`;
      await ok("PUT", node, { name: "Cloud2" });
      const copy = "7f4e4a2d-0000-4000-8000-000000000006";
      await ok("POST", nodes, { name: "Cloud3", node_id: copy, ports_mapping: [] });
      await ok("POST", `${node}/duplicate`, { destination_node_id: copy });
      for (const action of ["start", "suspend", "stop"]) await ok("POST", `${node}/${action}`);
      const lport = (await ok("POST", `/v2/compute/projects/${P}/ports/udp`)).udp_port as number;
      await ok("POST", `${node}/adapters/0/ports/0/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
      await ok("PUT", `${node}/adapters/0/ports/0/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { delay: [5] } });
      await ok("GET", node);
      await ok("POST", `${node}/adapters/0/ports/0/start_capture`, { capture_file_name: "cloud.pcap", data_link_type: "DLT_EN10MB" });
      await ok("POST", `${node}/adapters/0/ports/0/stop_capture`);
      await ok("DELETE", `${node}/adapters/0/ports/0/nio`);
      await ok("DELETE", node);
    }
    {
      // netemu's Linux host (ADR 0087), stopped: starting it needs root, which the e2e tests have.
      const nodes = `/v2/compute/projects/${P}/netemu_host/nodes`;
      const node = `${nodes}/${(await ok("POST", nodes, { name: "H1", interfaces: [{ name: "eth0", address: "10.0.0.1/24" }, { name: "eth1" }], gateway: "10.0.0.254" })).node_id as string}`;
      await ok("PUT", node, { name: "H2", gateway: null });
      const copy = "7f4e4a2d-0000-4000-8000-000000000007";
      await ok("POST", nodes, { name: "H3", node_id: copy });
      await ok("POST", `${node}/duplicate`, { destination_node_id: copy });
      for (const action of ["suspend", "stop"]) await ok("POST", `${node}/${action}`);
      const lport = (await ok("POST", `/v2/compute/projects/${P}/ports/udp`)).udp_port as number;
      await ok("POST", `${node}/adapters/0/ports/1/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
      await ok("PUT", `${node}/adapters/0/ports/1/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { delay: [5] } });
      await ok("GET", node);
      await ok("POST", `${node}/adapters/0/ports/1/start_capture`, { capture_file_name: "host.pcap", data_link_type: "DLT_EN10MB" });
      await ok("POST", `${node}/adapters/0/ports/1/stop_capture`);
      await ok("DELETE", `${node}/adapters/0/ports/1/nio`);
      await ok("DELETE", node);
    }
    await ok("POST", `/v2/compute/projects/${P}/close`);
    await ok("DELETE", `/v2/compute/projects/${P2}`);
    // The controller API: a project with two switches linked, driven through each documented route.
    const C = (await ok("POST", "/v2/projects", { name: "controller-doc" })).project_id as string;
    await ok("GET", "/v2/projects");
    await ok("GET", `/v2/projects/${C}`);
    const nodes = `/v2/projects/${C}/nodes`;
    const sw = (name: string) => ({ name, node_type: "ethernet_switch", compute_id: "local" });
    const a = (await ok("POST", nodes, sw("A"))).node_id as string;
    const pc = (await ok("POST", nodes, { name: "PC1", node_type: "vpcs", compute_id: "local" })).node_id as string;
    await ok("POST", `${nodes}/${pc}/console/reset`);
    await ok("POST", `${nodes}/console/reset`);
    const b = (await ok("POST", nodes, sw("B"))).node_id as string;
    await ok("GET", nodes);
    await ok("GET", `${nodes}/${a}`);
    await ok("PUT", `${nodes}/${a}`, { name: "A2", x: 10 });
    for (const action of ["stop", "suspend", "start", "reload"]) {
      await ok("POST", `${nodes}/${a}/${action}`);
      await ok("POST", `${nodes}/${action}`);
    }
    const links = `/v2/projects/${C}/links`;
    const ends = [{ node_id: a, adapter_number: 0, port_number: 1 }, { node_id: b, adapter_number: 0, port_number: 1 }];
    const l = (await ok("POST", links, { nodes: ends })).link_id as string;
    await ok("GET", links);
    await ok("GET", `${links}/${l}`);
    await ok("PUT", `${links}/${l}`, { filters: { packet_loss: [5] } });
    await ok("POST", `${links}/${l}/start_capture`, { capture_file_name: "link.pcap" });
    await ok("POST", `${links}/${l}/stop_capture`);
    await ok("DELETE", `${links}/${l}`);
    await ok("GET", `${nodes}/${a}/links`);
    await ok("GET", `/v2/projects/${C}/stats`);
    await ok("GET", "/v2/templates");
    await ok("GET", "/v2/templates/b4503ea9-d6b6-3695-9fe4-1db3b39290b0");
    await ok("POST", `/v2/projects/${C}/templates/19021f99-e36f-394d-b4a1-8aaa902ab9cc`, { x: 0, y: 0, compute_id: "local" });
    await ok("POST", `/v2/projects/${C}/templates/1966b864-93e7-32d5-965f-001384eec461`, { x: 0, y: 0, compute_id: "local" });
    await ok("GET", "/v2/computes");
    await ok("GET", "/v2/computes/local");
    await ok("DELETE", `${nodes}/${b}`);
    await ok("POST", `/v2/projects/${C}/close`);
    const written = (await ok("GET", `/v2/projects/${C}`)) as { path: string; filename: string };
    const file = join(written.path, written.filename);
    for (let waited = 0; !existsSync(file) && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    await ok("POST", "/v2/projects/load", { path: file });
    await ok("POST", `/v2/projects/${C}/close`);
    await ok("GET", "/v2/netemu/projects/skipped");
    await ok("POST", `/v2/projects/${C}/open`);
    await ok("DELETE", `/v2/projects/${C}`);
    await ok("GET", "/v2/netemu/ready");
    await ok("POST", "/v2/netemu/data-plane/restart");
    await ok("GET", "/v3/compute/capabilities");
    await ok("GET", "/v3/compute/version");
    // The same walk on /v3/compute (ADR 0066).
    const V3P = "7f4e4a2d-4444-4555-8666-77778888bbbb";
    await ok("POST", "/v3/compute/projects", { name: "doc3", project_id: V3P, builtin: true });
    await ok("GET", "/v3/compute/projects");
    await ok("GET", `/v3/compute/projects/${V3P}`);
    await ok("PUT", `/v3/compute/projects/${V3P}`, { variables: [{ name: "a", value: "b" }] });
    await s.raw("POST", `/v3/compute/projects/${V3P}/files/project-files/doc.txt`, "doc");
    expect(answers.at(-1)?.route).to.equal("v3.compute.project.file.write");
    for (const nodeType of ["ethernet_switch", "ethernet_hub"]) {
      const nodes = `/v3/compute/projects/${V3P}/${nodeType}/nodes`;
      const node = `${nodes}/${(await ok("POST", nodes, { builtin: true, name: `N-${nodeType}` })).node_id as string}`;
      await ok("PUT", node, { name: `R-${nodeType}`, usage: "" });
      const copy = nodeType === "ethernet_hub" ? "7f4e4a2d-0000-4000-8000-000000000004" : "7f4e4a2d-0000-4000-8000-000000000003";
      await ok("POST", nodes, { name: `C-${nodeType}`, node_id: copy });
      await ok("POST", `${node}/duplicate`, { destination_node_id: copy });
      for (const action of ["stop", "suspend", "start", ...(nodeType === "ethernet_switch" ? ["reload"] : [])]) await ok("POST", `${node}/${action}`);
      const lport = (await ok("POST", `/v3/compute/projects/${V3P}/ports/udp`)).udp_port as number;
      await ok("POST", `${node}/adapters/0/ports/1/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: {}, suspend: false });
      await ok("GET", node);
      await ok("POST", `${node}/adapters/0/ports/1/capture/start`, { capture_file_name: `${nodeType}.pcap`, data_link_type: "DLT_EN10MB" });
      await ok("POST", `${node}/adapters/0/ports/1/capture/stop`);
      await ok("DELETE", `${node}/adapters/0/ports/1/nio`);
      await ok("DELETE", node);
    }
    {
      // 3.0.6's VPCS routes (ADR 0088): its one port is 0, NIO filters updated, a console reset.
      const nodes = `/v3/compute/projects/${V3P}/vpcs/nodes`;
      const node = `${nodes}/${(await ok("POST", nodes, { name: "PC1", usage: "", startup_script: "ip 10.0.0.1/24", builtin: true })).node_id as string}`;
      await ok("PUT", node, { name: "PC2", usage: "", console_type: "telnet" });
      const copy = "7f4e4a2d-0000-4000-8000-000000000006";
      await ok("POST", nodes, { name: "PC3", node_id: copy });
      await ok("POST", `${node}/duplicate`, { destination_node_id: copy });
      for (const action of ["start", "suspend", "reload", "stop", "start"]) await ok("POST", `${node}/${action}`);
      await ok("POST", `${node}/console/reset`);
      const lport = (await ok("POST", `/v3/compute/projects/${V3P}/ports/udp`)).udp_port as number;
      await ok("POST", `${node}/adapters/0/ports/0/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: {}, suspend: false });
      await ok("PUT", `${node}/adapters/0/ports/0/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { delay: [5] }, suspend: false });
      await ok("GET", node);
      await ok("POST", `${node}/adapters/0/ports/0/capture/start`, { capture_file_name: "vpcs3.pcap", data_link_type: "DLT_EN10MB" });
      await ok("POST", `${node}/adapters/0/ports/0/capture/stop`);
      await ok("DELETE", `${node}/adapters/0/ports/0/nio`);
      await ok("DELETE", node);
    }
    await ok("POST", `/v3/compute/projects/${V3P}/close`);
    await ok("POST", "/v3/compute/projects", { name: "doc3", project_id: V3P });
    await ok("DELETE", `/v3/compute/projects/${V3P}`);
    doc = (await ok("GET", OPENAPI_PATH)) as Doc;
  });
  after(async () => s.close());

  it("describe real answers: each documented route answered its status with a body that fits its schema", () => {
    for (const [route, answer] of Object.entries(WALKED_ANSWERS)) {
      const seen = answers.filter((a) => a.route === route && a.status >= 200 && a.status < 300);
      expect(seen, `${route} was exercised`).to.not.be.empty;
      for (const a of seen) {
        expect(a.status, route).to.equal(answer.status);
        if (answer.schema === undefined) expect(a.body === null || a.body === "" || a.body === undefined, `${route} has no body`).to.equal(true);
        else expect(validates(withTypedFilters(answer.schema), JSON.parse(a.body as string), doc), `${route}: ${String(a.body)}`).to.equal(true);
      }
    }
    // The optional counters were among what was checked.
    expect(answers.some((a) => a.route === "compute.ethernet_switch.get" && String(a.body).includes('"ports_statistics"'))).to.equal(true);
  });

  it("are given to routes that exist, and shown in the document", async () => {
    const names = new Set(createApiRouter({ useCases: s.netemu.useCases, settings: s.netemu.settings, packageVersion: PACKAGE_VERSION }).entries().map((e) => e.name));
    const doc = (await s.request("GET", OPENAPI_PATH)).json as Doc;
    const ops = new Map(Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => [op.operationId as string, op] as const)));
    for (const [route, answer] of Object.entries(WALKED_ANSWERS)) {
      expect(names.has(route), route).to.equal(true);
      const documented = ops.get(route)?.responses?.[String(answer.status)];
      expect(documented?.content?.["application/json"]?.schema, route).to.deep.equal(answer.schema === undefined ? undefined : withTypedFilters(answer.schema));
    }
  });

  it("fail a presenter that adds a key the schema does not know", () => {
    const node = { name: "n", node_id: P, project_id: P, status: "started", ports_mapping: [], console: null, console_type: "none" };
    const schema = WALKED_ANSWERS["compute.ethernet_switch.get"]?.schema as never;
    expect(validates(schema, node)).to.equal(true);
    expect(validates(schema, { ...node, surprise: 1 })).to.equal(false);
  });
});

import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { callRoute, describeFailure, fillPath, type RouteCallFailure } from "../../src/adapters/cli/route-client.js";
import { IMPAIRMENT_ROUTES } from "../../src/adapters/http/server/impairment-routes.js";
import { READINESS_ROUTES } from "../../src/adapters/http/server/readiness-route.js";
import { SERVER_ROUTES } from "../../src/adapters/http/server/routes.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const PROJECT = "69696969-1111-4222-8333-444444444445";

/** A server of our own making: answers every request with `status`, `body` and `headers`, and keeps what it was asked. */
async function fakeServer(status: number, body: string, headers: Record<string, string> = {}): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, asked, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function failureOf<A>(result: E.Either<RouteCallFailure, A>): RouteCallFailure {
  if (E.isRight(result)) expect.fail(`expected a failure, got ${JSON.stringify(result.right)}`);
  return result.left;
}

/** Never run: the compiler checks a call's body and answer against the route value. */
async function typedByTheRouteValue(server: { url: string }): Promise<void> {
  // @ts-expect-error: the set route's body names the port
  await callRoute(IMPAIRMENT_ROUTES.set, { body: { project: "lab", node: "Switch1" } }, server);
  // @ts-expect-error: filters_out is an object of filter kinds
  await callRoute(IMPAIRMENT_ROUTES.set, { body: { project: "lab", node: "Switch1", port: "1", filters_out: 5 } }, server);
  const listed = await callRoute(IMPAIRMENT_ROUTES.list, { body: {} }, server);
  // @ts-expect-error: an impairment has no such field
  if (E.isRight(listed)) void listed.right[0]?.port_label;
}
void typedByTheRouteValue;

describe("The route client: a route value called over HTTP, its answer read with the route's own codec (ADR 0080)", function () {
  this.timeout(20_000);
  let s: TestServer;

  beforeEach(async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT });
    await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "Switch1" });
  });
  afterEach(() => s.close());

  it("sets an impairment through the route value and gives back the answer as its codec reads it", async () => {
    const set = await callRoute(IMPAIRMENT_ROUTES.set, { body: { project: "lab", node: "Switch1", port: "Ethernet2", filters_out: { delay: [50] } } }, { url: s.url });
    if (E.isLeft(set)) expect.fail(describeFailure(set.left));
    expect(set.right.port_number).to.equal(2);
    expect(set.right.filters_out).to.deep.equal({ delay: [50] });
    expect(set.right.project_id).to.equal(PROJECT);
  });

  it("sends a GET's and a DELETE's body as query parameters, which the server merges into the body", async () => {
    await callRoute(IMPAIRMENT_ROUTES.set, { body: { project: "lab", node: "Switch1", port: "1", filters_in: { packet_loss: [5] } } }, { url: s.url });
    await callRoute(IMPAIRMENT_ROUTES.set, { body: { project: "lab", node: "Switch1", port: "2", filters_in: { packet_loss: [6] } } }, { url: s.url });
    const one = await callRoute(IMPAIRMENT_ROUTES.list, { body: { port: "Ethernet2" } }, { url: s.url });
    expect(E.isRight(one) && one.right.map((i) => i.port_name)).to.deep.equal(["Ethernet2"]);
    const cleared = await callRoute(IMPAIRMENT_ROUTES.clear, { body: { port: "1" } }, { url: s.url });
    expect(E.isRight(cleared) && cleared.right.map((i) => i.port_name)).to.deep.equal(["Ethernet1"]);
    const left = await callRoute(IMPAIRMENT_ROUTES.list, { body: {} }, { url: s.url });
    expect(E.isRight(left) && left.right.map((i) => i.port_name)).to.deep.equal(["Ethernet2"]);
  });

  it("fills a template's parameters, each encoded, a file path segment by segment", () => {
    expect(fillPath("/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}/nio", { project_id: "p", node_id: "n/1", adapter_number: 0, port_number: 7 }))
      .to.equal("/v2/compute/projects/p/ethernet_switch/nodes/n%2F1/adapters/0/ports/7/nio");
    expect(fillPath("/v2/compute/projects/{project_id}/files/{path:.+}", { project_id: "p", path: "a dir/b#c.txt" })).to.equal("/v2/compute/projects/p/files/a%20dir/b%23c.txt");
    expect(() => fillPath("/v2/projects/{project_id}", {})).to.throw(/no value for \{project_id\}/);
  });

  it("gives a refusal as the route's status and the server's own message", async () => {
    const missing = failureOf(await callRoute(IMPAIRMENT_ROUTES.set, { body: { project: "lab", node: "Switch1", port: "Ethernet9", filters_out: { delay: [5] } } }, { url: s.url }));
    expect(missing).to.deep.equal({ _tag: "Refused", server: s.url, route: "netemu.impairments.set", status: 404, message: 'Port "Ethernet9" not found on node "Switch1"' });
    expect(describeFailure(missing)).to.equal(`${s.url} answered 404: Port "Ethernet9" not found on node "Switch1"`);
    const invalid = failureOf(await callRoute(IMPAIRMENT_ROUTES.set, { body: { project: "lab", node: "Switch1", port: "1", filters_out: { packet_loss: [200] } } }, { url: s.url }));
    expect(invalid).to.deep.include({ _tag: "Refused", status: 400 });
  });

  it("tells a server that does not serve the route (a GNS3 controller's 404) from a refusal of the route, naming the software that answered", async () => {
    const gns3 = await fakeServer(404, '{"message": "404: Not Found", "status": 404}', { Server: "Python/3.10 aiohttp/3.8.1" });
    try {
      const failure = failureOf(await callRoute(IMPAIRMENT_ROUTES.list, { body: { project: "lab" } }, { url: gns3.url }));
      expect(failure).to.deep.equal({ _tag: "NotServed", server: gns3.url, method: "GET", path: "/v2/netemu/impairments", status: 404, message: "404: Not Found", software: "Python/3.10 aiohttp/3.8.1" });
      expect(describeFailure(failure)).to.equal(`${gns3.url} answered 404 for GET /v2/netemu/impairments: this is not a netemu server (it says Server: Python/3.10 aiohttp/3.8.1), or a netemu without this route`);
      expect(gns3.asked).to.deep.equal(["GET /v2/netemu/impairments?project=lab"]);
    } finally {
      await gns3.close();
    }
  });

  it("refuses an answer its codec does not read, or a status the route does not answer with", async () => {
    const odd = await fakeServer(200, '[{"project_name": "lab"}]', { "X-Route": "/v2/netemu/impairments" });
    try {
      const failure = failureOf(await callRoute(IMPAIRMENT_ROUTES.list, { body: {} }, { url: odd.url }));
      expect(failure).to.deep.equal({ _tag: "AnswerUnreadable", server: odd.url, route: "netemu.impairments.list", status: 200, problem: "'filters_in' is a required property" });
    } finally {
      await odd.close();
    }
    const created = await fakeServer(201, "[]", { "X-Route": "/v2/netemu/impairments" });
    try {
      expect(failureOf(await callRoute(IMPAIRMENT_ROUTES.list, { body: {} }, { url: created.url }))).to.deep.include({ _tag: "AnswerUnreadable", problem: "status 201, where the route answers 200" });
    } finally {
      await created.close();
    }
  });

  it("reads each status of a route that answers more than one with that status's codec: readiness's 200 and its 503 report", async () => {
    const ready = await callRoute(READINESS_ROUTES.ready, {}, { url: s.url });
    expect(E.isRight(ready) && ready.right).to.deep.equal({ ready: true, unwritten_projects: [], dark_workers: [] });
    await s.close();
    s = await startTestServer({ persistProjects: true });
    // A file where the project's directory goes: its writes fail, and the server is not ready.
    mkdirSync(s.netemu.settings.projectsPath, { recursive: true });
    writeFileSync(join(s.netemu.settings.projectsPath, PROJECT), "");
    await s.request("POST", "/v2/projects", { name: "lab", project_id: PROJECT });
    let report = await callRoute(READINESS_ROUTES.ready, {}, { url: s.url });
    for (let i = 0; i < 200 && E.isRight(report) && report.right.ready; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      report = await callRoute(READINESS_ROUTES.ready, {}, { url: s.url });
    }
    if (E.isLeft(report)) expect.fail(describeFailure(report.left));
    if (!("message" in report.right)) expect.fail("a 503 report carries GNS3's message");
    expect(report.right.status).to.equal(503);
    expect(report.right.unwritten_projects.map((u) => u.project_id)).to.deep.equal([PROJECT]);
  });

  it("sends a route without parameters or body, and a refusal of it is the server's message (a non-local server's shutdown)", async () => {
    await s.close();
    s = await startTestServer({ settings: { local: false } });
    const refused = failureOf(await callRoute(SERVER_ROUTES.shutdown, {}, { url: s.url }));
    expect(refused).to.deep.include({ _tag: "Refused", route: "server.shutdown", status: 403, message: "You can only stop a local server" });
    const version = await callRoute(SERVER_ROUTES.version, {}, { url: s.url });
    expect(E.isRight(version) && version.right).to.deep.equal({ local: false, version: "2.2.59" });
  });

  it("says when nothing answers at the address", async () => {
    const url = s.url;
    await s.close();
    const failure = failureOf(await callRoute(IMPAIRMENT_ROUTES.list, { body: {} }, { url }));
    expect(failure._tag).to.equal("NoAnswer");
    expect(describeFailure(failure)).to.match(new RegExp(`^no answer from ${url}: .*ECONNREFUSED`));
    s = await startTestServer();
  });

  it("sends basic credentials, and says when the server refuses them before any route runs", async () => {
    await s.close();
    s = await startTestServer({ settings: { auth: { enabled: true, user: "admin", password: "s3cret" } } });
    expect(E.isRight(await callRoute(IMPAIRMENT_ROUTES.list, { body: {} }, { url: s.url, credentials: { user: "admin", password: "s3cret" } }))).to.equal(true);
    const refused = failureOf(await callRoute(IMPAIRMENT_ROUTES.list, { body: {} }, { url: s.url, credentials: { user: "admin", password: "wrong" } }));
    expect(refused).to.deep.include({ _tag: "CredentialsRefused", status: 401 });
    expect(describeFailure(refused)).to.equal(`${s.url} answered 401: it checks credentials, and refused these (or none were given)`);
  });
});

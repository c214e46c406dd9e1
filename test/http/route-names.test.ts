import { expect } from "chai";
import { ApiRouter } from "../../src/adapters/http/api-router.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";

const PROJECT = "4c1b1e9a-1111-4222-8333-444455556666";

describe("named route handlers", () => {
  let server: TestServer;
  let logger: RecordingLogger;

  beforeEach(async () => {
    logger = new RecordingLogger();
    server = await startTestServer({ overrides: { logger } });
  });
  afterEach(async () => server.close());

  const requestLines = () => logger.lines.filter((l) => l.msg === "request").map((l) => ({ url: l.fields?.url, route: l.fields?.route, status: l.fields?.status }));

  it("log each request with the name of the handler that answered it, error answers included", async () => {
    await server.request("GET", "/v2/version");
    await server.request("GET", "/v2/compute/version");
    await server.request("POST", `/v2/compute/projects`, { name: "named", project_id: PROJECT });
    await server.request("GET", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/aaaaaaaa-0000-4000-8000-000000000001`);
    expect(requestLines()).to.deep.equal([
      { url: "/v2/version", route: "server.version", status: 200 },
      { url: "/v2/compute/version", route: "compute.version", status: 200 },
      { url: "/v2/compute/projects", route: "compute.project.create", status: 201 },
      { url: `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/aaaaaaaa-0000-4000-8000-000000000001`, route: "compute.ethernet_switch.get", status: 404 },
    ]);
  });

  it("log /v3/compute requests under names of their own, beside the v2 names", async () => {
    const v3 = await startTestServer({ overrides: { logger }, settings: { v3: { gns3Version: "3.0.6", noAuth: true } } });
    try {
      await v3.request("GET", "/v3/compute/capabilities");
      await v3.request("GET", "/v2/compute/capabilities");
      expect(requestLines().slice(-2)).to.deep.equal([
        { url: "/v3/compute/capabilities", route: "v3.compute.capabilities", status: 200 },
        { url: "/v2/compute/capabilities", route: "compute.capabilities", status: 200 },
      ]);
    } finally {
      await v3.close();
    }
  });

  it("log no handler for a path nothing answers", async () => {
    await server.request("GET", "/v2/nowhere");
    expect(requestLines()).to.deep.equal([{ url: "/v2/nowhere", route: undefined, status: 404 }]);
  });
});

describe("the API router", () => {
  it("refuses a handler name given twice, naming the route that has it", () => {
    const api = new ApiRouter(async (_ctx, next) => next());
    api.add("server.version", "GET", "/v2/version", () => undefined);
    expect(() => api.add("server.version", "GET", "/v2/compute/version", () => undefined)).to.throw("route name server.version is already given to GET /v2/version");
  });
});

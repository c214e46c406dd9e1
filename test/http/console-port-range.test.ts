import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeHostProcesses } from "../support/fake-host-processes.js";
import { freeTcpPort } from "../support/free-tcp-port.js";

/** The consoles' range is a setting (`--console-start-port`, `--console-end-port`, GNS3's console_*_port_range). */
describe("HTTP: host consoles from the configured range", () => {
  let s: TestServer | undefined;
  afterEach(async () => s?.close());

  it("gives a VPCS a console port from the configured range, and refuses one more when the range is used up", async () => {
    const port = await freeTcpPort();
    s = await startTestServer({ settings: { consolePortRange: { start: port, end: port } }, overrides: { hostProcesses: new FakeHostProcesses() } });
    const projectId = randomUUID();
    await s.request("POST", "/v2/compute/projects", { name: "p", project_id: projectId });
    const first = await s.request("POST", `/v2/compute/projects/${projectId}/vpcs/nodes`, { name: "PC1" });
    expect(first.status, first.text).to.equal(201);
    expect(first.json.console).to.equal(port);
    const second = await s.request("POST", `/v2/compute/projects/${projectId}/vpcs/nodes`, { name: "PC2" });
    expect(second.status, "the range holds one port").to.equal(409);
  });
});

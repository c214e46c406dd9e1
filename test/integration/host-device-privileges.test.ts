import { expect } from "chai";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import * as E from "fp-ts/lib/Either.js";
import { NoHostDevices, chooseHostDevices, deviceProblem } from "../../src/adapters/transport/host-devices.js";
import type { HostDevices } from "../../src/application/ports/host-devices.js";
import { InMemoryHostDevices } from "../support/in-memory-data-plane.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { isRoot, testName } from "../support/netns.js";

const run = promisify(execFile);
const PROJECT = "83838383-1111-4444-8555-666666666666";
const here = dirname(fileURLToPath(import.meta.url));

/** What opening a TAP and a host interface answers in a child running as nobody with no capabilities at all. */
async function openedWithoutPrivilege(tap: string): Promise<unknown> {
  const module = join(here, "..", "..", "src", "adapters", "transport", "host-devices.js");
  const script = [
    `const { chooseHostDevices } = await import(${JSON.stringify(module)});`,
    "const devices = chooseHostDevices();",
    "const answers = {};",
    `for (const [kind, device] of [["tap", ${JSON.stringify(tap)}], ["ethernet", "lo"]]) {`,
    "  const opened = await devices.open({ kind, device, onFrame: () => {} });",
    "  answers[kind] = opened._tag === 'Left' ? opened.left : 'opened';",
    "  if (opened._tag === 'Right') await opened.right.close();",
    "}",
    "console.log(JSON.stringify(answers));",
  ].join("\n");
  // setpriv drops every capability (bounding set included) and the root user: what a netemu run by a user gets.
  const { stdout } = await run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", process.execPath, "--input-type=module", "-e", script], { timeout: 20_000 });
  return JSON.parse(stdout);
}

describe("nio_tap and nio_ethernet without the privilege they need (ADR 0083)", () => {
  it("a netemu without CAP_NET_ADMIN and CAP_NET_RAW is refused each device, told which capability is missing", async function () {
    if (!isRoot()) this.skip(); // dropping to nobody needs root; CI is root
    const answers = await openedWithoutPrivilege(testName("nt", "pv"));
    expect(answers).to.deep.equal({
      tap: { problem: "missing_capability", capability: "CAP_NET_ADMIN" },
      ethernet: { problem: "missing_capability", capability: "CAP_NET_RAW" },
    });
  });

  it("reads the kernel's answers as the problems they are", () => {
    expect(deviceProblem("tap", "EPERM", "")).to.deep.equal({ problem: "missing_capability", capability: "CAP_NET_ADMIN" });
    expect(deviceProblem("ethernet", "EACCES", "")).to.deep.equal({ problem: "missing_capability", capability: "CAP_NET_RAW" });
    expect(deviceProblem("ethernet", "ENODEV", "")).to.deep.equal({ problem: "not_found" });
    expect(deviceProblem("tap", "EBUSY", "")).to.deep.equal({ problem: "busy" });
    expect(deviceProblem("tap", "EINVAL", "")).to.deep.equal({ problem: "not_a_tap" });
    expect(deviceProblem("ethernet", "ENOBUFS", "No buffer space available")).to.deep.equal({ problem: "os_error", code: "ENOBUFS", detail: "No buffer space available" });
  });

  it("refuses every device where the native addon cannot load, saying so, whatever the datagram path", async () => {
    const devices = chooseHostDevices(() => {
      throw new Error("native/build/udp_batch.node is not built");
    }, { NETEMU_UDP_PATH: "dgram" });
    expect(devices).to.be.instanceOf(NoHostDevices);
    const opened = await devices.open({ kind: "tap", device: "tap0", onFrame: () => undefined });
    expect(opened).to.deep.equal(E.left({ problem: "unsupported", reason: "TAP and Ethernet NIOs need netemu's native addon, which is not available (native/build/udp_batch.node is not built)" }));
  });

  describe("over HTTP: one 409 per problem, naming the device", () => {
    let s: TestServer;
    let base: string;
    const start = async (hostDevices: HostDevices): Promise<void> => {
      s = await startTestServer({ overrides: { hostDevices } });
      await s.request("POST", "/v2/compute/projects", { name: "p", project_id: PROJECT });
      const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
      base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
    };
    afterEach(() => s.close());

    for (const [what, nio, problem, message] of [
      ["a TAP without CAP_NET_ADMIN", { type: "nio_tap", tap_device: "tap7" }, { problem: "missing_capability", capability: "CAP_NET_ADMIN" }, "TAP interface tap7 cannot be opened: netemu runs without CAP_NET_ADMIN (run it as root, or grant the capability: setcap cap_net_admin,cap_net_raw+ep on its node binary)"],
      ["a host interface without CAP_NET_RAW", { type: "nio_ethernet", ethernet_device: "eth7" }, { problem: "missing_capability", capability: "CAP_NET_RAW" }, "Ethernet interface eth7 cannot be opened: netemu runs without CAP_NET_RAW (run it as root, or grant the capability: setcap cap_net_admin,cap_net_raw+ep on its node binary)"],
      ["a host interface that does not exist", { type: "nio_ethernet", ethernet_device: "eth7" }, { problem: "not_found" }, "Ethernet interface eth7 does not exist"],
      ["a TAP where devices cannot be opened", { type: "nio_tap", tap_device: "tap7" }, { problem: "unsupported", reason: "no addon" }, "TAP interface tap7 cannot be opened: no addon"],
    ] as const) {
      it(`refuses ${what} with 409 and leaves the port free`, async () => {
        const devices = new InMemoryHostDevices();
        devices.refuse("tap7", problem);
        devices.refuse("eth7", problem);
        await start(devices);
        const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, nio);
        expect(r.status).to.equal(409);
        expect(r.json).to.deep.equal({ message, status: 409 });
        expect((await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_null" })).status).to.equal(201);
      });
    }

    it("refuses a device name the kernel would refuse with 400, naming the field", async () => {
      await start(new InMemoryHostDevices());
      const r = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_tap", tap_device: "../x" });
      expect(r.status).to.equal(400);
      expect(r.json.message).to.equal("tap_device: '../x' is not a network interface name (no '/', ':' or white space, not '.' or '..')");
    });
  });
});

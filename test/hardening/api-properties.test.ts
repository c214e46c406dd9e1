import { expect } from "chai";
import fc from "fast-check";
import { randomUUID } from "node:crypto";
import { FC_SEED, closeRawHttpAgent, errorBodyProblem, rawHttp } from "../support/hardening-kit.js";
import { HUB_MAPPING, MAPPING, World } from "../support/hardening-world.js";
import { bodyTextArb, filePathArb, paramArb, queryArb } from "../support/hardening-mutate.js";
import type { AnyRoute } from "../../src/adapters/http/route.js";
import { captureRoutes } from "../../src/adapters/http/compute/capture-routes.js";
import { cloudRoutes } from "../../src/adapters/http/compute/cloud-routes.js";
import { LINUX_HOST_ROUTES } from "../../src/adapters/http/compute/linux-host-routes.js";
import type { V3Route } from "../../src/adapters/http/v3/dialect.js";
import { V3_CLOUD_ROUTES } from "../../src/adapters/http/v3/cloud-routes.js";
import { V3_LINUX_HOST_ROUTES } from "../../src/adapters/http/v3/linux-host-routes.js";

/**
 * Every route of the API (src/adapters/http/{server,compute,controller}/*-routes.ts), fed valid bodies mutated at random,
 * random path parameters and query strings: the answer is the route's documented success or a
 * 4xx, never a 5xx; every error is JSON {message, status} (a 400 also has method/path/request);
 * a 4xx leaves every resource as it was; nothing reaches Object.prototype.
 */

type Method = "GET" | "POST" | "PUT" | "DELETE";
/** none: a 2xx must not change state either; reset: a 2xx may, so the next run gets a fresh world. */
type After = "none" | "reset";

interface RouteCase {
  readonly method: Method;
  readonly template: string;
  readonly ok: number;
  readonly after: After;
  readonly body?: (w: World) => unknown;
  readonly runs?: number;
  /** Every status the route may answer, when that is narrower than `ok` or a refusal. */
  readonly only?: readonly number[];
}

const FILTERS = { delay: [5, 1], packet_loss: [10], frequency_drop: [3], corrupt: [5] };
const LABEL = { text: "N3", x: 0, y: -20, rotation: 0, style: "font-size: 10;" };

/** /v3/compute's project routes, on the same world (both generations share the use cases). */
function v3ProjectCases(): RouteCase[] {
  const P = "/v3/compute/projects/{project_id}";
  return [
    { method: "GET", template: "/v3/compute/projects", ok: 200, after: "none" },
    { method: "POST", template: "/v3/compute/projects", ok: 201, after: "reset", body: () => ({ name: "other", project_id: randomUUID(), variables: [{ name: "a", value: "b" }], builtin: true }) },
    { method: "GET", template: P, ok: 200, after: "none" },
    { method: "PUT", template: P, ok: 200, after: "reset", body: () => ({ variables: [{ name: "a", value: "b" }] }) },
    { method: "DELETE", template: P, ok: 204, after: "reset" },
    { method: "POST", template: `${P}/close`, ok: 204, after: "reset" },
    { method: "POST", template: `${P}/ports/udp`, ok: 201, after: "reset" },
    { method: "GET", template: `${P}/files`, ok: 200, after: "none" },
    { method: "GET", template: `${P}/files/{file_path}`, ok: 200, after: "none" },
    { method: "POST", template: `${P}/files/{file_path}`, ok: 204, after: "reset", body: () => ({ file: "content" }) },
  ];
}

/** /v3/compute's routes of a switch or a hub. */
function v3NodeCases(nodeType: "ethernet_switch" | "ethernet_hub"): RouteCase[] {
  const NODES = `/v3/compute/projects/{project_id}/${nodeType}/nodes`;
  const NODE = `${NODES}/{node_id}`;
  const PORT = `${NODE}/adapters/{adapter_number}/ports/{port_number}`;
  const sw = nodeType === "ethernet_switch";
  const ports = sw ? MAPPING : HUB_MAPPING;
  return [
    { method: "POST", template: NODES, ok: 201, after: "reset", body: () => ({ builtin: true, name: "N9", ...(sw ? { console_type: "none" } : {}), ports_mapping: ports }) },
    { method: "GET", template: NODE, ok: 200, after: "none" },
    { method: "PUT", template: NODE, ok: 200, after: "reset", body: () => ({ builtin: true, name: "N1b", usage: "", ports_mapping: ports }) },
    { method: "DELETE", template: NODE, ok: 204, after: "reset" },
    { method: "POST", template: `${NODE}/duplicate`, ok: 201, after: "reset", body: () => ({ destination_node_id: randomUUID() }) },
    ...["start", "stop", "suspend", ...(sw ? ["reload"] : [])].map((action): RouteCase => ({ method: "POST", template: `${NODE}/${action}`, ok: 204, after: "reset" })),
    {
      method: "POST",
      template: `${PORT}/nio`,
      ok: 201,
      after: "reset",
      body: (w) => ({ type: "nio_udp", lport: w.spareLport, rhost: "127.0.0.1", rport: 9, filters: {}, suspend: false }),
    },
    { method: "DELETE", template: `${PORT}/nio`, ok: 204, after: "reset" },
    { method: "POST", template: `${PORT}/capture/start`, ok: 200, after: "reset", body: () => ({ capture_file_name: "fuzz.pcap", data_link_type: "DLT_EN10MB" }) },
    { method: "POST", template: `${PORT}/capture/stop`, ok: 204, after: "reset" },
    { method: "GET", template: `${PORT}/capture/stream`, ok: 200, after: "none" },
  ];
}

/** /v3/compute's VPCS routes (3.0.6's vpcs_nodes.py; ADR 0088): the world's PC on adapter 0. */
function v3VpcsCases(): RouteCase[] {
  const NODES = "/v3/compute/projects/{project_id}/vpcs/nodes";
  const NODE = `${NODES}/{node_id}`;
  const PORT = `${NODE}/adapters/{adapter_number}/ports/{port_number}`;
  return [
    { method: "POST", template: NODES, ok: 201, after: "reset", body: () => ({ name: "PC9", startup_script: "ip 10.0.0.9/24" }) },
    { method: "GET", template: NODE, ok: 200, after: "none" },
    { method: "PUT", template: NODE, ok: 200, after: "reset", body: () => ({ name: "PC1b", console_type: "telnet" }) },
    { method: "DELETE", template: NODE, ok: 204, after: "reset" },
    { method: "POST", template: `${NODE}/duplicate`, ok: 201, after: "reset", body: () => ({ destination_node_id: randomUUID() }) },
    ...["start", "stop", "suspend", "reload", "console/reset"].map((action): RouteCase => ({ method: "POST", template: `${NODE}/${action}`, ok: 204, after: "reset" })),
    { method: "POST", template: `${PORT}/nio`, ok: 201, after: "reset", body: (w) => ({ type: "nio_udp", lport: w.spareLport, rhost: "127.0.0.1", rport: 9, filters: {}, suspend: false }) },
    { method: "PUT", template: `${PORT}/nio`, ok: 201, after: "reset", body: (w) => ({ type: "nio_udp", lport: w.pcNioLport, rhost: "127.0.0.1", rport: 9, filters: {}, suspend: false }) },
    { method: "DELETE", template: `${PORT}/nio`, ok: 204, after: "reset" },
    { method: "POST", template: `${PORT}/capture/start`, ok: 200, after: "reset", body: () => ({ capture_file_name: "fuzz.pcap", data_link_type: "DLT_EN10MB" }) },
    { method: "POST", template: `${PORT}/capture/stop`, ok: 204, after: "reset" },
    { method: "GET", template: `${PORT}/capture/stream`, ok: 200, after: "none" },
  ];
}

/** What a route's case sends and whether its success changes the world, by the route's action. */
interface ActionCase {
  readonly after: After;
  readonly body?: (w: World) => unknown;
}

/**
 * The cases of a kind's route values: the method, the template and the success status are the value's
 * own, what is sent is the action's. A route value without an action here throws, so a route added to
 * a kind cannot go without its case.
 */
function casesOf(routes: readonly AnyRoute[], actions: Readonly<Record<string, ActionCase>>): RouteCase[] {
  return routes.map((r) => {
    const action = r.name.replace(/^(v3\.)?compute\.[a-z_]+\./, "");
    const c = actions[action];
    if (c === undefined) throw new Error(`no case for the action ${action} of ${r.name}`);
    if (r.answer.kind === "choice") throw new Error(`${r.name} answers a choice: give its case by hand`);
    // The router's regular expressions in the path ({adapter_number:\d+}) are not the client's.
    return { method: r.method, template: r.path.replace(/\{(\w+):[^}]*\}/g, "{$1}"), ok: r.answer.status, after: c.after, ...(c.body === undefined ? {} : { body: c.body }) };
  });
}

type Dialect = "v2" | "v3";
/** v2's NIO filters; a 3.x controller sends {} (and its `suspend` as a bool). */
const nioBody = (dialect: Dialect, lport: (w: World) => number) => (w: World) => ({ type: "nio_udp", lport: lport(w), rhost: "127.0.0.1", rport: 9, filters: dialect === "v2" ? FILTERS : {}, suspend: false });

/** What every kind's NIO and capture routes send, under v2's names and 3.x's. */
function portActions(dialect: Dialect, updatedLport: (w: World) => number, pcap: string): Record<string, ActionCase> {
  const capture = { after: "reset", body: () => ({ capture_file_name: pcap, data_link_type: "DLT_EN10MB" }) } as const;
  return {
    "nio.create": { after: "reset", body: nioBody(dialect, (w) => w.spareLport) },
    "nio.update": { after: "reset", body: nioBody(dialect, updatedLport) },
    "nio.delete": { after: "reset" },
    ...(dialect === "v2"
      ? { start_capture: capture, stop_capture: { after: "reset" }, pcap: { after: "none" } }
      : { "capture.start": capture, "capture.stop": { after: "reset" }, "capture.stream": { after: "none" } }),
  };
}

/**
 * netemu's Linux host (ADR 0087, and on /v3/compute ADR 0090): its start, reload and exec are refused
 * here (no namespaces), changing nothing; a duplicate goes onto the host itself.
 */
function linuxHostActions(dialect: Dialect): Record<string, ActionCase> {
  const v3 = dialect === "v3" ? { usage: null, builtin: false } : {};
  return {
    create: { after: "reset", body: () => ({ name: "H9", ...v3, interfaces: [{ name: "eth0", address: "10.0.0.9/24", mac: "02:00:00:00:00:09" }], gateway: "10.0.0.1" }) },
    get: { after: "none" },
    update: { after: "reset", body: () => ({ name: "H1b", ...v3, interfaces: [{ name: "eth0" }, { name: "eth1", address: "fd00::1/64" }], gateway: null }) },
    delete: { after: "reset" },
    duplicate: { after: "none", body: (w) => ({ destination_node_id: w.HOST }) },
    start: { after: "reset" },
    stop: { after: "reset" },
    suspend: { after: "reset" },
    reload: { after: "reset" },
    exec: { after: "reset", body: () => ({ argv: ["ip", "addr"], timeout: 5, max_output_bytes: 1000 }) },
    ...portActions(dialect, (w) => w.hostNioLport, "fuzz-host.pcap"),
  };
}

/** GNS3's Cloud (ADR 0082): made with the host's interfaces, renamed, its linked tunnel port's NIO changed; 3.0.6 has no duplicate. */
function cloudActions(dialect: Dialect): Record<string, ActionCase> {
  const own: Record<string, ActionCase> =
    dialect === "v2"
      ? {
          create: { after: "reset", body: () => ({ name: "C9" }) },
          update: { after: "reset", body: () => ({ name: "CLOUD1b", remote_console_type: "telnet" }) },
          duplicate: { after: "none", body: (w) => ({ destination_node_id: w.CLOUD }) },
        }
      : {
          create: { after: "reset", body: () => ({ builtin: true, name: "C9", usage: null, ports_mapping: null }) },
          update: { after: "reset", body: () => ({ builtin: true, name: "C1b", usage: "", remote_console_type: "vnc" }) },
        };
  return { ...own, get: { after: "none" }, delete: { after: "reset" }, start: { after: "reset" }, stop: { after: "reset" }, suspend: { after: "reset" }, ...portActions(dialect, (w) => w.cloudNioLport, "fuzz-cloud.pcap") };
}

const v3Values = (routes: readonly V3Route[]): AnyRoute[] => routes.map((r) => r.route);

const ROUTES: readonly RouteCase[] = [
  { method: "GET", template: "/v2/version", ok: 200, after: "none" },
  { method: "GET", template: "/v2/netemu/openapi.json", ok: 200, after: "none" },
  { method: "GET", template: "/v2/netemu/ready", ok: 200, after: "none" },
  // Brings back data-plane workers given up on (ADR 0073); with none given up it restarts nothing.
  { method: "POST", template: "/v2/netemu/data-plane/restart", ok: 200, after: "none" },
  // netemu's impairments on a port by name (ADR 0067).
  // The traces links replay (ADR 0103): the upload's body is the trace's raw text.
  { method: "GET", template: "/v2/netemu/traces", ok: 200, after: "none" },
  { method: "PUT", template: "/v2/netemu/traces/{name}", ok: 201, after: "reset", body: () => ({ file: "content" }) },
  { method: "GET", template: "/v2/netemu/traces/{name}", ok: 200, after: "none" },
  { method: "DELETE", template: "/v2/netemu/traces/{name}", ok: 204, after: "reset" },
  { method: "GET", template: "/v2/netemu/impairments", ok: 200, after: "none" },
  { method: "PUT", template: "/v2/netemu/impairments", ok: 200, after: "reset", body: () => ({ project: "fuzz", node: "SW1", port: "Ethernet0", filters_in: FILTERS, filters_out: { bandwidth: [1000, 50] } }) },
  { method: "DELETE", template: "/v2/netemu/impairments", ok: 200, after: "reset", body: () => ({ project: "fuzz", node: "SW1", port: "Ethernet0" }) },
  // netemu's page reads (ADR 0094): the labs it holds, and one lab's counters in one answer.
  { method: "GET", template: "/v2/netemu/labs", ok: 200, after: "none" },
  { method: "GET", template: "/v2/netemu/labs/{project_id}/counters", ok: 200, after: "none" },
  { method: "GET", template: "/v2/compute/version", ok: 200, after: "none" },
  { method: "POST", template: "/v2/version", ok: 200, after: "none", body: () => ({ version: "2.2.59", local: true }) },
  { method: "GET", template: "/v2/iou_license", ok: 200, after: "none" },
  { method: "PUT", template: "/v2/iou_license", ok: 201, after: "reset", body: () => ({ iourc_content: "[license]\nhost = 1\n", license_check: false }) },
  { method: "POST", template: "/v2/debug", ok: 201, after: "none", runs: 30 },
  { method: "GET", template: "/v2/compute/capabilities", ok: 200, after: "none" },
  { method: "GET", template: "/v2/compute/statistics", ok: 200, after: "none" },
  { method: "GET", template: "/v2/compute/network/interfaces", ok: 200, after: "none" },
  { method: "GET", template: "/v2/compute/network/ports", ok: 200, after: "none" },
  { method: "GET", template: "/v2/compute/debug", ok: 200, after: "none", runs: 30 },
  { method: "GET", template: "/metrics", ok: 200, after: "none", runs: 30 },
  // /v3/compute, for GNS3 3.x controllers (ADR 0066).
  { method: "GET", template: "/v3/compute/capabilities", ok: 200, after: "none" },
  { method: "GET", template: "/v3/compute/version", ok: 200, after: "none" },
  { method: "GET", template: "/v3/compute/statistics", ok: 200, after: "none" },
  { method: "GET", template: "/v3/compute/network/interfaces", ok: 200, after: "none" },
  { method: "GET", template: "/v3/compute/network/ports", ok: 200, after: "none" },
  ...v3ProjectCases(),
  ...v3NodeCases("ethernet_switch"),
  ...v3NodeCases("ethernet_hub"),
  ...v3VpcsCases(),
  ...casesOf(v3Values(V3_CLOUD_ROUTES), cloudActions("v3")),
  ...casesOf(v3Values(V3_LINUX_HOST_ROUTES), linuxHostActions("v3")),
  // The websocket is served from the HTTP server's upgrade event: a plain GET is always refused.
  { method: "GET", template: "/v2/compute/notifications/ws", ok: 400, after: "none", only: [400] },
  { method: "GET", template: "/v2/compute/projects", ok: 200, after: "none" },
  { method: "POST", template: "/v2/compute/projects", ok: 201, after: "reset", body: () => ({ name: "other", project_id: randomUUID(), variables: [{ name: "a", value: "b" }] }) },
  { method: "GET", template: "/v2/compute/projects/{project_id}", ok: 200, after: "none" },
  {
    method: "PUT",
    template: "/v2/compute/projects/{project_id}",
    ok: 200,
    after: "reset",
    body: () => ({ variables: [{ name: "a", value: "b" }] }),
  },
  { method: "GET", template: "/v2/compute/projects/{project_id}/files", ok: 200, after: "none" },
  { method: "GET", template: "/v2/compute/projects/{project_id}/files/{path}", ok: 200, after: "none" },
  // The body is the file itself: the mutated JSON text is as good as any.
  { method: "POST", template: "/v2/compute/projects/{project_id}/files/{path}", ok: 201, after: "reset", body: () => ({ file: "content" }) },
  { method: "DELETE", template: "/v2/compute/projects/{project_id}", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/compute/projects/{project_id}/close", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/compute/projects/{project_id}/ports/udp", ok: 201, after: "reset" },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes",
    ok: 201,
    after: "reset",
    body: () => ({ name: "SW9", console: null, console_type: "none", ports_mapping: MAPPING }),
  },
  { method: "GET", template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}", ok: 200, after: "none" },
  {
    method: "PUT",
    template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}",
    ok: 200,
    after: "reset",
    body: () => ({ name: "SW1b", console_type: "none", ports_mapping: MAPPING }),
  },
  { method: "DELETE", template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}", ok: 204, after: "reset" },
  { method: "GET", template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/mac_table", ok: 200, after: "none" },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/duplicate",
    ok: 201,
    after: "reset",
    body: () => ({ destination_node_id: randomUUID() }),
  },
  { method: "POST", template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/start", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/stop", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/suspend", ok: 204, after: "reset" },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio",
    ok: 201,
    after: "reset",
    body: (w) => ({ type: "nio_udp", lport: w.spareLport, rhost: "127.0.0.1", rport: 9, filters: FILTERS, suspend: false }),
  },
  {
    method: "PUT",
    template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio",
    ok: 201,
    after: "reset",
    body: (w) => ({ type: "nio_udp", lport: w.nioLport, rhost: "127.0.0.1", rport: 9, filters: FILTERS, suspend: false }),
  },
  {
    method: "DELETE",
    template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio",
    ok: 204,
    after: "reset",
  },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/start_capture",
    ok: 200,
    after: "reset",
    body: () => ({ capture_file_name: "fuzz.pcap", data_link_type: "DLT_EN10MB" }),
  },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/stop_capture",
    ok: 204,
    after: "reset",
  },
  {
    method: "GET",
    template: "/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/pcap",
    ok: 200,
    after: "none",
  },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes",
    ok: 201,
    after: "reset",
    body: () => ({ name: "HUB9", ports_mapping: HUB_MAPPING }),
  },
  { method: "GET", template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}", ok: 200, after: "none" },
  {
    method: "PUT",
    template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}",
    ok: 200,
    after: "reset",
    body: () => ({ name: "HUB1b", ports_mapping: HUB_MAPPING }),
  },
  { method: "DELETE", template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}", ok: 204, after: "reset" },
  {
    // Onto itself, an existing hub: a duplicate changes nothing on a compute.
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/duplicate",
    ok: 201,
    after: "none",
    body: (w) => ({ destination_node_id: w.HUB }),
  },
  { method: "POST", template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/start", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/stop", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/suspend", ok: 204, after: "reset" },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio",
    ok: 201,
    after: "reset",
    body: (w) => ({ type: "nio_udp", lport: w.spareLport, rhost: "127.0.0.1", rport: 9, filters: FILTERS, suspend: false }),
  },
  {
    method: "PUT",
    template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio",
    ok: 201,
    after: "reset",
    body: (w) => ({ type: "nio_udp", lport: w.hubNioLport, rhost: "127.0.0.1", rport: 9, filters: FILTERS, suspend: false }),
  },
  {
    method: "DELETE",
    template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio",
    ok: 204,
    after: "reset",
  },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/start_capture",
    ok: 200,
    after: "reset",
    body: () => ({ capture_file_name: "fuzz-hub.pcap", data_link_type: "DLT_EN10MB" }),
  },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/stop_capture",
    ok: 204,
    after: "reset",
  },
  {
    method: "GET",
    template: "/v2/compute/projects/{project_id}/ethernet_hub/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/pcap",
    ok: 200,
    after: "none",
  },
  { method: "POST", template: "/v2/compute/projects/{project_id}/vpcs/nodes", ok: 201, after: "reset", body: () => ({ name: "PC9", startup_script: "ip 10.0.0.9/24" }) },
  { method: "GET", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}", ok: 200, after: "none" },
  { method: "PUT", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}", ok: 200, after: "reset", body: () => ({ name: "PC1b", console_type: "telnet" }) },
  { method: "DELETE", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}", ok: 204, after: "reset" },
  // Onto itself, an existing VPCS: its directory has nothing to copy.
  { method: "POST", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/duplicate", ok: 201, after: "none", body: (w) => ({ destination_node_id: w.PC }) },
  // Debian's VPCS (0.5b2) is refused with a 409: a start or reload changes nothing.
  { method: "POST", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/start", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/stop", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/suspend", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/reload", ok: 204, after: "reset" },
  // Drops the console's clients (ADR 0099): the fuzzed VPCS is not started, so there are none.
  { method: "POST", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/console/reset", ok: 204, after: "none" },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio",
    ok: 201,
    after: "reset",
    body: (w) => ({ type: "nio_udp", lport: w.spareLport, rhost: "127.0.0.1", rport: 9, filters: FILTERS, suspend: false }),
  },
  {
    method: "PUT",
    template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio",
    ok: 201,
    after: "reset",
    body: (w) => ({ type: "nio_udp", lport: w.pcNioLport, rhost: "127.0.0.1", rport: 9, filters: FILTERS, suspend: false }),
  },
  { method: "DELETE", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio", ok: 204, after: "reset" },
  {
    method: "POST",
    template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/start_capture",
    ok: 200,
    after: "reset",
    body: () => ({ capture_file_name: "fuzz-pc.pcap", data_link_type: "DLT_EN10MB" }),
  },
  { method: "POST", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/stop_capture", ok: 204, after: "reset" },
  { method: "GET", template: "/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/pcap", ok: 200, after: "none" },
  ...casesOf([...LINUX_HOST_ROUTES, ...captureRoutes("netemu_host")], linuxHostActions("v2")),
  // On N1, a switch: refused (409), as exec runs in Linux hosts only.
  { method: "POST", template: "/v2/projects/{project_id}/nodes/{node_id}/netemu/exec", ok: 200, after: "reset", body: () => ({ argv: ["true"] }) },
  // On N1, a switch: GNS3's 404 relayed from its compute, which has no console route for it (ADR 0099).
  { method: "POST", template: "/v2/projects/{project_id}/nodes/{node_id}/console/reset", ok: 204, after: "none" },
  { method: "POST", template: "/v2/projects/{project_id}/nodes/console/reset", ok: 204, after: "none" },
  ...casesOf([...cloudRoutes(), ...captureRoutes("cloud")], cloudActions("v2")),
  {
    method: "POST",
    template: "/v2/projects",
    ok: 201,
    after: "reset",
    body: () => ({ name: "fuzz-2", project_id: randomUUID(), auto_close: false, scene_width: 2000, scene_height: 1000, zoom: 100, supplier: null }),
  },
  { method: "GET", template: "/v2/projects", ok: 200, after: "none" },
  { method: "GET", template: "/v2/projects/{project_id}", ok: 200, after: "none" },
  // GNS3 2.2's load of a .gns3 file by path (ADR 0085), given the world's own project's file. The world's
  // server keeps its projects in memory only (no persistProjects), so every load is refused (409 or 400):
  // what is checked here is that a refusal changes nothing and every answer is a JSON 4xx.
  { method: "POST", template: "/v2/projects/load", ok: 201, after: "reset", body: (w) => ({ path: w.CP_FILE }) },
  // The .gns3 files left out at start (ADR 0085): the world's server left none out.
  { method: "GET", template: "/v2/netemu/projects/skipped", ok: 200, after: "none" },
  { method: "DELETE", template: "/v2/projects/{project_id}", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/open", ok: 201, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/close", ok: 204, after: "reset" },
  {
    method: "POST",
    template: "/v2/projects/{project_id}/nodes",
    ok: 201,
    after: "reset",
    body: () => ({
      name: "N3",
      node_type: "ethernet_switch",
      compute_id: "local",
      x: 1,
      y: 2,
      z: 1,
      label: LABEL,
      properties: { ports_mapping: MAPPING },
    }),
  },
  { method: "GET", template: "/v2/projects/{project_id}/nodes", ok: 200, after: "none" },
  { method: "GET", template: "/v2/projects/{project_id}/nodes/{node_id}", ok: 200, after: "none" },
  {
    method: "PUT",
    template: "/v2/projects/{project_id}/nodes/{node_id}",
    ok: 200,
    after: "reset",
    body: () => ({ name: "N1b", x: 10, y: 10, z: 2, locked: false, label: LABEL, properties: { ports_mapping: MAPPING } }),
  },
  { method: "DELETE", template: "/v2/projects/{project_id}/nodes/{node_id}", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/nodes/start", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/nodes/{node_id}/start", ok: 200, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/nodes/stop", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/nodes/{node_id}/stop", ok: 200, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/nodes/suspend", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/nodes/{node_id}/suspend", ok: 200, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/nodes/reload", ok: 204, after: "reset" },
  { method: "POST", template: "/v2/projects/{project_id}/nodes/{node_id}/reload", ok: 200, after: "reset" },
  {
    method: "POST",
    template: "/v2/projects/{project_id}/links",
    ok: 201,
    after: "reset",
    body: (w) => ({
      nodes: [
        { node_id: w.N1, adapter_number: 0, port_number: 1, label: LABEL },
        { node_id: w.N2, adapter_number: 0, port_number: 1 },
      ],
      filters: { packet_loss: [5] },
      suspend: false,
      link_style: {},
    }),
  },
  { method: "GET", template: "/v2/projects/{project_id}/links", ok: 200, after: "none" },
  { method: "GET", template: "/v2/projects/{project_id}/links/{link_id}", ok: 200, after: "none" },
  {
    method: "PUT",
    template: "/v2/projects/{project_id}/links/{link_id}",
    ok: 201,
    after: "reset",
    body: (w) => ({
      filters: { delay: [10, 2], corrupt: [3] },
      suspend: false,
      link_style: { color: "#000000", width: 2, type: 1 },
      nodes: [{ node_id: w.N1, label: LABEL }],
    }),
  },
  { method: "DELETE", template: "/v2/projects/{project_id}/links/{link_id}", ok: 204, after: "reset" },
  { method: "GET", template: "/v2/projects/{project_id}/links/{link_id}/available_filters", ok: 200, after: "none" },
  {
    method: "POST",
    template: "/v2/projects/{project_id}/links/{link_id}/start_capture",
    ok: 201,
    after: "reset",
    body: () => ({ capture_file_name: "link.pcap", data_link_type: "DLT_EN10MB" }),
  },
  { method: "POST", template: "/v2/projects/{project_id}/links/{link_id}/stop_capture", ok: 201, after: "reset" },
  { method: "GET", template: "/v2/projects/{project_id}/links/{link_id}/pcap", ok: 200, after: "none" },
  { method: "GET", template: "/v2/projects/{project_id}/stats", ok: 200, after: "none" },
  { method: "GET", template: "/v2/projects/{project_id}/drawings", ok: 200, after: "none" },
  { method: "POST", template: "/v2/projects/{project_id}/drawings", ok: 201, after: "reset", body: () => ({ x: 1, y: 2, z: 3, rotation: 90, locked: false, svg: "<svg></svg>" }) },
  { method: "GET", template: "/v2/projects/{project_id}/drawings/{drawing_id}", ok: 200, after: "none" },
  { method: "PUT", template: "/v2/projects/{project_id}/drawings/{drawing_id}", ok: 201, after: "reset", body: () => ({ x: 5, rotation: -45 }) },
  { method: "DELETE", template: "/v2/projects/{project_id}/drawings/{drawing_id}", ok: 204, after: "reset" },
  // The websocket paths without an upgrade: always 400 (the sockets are tested in test/http/controller-notifications.test.ts).
  { method: "GET", template: "/v2/projects/{project_id}/notifications/ws", ok: 400, after: "none", only: [400] },
  { method: "GET", template: "/v2/notifications/ws", ok: 400, after: "none", only: [400] },
  { method: "GET", template: "/v2/projects/{project_id}/nodes/{node_id}/links", ok: 200, after: "none" },
  { method: "GET", template: "/v2/templates", ok: 200, after: "none" },
  { method: "GET", template: "/v2/templates/{template_id}", ok: 200, after: "none" },
  // GNS3's symbols, netemu's own pictures (ADR 0092).
  { method: "GET", template: "/v2/symbols", ok: 200, after: "none" },
  { method: "GET", template: "/v2/symbols/{symbol_id}/raw", ok: 200, after: "none" },
  { method: "GET", template: "/v2/symbols/{symbol_id}/dimensions", ok: 200, after: "none" },
  { method: "POST", template: "/v2/projects/{project_id}/templates/{template_id}", ok: 201, after: "reset", body: () => ({ x: 10, y: -20, name: "FromTemplate", compute_id: "local" }) },
  { method: "GET", template: "/v2/computes", ok: 200, after: "none" },
  { method: "GET", template: "/v2/computes/{compute_id}", ok: 200, after: "none" },
];

// 422: /v3/compute's validation answer (ADR 0066).
const REFUSALS = new Set([400, 403, 404, 405, 409, 413, 422]);
const RUNS = Number.parseInt(process.env["FC_RUNS"] ?? "100", 10);

function validParams(w: World, template: string): Record<string, string> {
  const controller = template.startsWith("/v2/projects");
  return {
    project_id: controller ? w.CP : w.P,
    node_id: controller ? w.N1 : template.includes("/ethernet_hub/") ? w.HUB : template.includes("/vpcs/") ? w.PC : template.includes("/netemu_host/") ? w.HOST : template.includes("/cloud/") ? w.CLOUD : w.SW,
    link_id: w.LINK,
    drawing_id: w.DRAWING,
    path: w.FILE,
    file_path: w.FILE,
    template_id: "1966b864-93e7-32d5-965f-001384eec461",
    symbol_id: ":/symbols/ethernet_switch.svg",
    compute_id: "local",
    name: "fuzz-trace",
    adapter_number: "0",
    port_number: template.includes("/nio") && (template.startsWith("/v2/compute") || template.startsWith("/v3/compute")) ? "1" : "0",
  };
}

/** For NIO POST the free port is 1; PUT, DELETE and captures use port 0 (which has the world's NIO). */
function portFor(route: RouteCase): string {
  return route.method === "POST" && route.template.endsWith("/nio") ? "1" : "0";
}

function pathArb(w: World, route: RouteCase): fc.Arbitrary<string> {
  const names = [...route.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const valid = validParams(w, route.template);
  valid["port_number"] = portFor(route);
  return fc.tuple(...names.map((n) => (n === "path" || n === "file_path" ? filePathArb(valid[n]!) : paramArb(valid[n] ?? "x"))), queryArb).map((values) => {
    const query = values.pop() as string;
    let i = 0;
    return route.template.replace(/\{(\w+)\}/g, () => values[i++] as string) + query;
  });
}

const protoKeys = (o: object): string => Object.getOwnPropertyNames(o).sort().join(",");

describe("API properties: mutated requests on every route (fast-check, seeded)", function () {
  this.timeout(120_000);
  let world: World;
  const initial = { object: protoKeys(Object.prototype), array: protoKeys(Array.prototype), fn: protoKeys(Function.prototype) };

  before(async () => {
    world = await World.create();
  });
  after(async () => {
    await world.close();
    closeRawHttpAgent();
  });

  it("covers every route the app registers", () => {
    // The app's router itself says what is registered (routes added in loops included).
    const dispatch = world.s.netemu.app.middleware.find((m) => "router" in m) as unknown as { router: { stack: { methods: string[]; path: string }[] } };
    const shape = (path: string): string => path.replace(/\{[^}]+\}|:\w+|\*\w+/g, "{}");
    const registered = dispatch.router.stack.flatMap((layer) => layer.methods.filter((m) => m !== "HEAD").map((m) => `${m} ${shape(layer.path)}`));
    const cases = ROUTES.map((r) => `${r.method} ${shape(r.template)}`);
    // POST /v2/shutdown has its own property below. GET .../notifications streams for as long as the
    // client stays, so a fuzzed request could never be awaited: test/http/compute-surface.test.ts covers it.
    const elsewhere = ["POST /v2/shutdown", "GET /v2/compute/projects/{}/notifications", "GET /v2/projects/{}/notifications", "GET /v2/notifications"];
    expect(new Set(registered).size, "no route registered twice").to.equal(registered.length);
    expect(new Set(cases).size, "one case per route").to.equal(cases.length);
    expect(registered.filter((r) => !cases.includes(r) && !elsewhere.includes(r)).sort(), "routes without a case").to.deep.equal([]);
    expect(cases.filter((c) => !registered.includes(c)).sort(), "cases of no route").to.deep.equal([]);
    expect(elsewhere.filter((r) => !registered.includes(r)), "routes covered elsewhere").to.deep.equal([]);
    expect(ROUTES.length + elsewhere.length).to.equal(registered.length);
  });

  it("POST /v2/shutdown on a non-local server answers a JSON 403 whatever it is sent, and changes nothing", async () => {
    const remote = await World.create({ settings: { local: false } });
    try {
      const baseline = await remote.fingerprint();
      await fc.assert(
        fc.asyncProperty(bodyTextArb({}), queryArb, async (body, query) => {
          const reply = await rawHttp(remote.url, "POST", `/v2/shutdown${query}`, body);
          const where = `POST /v2/shutdown${query} body=${(body ?? "<none>").slice(0, 200)} → ${reply.status} ${reply.text.slice(0, 200)}`;
          expect([400, 403, 413], where).to.include(reply.status);
          expect(errorBodyProblem("POST", reply), where).to.equal(undefined);
          expect(await remote.fingerprint(), where).to.equal(baseline);
        }),
        { numRuns: RUNS, seed: FC_SEED, endOnFailure: true },
      );
      expect((await rawHttp(remote.url, "GET", "/v2/version")).status).to.equal(200);
    } finally {
      await remote.close();
    }
  });

  for (const route of ROUTES) {
    it(`${route.method} ${route.template} answers ${route.ok} or a JSON 4xx, and a 4xx changes nothing`, async () => {
      let baseline = await world.fingerprint();
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(
          fc.constant(null).chain(() => fc.tuple(pathArb(world, route), bodyTextArb(route.body?.(world)))),
          async ([path, body]) => {
            const reply = await rawHttp(world.url, route.method, path, body);
            seen.set(reply.status, (seen.get(reply.status) ?? 0) + 1);
            const where = `${route.method} ${path.slice(0, 300)} body=${(body ?? "<none>").slice(0, 300)} → ${reply.status} ${reply.text.slice(0, 300)}`;
            expect(reply.status, where).to.be.below(500);
            expect(reply.status === route.ok || REFUSALS.has(reply.status), `undocumented status: ${where}`).to.equal(true);
            if (route.only !== undefined) expect(route.only, `status: ${where}`).to.include(reply.status);
            const problem = errorBodyProblem(route.method, reply, path);
            expect(problem, where).to.equal(undefined);
            expect(({} as Record<string, unknown>)["polluted"], where).to.equal(undefined);
            expect(protoKeys(Object.prototype), where).to.equal(initial.object);
            expect(protoKeys(Array.prototype), where).to.equal(initial.array);
            expect(protoKeys(Function.prototype), where).to.equal(initial.fn);
            if (reply.status >= 400 || route.after === "none") {
              const now = await world.fingerprint();
              expect(now, `state changed after ${where}`).to.equal(baseline);
            } else {
              await world.close();
              world = await World.create();
              baseline = await world.fingerprint();
            }
          },
        ),
        { numRuns: route.runs ?? RUNS, seed: FC_SEED, endOnFailure: true },
      );
      if (process.env["HARD_VERBOSE"] !== undefined) console.log(`      ${route.method} ${route.template.replace("/v2/compute/projects/{project_id}/ethernet_switch/nodes/{node_id}", "SW")}: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
    });
  }
});

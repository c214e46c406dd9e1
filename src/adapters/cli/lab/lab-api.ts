import * as E from "fp-ts/lib/Either.js";
import type { HostCommandResult } from "../../../application/ports/namespace-hosts.js";
import type { DeployedLink, DeployedNode } from "../../../application/labs/gns3-nodes.js";
import { CONTROLLER_LINK_ROUTES } from "../../http/controller/link-routes.js";
import { controllerNodeRoutes } from "../../http/controller/node-routes.js";
import { CONTROLLER_PROJECT_ROUTES } from "../../http/controller/project-routes.js";
import { IMPAIRMENT_ROUTES } from "../../http/server/impairment-routes.js";
import { TRACE_ROUTES } from "../../http/server/trace-routes.js";
import type { AnyRoute } from "../../http/route.js";
import { type RouteCallFailure, type RouteServer, callRoute, callUploadRoute, describeFailure } from "../route-client.js";

/**
 * The calls `netemu lab` makes on a netemu's controller API, behind one interface (a test may put another
 * under the command). Made through the route client (issue 26): each call is the server's own route value,
 * so its path, body and answer cannot drift from what the server serves. Expected failures are values:
 * what was being done, and the route client's failure (a refusal with GNS3's message, no answer, ...).
 */
export interface LabApiFailure {
  readonly call: string;
  readonly failure: RouteCallFailure;
}

/** The failure in a sentence: what was being done, and what the server said. */
export function describeLabApiFailure(f: LabApiFailure): string {
  return f.failure._tag === "NoAnswer" ? describeFailure(f.failure) : `could not ${f.call}: ${describeFailure(f.failure)}`;
}

export type Answer<T> = Promise<E.Either<LabApiFailure, T>>;

export interface ProjectSummary {
  readonly projectId: string;
  readonly name: string;
  readonly status: string;
}

/** An impairment `netemu impair` put on a port of the project (ADR 0067): not the link's, the port's. */
export interface PortImpairment {
  readonly nodeId: string;
  readonly portName: string;
  readonly in: Readonly<Record<string, unknown>>;
  readonly out: Readonly<Record<string, unknown>>;
}

export interface LabApi {
  readonly server: string;
  portImpairments(projectId: string): Answer<readonly PortImpairment[]>;
  projects(): Answer<readonly ProjectSummary[]>;
  createProject(name: string): Answer<ProjectSummary>;
  /**
   * Makes the server hold `text` as the trace `name` (ADR 0103): uploaded unless it holds that text
   * already (a trace a link uses cannot be replaced, so a redeploy of the same lab must not try). Optional:
   * a LabApi without it deploys labs without traces only.
   */
  ensureTrace?(name: string, text: string): Answer<void>;
  /**
   * The text of the trace `name` as the server holds it (`netemu lab save --output` ships it beside the
   * lab file).
   */
  traceText(name: string): Answer<string>;
  openProject(projectId: string): Answer<void>;
  deleteProject(projectId: string): Answer<void>;
  nodes(projectId: string): Answer<readonly DeployedNode[]>;
  links(projectId: string): Answer<readonly DeployedLink[]>;
  createNode(projectId: string, body: Readonly<Record<string, unknown>>): Answer<DeployedNode>;
  updateNode(projectId: string, nodeId: string, body: Readonly<Record<string, unknown>>): Answer<void>;
  deleteNode(projectId: string, nodeId: string): Answer<void>;
  startNodes(projectId: string): Answer<void>;
  createLink(projectId: string, body: Readonly<Record<string, unknown>>): Answer<void>;
  updateLink(projectId: string, linkId: string, body: Readonly<Record<string, unknown>>): Answer<void>;
  deleteLink(projectId: string, linkId: string): Answer<void>;
  /** Runs argv inside a Linux host (ADR 0087), bounded by `timeoutSeconds`. */
  exec(projectId: string, nodeId: string, argv: readonly string[], timeoutSeconds: number): Answer<HostCommandResult>;
}


const record = (u: unknown): Record<string, unknown> => (typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : {});

/** A node of GET /v2/projects/{p}/nodes, the fields a lab reads. */
function deployedNode(u: unknown): DeployedNode {
  const n = record(u);
  return {
    nodeId: String(n["node_id"]),
    name: String(n["name"]),
    nodeType: String(n["node_type"]),
    properties: record(n["properties"]),
    status: String(n["status"]),
    console: typeof n["console"] === "number" ? n["console"] : null,
    consoleHost: typeof n["console_host"] === "string" ? n["console_host"] : null,
    consoleType: typeof n["console_type"] === "string" ? n["console_type"] : null,
    x: typeof n["x"] === "number" ? n["x"] : 0,
    y: typeof n["y"] === "number" ? n["y"] : 0,
  };
}

function deployedLink(u: unknown): DeployedLink {
  const l = record(u);
  const ends = Array.isArray(l["nodes"]) ? (l["nodes"] as unknown[]) : [];
  return {
    linkId: String(l["link_id"]),
    ends: ends.map((e) => {
      const end = record(e);
      return { nodeId: String(end["node_id"]), adapterNumber: Number(end["adapter_number"]), portNumber: Number(end["port_number"]), filters: record(end["filters"]), ...(end["schedule"] === undefined ? {} : { schedule: end["schedule"] }) };
    }),
    filters: record(l["filters"]),
    suspend: l["suspend"] === true,
    linkStyle: record(l["link_style"]),
  };
}

/** The node routes by name: they are made with the console host, which only the answers carry (not read here). */
const NODE_ROUTES = new Map(controllerNodeRoutes("").map((r) => [r.name, r]));

function nodeRoute(name: string): AnyRoute {
  const r = NODE_ROUTES.get(name);
  if (r === undefined) throw new Error(`netemu has no route ${name}`);
  return r;
}

type Input = { readonly params?: Readonly<Record<string, string>>; readonly body?: unknown };

/** The LabApi over the route client: every call one of the server's route values. */
export class RouteLabApi implements LabApi {
  readonly server: string;

  constructor(private readonly target: RouteServer) {
    this.server = target.url;
  }

  private async call(route: AnyRoute, input: Input, call: string): Answer<unknown> {
    // The route values of several templates are held as AnyRoute here; the input is the route's own shape.
    const answer = await callRoute(route, input as never, this.target);
    return E.isLeft(answer) ? E.left({ call, failure: answer.left }) : E.right(answer.right as unknown);
  }

  private async map<T>(answer: Answer<unknown>, f: (u: unknown) => T): Answer<T> {
    const a = await answer;
    return E.isLeft(a) ? a : E.right(f(a.right));
  }

  private done(answer: Answer<unknown>): Answer<void> {
    return this.map(answer, () => undefined);
  }

  projects(): Answer<readonly ProjectSummary[]> {
    return this.map(this.call(CONTROLLER_PROJECT_ROUTES.list, {}, "list the projects"), (u) =>
      (Array.isArray(u) ? u : []).map((p) => ({ projectId: String(record(p)["project_id"]), name: String(record(p)["name"]), status: String(record(p)["status"]) })),
    );
  }

  async ensureTrace(name: string, text: string): Answer<void> {
    const held = await callRoute(TRACE_ROUTES.get, { params: { name } }, this.target);
    if (E.isRight(held) && held.right === text) return E.right(undefined);
    const put = await callUploadRoute(TRACE_ROUTES.upload, { name }, text, this.target);
    return E.isLeft(put) ? E.left({ call: `upload the trace ${name}`, failure: put.left }) : E.right(undefined);
  }

  async traceText(name: string): Answer<string> {
    const held = await callRoute(TRACE_ROUTES.get, { params: { name } }, this.target);
    return E.isLeft(held) ? E.left({ call: `read the trace ${name}`, failure: held.left }) : E.right(held.right);
  }

  createProject(name: string): Answer<ProjectSummary> {
    return this.map(this.call(CONTROLLER_PROJECT_ROUTES.create, { body: { name } }, `create the project ${name}`), (u) => ({ projectId: String(record(u)["project_id"]), name, status: "opened" }));
  }

  openProject(projectId: string): Answer<void> {
    return this.done(this.call(CONTROLLER_PROJECT_ROUTES.open, { params: { project_id: projectId } }, "open the project"));
  }

  deleteProject(projectId: string): Answer<void> {
    return this.done(this.call(CONTROLLER_PROJECT_ROUTES.delete, { params: { project_id: projectId } }, "delete the project"));
  }

  portImpairments(projectId: string): Answer<readonly PortImpairment[]> {
    // Every impairment, kept to the project's by its id: a selection by project would be refused for a
    // project the overlay cannot name (two of one name), where the id says which.
    return this.map(this.call(IMPAIRMENT_ROUTES.list, { body: {} }, "list the impairments"), (u) =>
      (Array.isArray(u) ? u.map(record) : [])
        .filter((i) => i["project_id"] === projectId)
        .map((i) => ({ nodeId: String(i["node_id"]), portName: String(i["port_name"]), in: record(i["filters_in"]), out: record(i["filters_out"]) })),
    );
  }

  nodes(projectId: string): Answer<readonly DeployedNode[]> {
    return this.map(this.call(nodeRoute("controller.node.list"), { params: { project_id: projectId } }, "list the nodes"), (u) => (Array.isArray(u) ? u.map(deployedNode) : []));
  }

  links(projectId: string): Answer<readonly DeployedLink[]> {
    return this.map(this.call(CONTROLLER_LINK_ROUTES.list, { params: { project_id: projectId } }, "list the links"), (u) => (Array.isArray(u) ? u.map(deployedLink) : []));
  }

  createNode(projectId: string, body: Readonly<Record<string, unknown>>): Answer<DeployedNode> {
    return this.map(this.call(nodeRoute("controller.node.create"), { params: { project_id: projectId }, body }, `create node ${String(body["name"])}`), deployedNode);
  }

  updateNode(projectId: string, nodeId: string, body: Readonly<Record<string, unknown>>): Answer<void> {
    return this.done(this.call(nodeRoute("controller.node.update"), { params: { project_id: projectId, node_id: nodeId }, body }, `update node ${String(body["name"])}`));
  }

  deleteNode(projectId: string, nodeId: string): Answer<void> {
    return this.done(this.call(nodeRoute("controller.node.delete"), { params: { project_id: projectId, node_id: nodeId } }, "delete a node"));
  }

  startNodes(projectId: string): Answer<void> {
    return this.done(this.call(nodeRoute("controller.nodes.start"), { params: { project_id: projectId } }, "start the nodes"));
  }

  createLink(projectId: string, body: Readonly<Record<string, unknown>>): Answer<void> {
    return this.done(this.call(CONTROLLER_LINK_ROUTES.create, { params: { project_id: projectId }, body }, "create a link"));
  }

  updateLink(projectId: string, linkId: string, body: Readonly<Record<string, unknown>>): Answer<void> {
    return this.done(this.call(CONTROLLER_LINK_ROUTES.update, { params: { project_id: projectId, link_id: linkId }, body }, "update a link"));
  }

  deleteLink(projectId: string, linkId: string): Answer<void> {
    return this.done(this.call(CONTROLLER_LINK_ROUTES.delete, { params: { project_id: projectId, link_id: linkId } }, "delete a link"));
  }

  exec(projectId: string, nodeId: string, argv: readonly string[], timeoutSeconds: number): Answer<HostCommandResult> {
    return this.map(this.call(nodeRoute("controller.node.exec"), { params: { project_id: projectId, node_id: nodeId }, body: { argv, timeout: timeoutSeconds } }, "run the command"), (u) => {
      const r = record(u);
      return {
        exitCode: typeof r["exit_code"] === "number" ? r["exit_code"] : null,
        signal: typeof r["signal"] === "string" ? r["signal"] : null,
        stdout: String(r["stdout"] ?? ""),
        stderr: String(r["stderr"] ?? ""),
        timedOut: r["timed_out"] === true,
        truncated: r["truncated"] === true,
      };
    });
  }
}

import * as E from "fp-ts/lib/Either.js";
import type { DeployedLink, DeployedNode } from "../../../application/labs/gns3-nodes.js";

/**
 * The calls `netemu lab` makes on a netemu's controller API, behind one interface so that the client under
 * it (plain fetch here; the typed route client of issue 26 when it lands) is one file to switch.
 * Expected failures are values: the server's refusal with its status and message, or no answer.
 */
export type LabApiFailure =
  | { readonly _tag: "ServerRefused"; readonly call: string; readonly status: number; readonly message: string }
  | { readonly _tag: "NoAnswer"; readonly server: string; readonly reason: string };

export type Answer<T> = Promise<E.Either<LabApiFailure, T>>;

export interface ProjectSummary {
  readonly projectId: string;
  readonly name: string;
  readonly status: string;
}

export interface LabApi {
  readonly server: string;
  projects(): Answer<readonly ProjectSummary[]>;
  createProject(name: string): Answer<ProjectSummary>;
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
}

const record = (u: unknown): Record<string, unknown> => (typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : {});

/** A node of GET /v2/projects/{p}/nodes, the fields a lab reads. */
export function deployedNode(u: unknown): DeployedNode {
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

export function deployedLink(u: unknown): DeployedLink {
  const l = record(u);
  const ends = Array.isArray(l["nodes"]) ? (l["nodes"] as unknown[]) : [];
  return {
    linkId: String(l["link_id"]),
    ends: ends.map((e) => {
      const end = record(e);
      return { nodeId: String(end["node_id"]), adapterNumber: Number(end["adapter_number"]), portNumber: Number(end["port_number"]), filters: record(end["filters"]) };
    }),
    filters: record(l["filters"]),
    suspend: l["suspend"] === true,
    linkStyle: record(l["link_style"]),
  };
}

/** The LabApi over fetch, with GNS3's error bodies (`{"message", "status"}`) read into the refusal. */
export class FetchLabApi implements LabApi {
  constructor(
    readonly server: string,
    private readonly headers: Readonly<Record<string, string>> = {},
    private readonly timeoutMs = 60_000,
  ) {}

  private async call(method: string, path: string, call: string, body?: unknown): Answer<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.server}${path}`, {
        method,
        headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...this.headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
      return E.left({ _tag: "NoAnswer", server: this.server, reason: cause });
    }
    const text = await response.text();
    let answer: unknown;
    try {
      answer = text === "" ? undefined : JSON.parse(text);
    } catch {
      answer = undefined;
    }
    if (!response.ok) {
      const message = record(answer)["message"];
      return E.left({ _tag: "ServerRefused", call, status: response.status, message: typeof message === "string" ? message : text || response.statusText });
    }
    return E.right(answer);
  }

  private async map<T>(answer: Answer<unknown>, f: (u: unknown) => T): Answer<T> {
    const a = await answer;
    return E.isLeft(a) ? a : E.right(f(a.right));
  }

  private done(answer: Answer<unknown>): Answer<void> {
    return this.map(answer, () => undefined);
  }

  projects(): Answer<readonly ProjectSummary[]> {
    return this.map(this.call("GET", "/v2/projects", "list the projects"), (u) =>
      (Array.isArray(u) ? u : []).map((p) => ({ projectId: String(record(p)["project_id"]), name: String(record(p)["name"]), status: String(record(p)["status"]) })),
    );
  }

  createProject(name: string): Answer<ProjectSummary> {
    return this.map(this.call("POST", "/v2/projects", `create the project ${name}`, { name }), (u) => ({ projectId: String(record(u)["project_id"]), name, status: "opened" }));
  }

  openProject(projectId: string): Answer<void> {
    return this.done(this.call("POST", `/v2/projects/${projectId}/open`, "open the project"));
  }

  deleteProject(projectId: string): Answer<void> {
    return this.done(this.call("DELETE", `/v2/projects/${projectId}`, "delete the project"));
  }

  nodes(projectId: string): Answer<readonly DeployedNode[]> {
    return this.map(this.call("GET", `/v2/projects/${projectId}/nodes`, "list the nodes"), (u) => (Array.isArray(u) ? u.map(deployedNode) : []));
  }

  links(projectId: string): Answer<readonly DeployedLink[]> {
    return this.map(this.call("GET", `/v2/projects/${projectId}/links`, "list the links"), (u) => (Array.isArray(u) ? u.map(deployedLink) : []));
  }

  createNode(projectId: string, body: Readonly<Record<string, unknown>>): Answer<DeployedNode> {
    return this.map(this.call("POST", `/v2/projects/${projectId}/nodes`, `create node ${String(body["name"])}`, body), deployedNode);
  }

  updateNode(projectId: string, nodeId: string, body: Readonly<Record<string, unknown>>): Answer<void> {
    return this.done(this.call("PUT", `/v2/projects/${projectId}/nodes/${nodeId}`, `update node ${String(body["name"])}`, body));
  }

  deleteNode(projectId: string, nodeId: string): Answer<void> {
    return this.done(this.call("DELETE", `/v2/projects/${projectId}/nodes/${nodeId}`, "delete a node"));
  }

  startNodes(projectId: string): Answer<void> {
    return this.done(this.call("POST", `/v2/projects/${projectId}/nodes/start`, "start the nodes"));
  }

  createLink(projectId: string, body: Readonly<Record<string, unknown>>): Answer<void> {
    return this.done(this.call("POST", `/v2/projects/${projectId}/links`, "create a link", body));
  }

  updateLink(projectId: string, linkId: string, body: Readonly<Record<string, unknown>>): Answer<void> {
    return this.done(this.call("PUT", `/v2/projects/${projectId}/links/${linkId}`, "update a link", body));
  }

  deleteLink(projectId: string, linkId: string): Answer<void> {
    return this.done(this.call("DELETE", `/v2/projects/${projectId}/links/${linkId}`, "delete a link"));
  }
}

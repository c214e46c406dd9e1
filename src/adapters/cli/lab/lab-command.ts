/**
 * `netemu lab`: labs as files (ADR 0084, docs/labs.md). A client of netemu's controller API: the plan is
 * made by the application (planDeploy, pure) and its steps made here, through LabApi.
 *
 *   netemu lab deploy FILE [--reconfigure]     netemu lab inspect NAME|FILE     netemu lab save NAME [--output FILE]
 *   netemu lab destroy NAME|FILE               netemu lab exec [--lab NAME|FILE] NODE -- COMMAND ...
 *
 * Exit status: 0 done, 1 the server refused or the lab is not there (or exists, for deploy), 2 bad arguments,
 * a lab file that cannot be used, or no answer from the server.
 */
import * as E from "fp-ts/lib/Either.js";
import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type DeployedNode, type DeployedProject, LINUX_HOST_NODE_TYPE, labOfProject } from "../../../application/labs/gns3-nodes.js";
import type { Lab } from "../../../application/labs/lab.js";
import { describeLabFileInvalid, parseLab } from "../../../application/labs/parse-lab.js";
import { type CurrentLab, type LabOperation, planDeploy } from "../../../application/labs/plan-deploy.js";
import { tracesNamedBy, withSavedTraces } from "../../../application/labs/lab-traces.js";
import { renderLab } from "../../../application/labs/render-lab.js";
import { terminalText } from "../terminal-text.js";
import { executePlan } from "./execute-plan.js";
import { type LabApi, type LabApiFailure, type ProjectSummary, RouteLabApi, describeLabApiFailure } from "./lab-api.js";
import { consoleAddress, inspectLines } from "./lab-table.js";
import { type SavedTrace, checkOutput, describeSavedLabFilesFailure, writeSavedLab } from "./saved-lab-files.js";
import { addressLineOf, typeIntoConsole } from "./vpcs-console.js";
import type { RouteServer } from "../route-client.js";

const LAB_HELP = `usage: netemu lab deploy FILE [--reconfigure] [--wait SECONDS] [--server URL]
       netemu lab inspect NAME|FILE [--server URL]
       netemu lab save NAME [--output FILE] [--schema PATH] [--server URL]
       netemu lab destroy NAME|FILE [--server URL]
       netemu lab exec [--lab NAME|FILE] [--timeout SECONDS] NODE -- COMMAND ...

Labs as YAML files (docs/labs.md; the JSON Schema for editors is schemas/lab.schema.json).

  deploy FILE       makes the lab on the server: its project, nodes, links and their impairments, then starts
                    the nodes and prints them. A lab whose project exists is left alone and said so, unless
  --reconfigure     makes the project what the file says: adds, changes and removes what differs (a closed
                    project, as after a restart of the server, is opened and its nodes started first)
  --wait S          deploy: wait up to S seconds for the server to answer (one started just before, still building)
  inspect           the lab's nodes (kind, status, console, addresses) and links (filters, each direction's impairments)
  save NAME         prints a running project as a lab file (deploy of it makes the same lab)
  --output FILE     save: writes it to FILE instead, and each trace its links name to traces/NAME beside FILE,
                    with a traces: section naming them (without it, > FILE saves the lab without its traces)
  --schema PATH     save: start the file with a yaml-language-server line pointing at the schema
  destroy           deletes the lab's project, its nodes and links
  exec NODE -- CMD  types CMD into a VPCS node's console and prints its answer (e.g. exec pc1 -- ping 10.0.0.2);
                    in a Linux host, runs CMD inside it and exits with its exit code (e.g. exec h1 -- ip addr)
  --lab NAME|FILE   exec: the lab that holds NODE (needed when several labs have a node of that name)
  --timeout S       exec: how long to wait for the command's answer (default 60)
  --server URL      netemu's address (NETEMU_SERVER, default http://127.0.0.1:3080)
  --user NAME       for a netemu run with --auth (NETEMU_USER); the password from NETEMU_PASSWORD or --password

Exit status: 0 done; 1 the server refused, the lab is not there, or (deploy) it exists and differs;
2 bad arguments, a lab file that cannot be used, or no answer from the server.
`;

type Out = (line: string) => void;

interface Context {
  readonly api: LabApi;
  readonly out: Out;
  readonly err: Out;
}

/** Where the LabApi comes from: the command makes a RouteLabApi; a test may give another. */
type LabApiFactory = (server: RouteServer) => LabApi;

const fail = (err: Out, message: string, code: number): number => {
  err(`netemu lab: ${message}`);
  return code;
};

function failureText(f: LabApiFailure): string {
  return terminalText(describeLabApiFailure(f));
}

/** No answer, or not a netemu at the address: 2, as a wrong --server is; a refusal: 1. */
const failureCode = (f: LabApiFailure): number => (f.failure._tag === "Refused" || f.failure._tag === "AnswerUnreadable" ? 1 : 2);

/** A lab file read and parsed, or the words of why not. */
function readLab(file: string): E.Either<string, Lab> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return E.left(`${terminalText(file)}: ${terminalText((e as Error).message)}`);
  }
  const lab = parseLab(text, file);
  return E.isLeft(lab) ? E.left(terminalText(describeLabFileInvalid(lab.left))) : E.right(lab.right);
}

/** NAME|FILE: a file that exists is read for its lab's name; anything else is a name. */
function labName(arg: string): E.Either<string, string> {
  let isFile = false;
  try {
    isFile = statSync(arg).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) return E.right(arg);
  return E.map((lab: Lab) => lab.name)(readLab(arg));
}

async function findProject(api: LabApi, name: string): Promise<E.Either<LabApiFailure, ProjectSummary | undefined>> {
  const projects = await api.projects();
  return E.isLeft(projects) ? projects : E.right(projects.right.find((p) => p.name === name));
}

async function readProject(api: LabApi, project: ProjectSummary): Promise<E.Either<LabApiFailure, DeployedProject>> {
  const nodes = await api.nodes(project.projectId);
  if (E.isLeft(nodes)) return nodes;
  const links = await api.links(project.projectId);
  if (E.isLeft(links)) return links;
  const host = new URL(api.server).hostname;
  return E.right({ projectId: project.projectId, name: project.name, nodes: await Promise.all(nodes.right.map((n) => withVpcsAddress(n, host))), links: links.right });
}

/**
 * A VPCS node with its address: GNS3's controller answers a VPCS node without its startup script, so a
 * running PC is asked (`show ip` on its console) and its address put where the lab reads it. A PC that
 * cannot be asked (stopped, its console busy) stays as answered: without an address.
 */
async function withVpcsAddress(node: DeployedNode, serverHost: string): Promise<DeployedNode> {
  if (node.nodeType !== "vpcs" || typeof node.properties["startup_script"] === "string" || node.status !== "started" || node.console === null) return node;
  const address = consoleAddress(node, serverHost);
  if (address === undefined) return node;
  const shown = await typeIntoConsole(address.slice(0, address.lastIndexOf(":")).replace(/^\[|\]$/g, ""), node.console, "show ip", 10_000);
  if (E.isLeft(shown)) return node;
  const line = addressLineOf(shown.right);
  return { ...node, properties: { ...node.properties, startup_script: line === undefined ? "" : `${line}\n` } };
}

/** A project that runs a lab, as the plan reads it; undefined with the reason when it holds what no lab can. */
function currentLab(project: DeployedProject): E.Either<string, CurrentLab> {
  const lab = labOfProject(project);
  if (E.isLeft(lab)) return E.left(lab.left.what);
  return E.right({
    projectId: project.projectId,
    lab: lab.right,
    linkIds: project.links.map((l) => l.linkId),
    notStarted: project.nodes.filter((n) => n.status !== "started").map((n) => n.name),
  });
}

function describeStep(step: LabOperation): string {
  switch (step.op) {
    case "createProject":
      return `create project ${step.name}`;
    case "deleteLink":
      return `delete link ${step.ends[0].node}:${step.ends[0].port} - ${step.ends[1].node}:${step.ends[1].port}`;
    case "deleteNode":
      return `delete node ${step.name}`;
    case "updateNode":
      return `update node ${step.node.name}`;
    case "createNode":
      return `create node ${step.node.name}`;
    case "createLink":
      return `create link ${step.link.ends[0].node}:${step.link.ends[0].port} - ${step.link.ends[1].node}:${step.link.ends[1].port}`;
    case "updateLink":
      return `update link ${step.link.ends[0].node}:${step.link.ends[0].port} - ${step.link.ends[1].node}:${step.link.ends[1].port}`;
    case "startNodes":
      return "start the nodes";
  }
}

async function inspectProject(c: Context, projectId: string, name: string): Promise<number> {
  const project = await readProject(c.api, { projectId, name, status: "opened" });
  if (E.isLeft(project)) return fail(c.err, failureText(project.left), failureCode(project.left));
  const impairments = await c.api.portImpairments(projectId);
  if (E.isLeft(impairments)) return fail(c.err, failureText(impairments.left), failureCode(impairments.left));
  for (const line of inspectLines(project.right, new URL(c.api.server).hostname, impairments.right)) c.out(line);
  return 0;
}

/**
 * The projects, asked again every half second while nothing answers at the address, up to waitMs: a server
 * started in the background a moment ago (`npm start &` builds first) answers after some seconds.
 */
async function projectWhenAnswering(api: LabApi, name: string, waitMs: number): Promise<E.Either<LabApiFailure, ProjectSummary | undefined>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const found = await findProject(api, name);
    if (E.isRight(found) || found.left.failure._tag !== "NoAnswer" || Date.now() >= deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, Math.min(500, Math.max(0, deadline - Date.now()))));
  }
}

async function deploy(c: Context, file: string, reconfigure: boolean, waitMs: number): Promise<number> {
  const lab = readLab(file);
  if (E.isLeft(lab)) return fail(c.err, lab.left, 2);
  const found = await projectWhenAnswering(c.api, lab.right.name, waitMs);
  if (E.isLeft(found) && found.left.failure._tag === "NoAnswer" && waitMs > 0) return fail(c.err, `${failureText(found.left)} (waited ${waitMs / 1000} s)`, 2);
  if (E.isLeft(found)) return fail(c.err, failureText(found.left), failureCode(found.left));
  let current: CurrentLab | undefined;
  const ids = new Map<string, string>();
  const existing = found.right;
  const name = terminalText(lab.right.name);
  if (existing !== undefined) {
    if (existing.status !== "opened") {
      if (!reconfigure) return fail(c.err, `lab ${name} exists (project ${existing.projectId}, closed); nothing changed (--reconfigure opens it and makes it what ${terminalText(file)} says)`, 1);
      const opened = await c.api.openProject(existing.projectId);
      if (E.isLeft(opened)) return fail(c.err, failureText(opened.left), failureCode(opened.left));
      // Opened, its nodes are stopped: a stopped PC shows no address, so the plan would make every PC again.
      // Started, each PC runs its startup script (kept in the project) and shows the address it had.
      const started = await c.api.startNodes(existing.projectId);
      if (E.isLeft(started)) return fail(c.err, failureText(started.left), failureCode(started.left));
    }
    const project = await readProject(c.api, existing);
    if (E.isLeft(project)) return fail(c.err, failureText(project.left), failureCode(project.left));
    const read = currentLab(project.right);
    if (E.isLeft(read)) return fail(c.err, `lab ${name} exists (project ${existing.projectId}) and ${terminalText(read.left)}; nothing changed${reconfigure ? " (a lab file cannot say it, so it cannot be reconfigured: destroy it first)" : ""}`, 1);
    current = read.right;
    for (const n of project.right.nodes) ids.set(n.name, n.nodeId);
  }
  // The traces its filters name, from their files beside the lab file, before any link names them (ADR 0103).
  for (const [traceName, path] of Object.entries(lab.right.traces ?? {})) {
    let text: string;
    try {
      text = readFileSync(resolve(dirname(file), path), "utf8");
    } catch (e) {
      return fail(c.err, `${terminalText(file)}: traces.${terminalText(traceName)}: ${terminalText((e as Error).message)}`, 2);
    }
    if (c.api.ensureTrace === undefined) return fail(c.err, `this client cannot upload the trace ${terminalText(traceName)}`, 2);
    const held = await c.api.ensureTrace(traceName, text);
    if (E.isLeft(held)) return fail(c.err, failureText(held.left), failureCode(held.left));
  }
  const plan = planDeploy(lab.right, current, { reconfigure });
  if (E.isLeft(plan)) {
    const { projectId, changes } = plan.left;
    if (changes === 0) {
      c.out(`netemu lab: lab ${name} is deployed already (project ${projectId}), as ${terminalText(file)} says: nothing to change`);
      return 0;
    }
    return fail(c.err, `lab ${name} exists (project ${projectId}); nothing changed. It differs from ${terminalText(file)} in ${changes} step${changes === 1 ? "" : "s"}: give --reconfigure to make them`, 1);
  }
  if (plan.right.length === 0) {
    c.out(`netemu lab: lab ${name} is deployed already (project ${current?.projectId ?? ""}), as ${terminalText(file)} says: nothing to change`);
    return 0;
  }
  const done = await executePlan(c.api, plan.right, current?.projectId, ids);
  if (E.isLeft(done)) {
    const { step, of, failure } = done.left;
    const what = terminalText(describeStep(plan.right[step - 1] as LabOperation));
    return fail(c.err, `${failureText(failure)} (step ${step} of ${of}: ${what}; the steps before it were made, \`netemu lab deploy --reconfigure\` takes it from there)`, failureCode(failure));
  }
  c.out(`netemu lab: ${current === undefined ? "deployed" : `reconfigured (${plan.right.length} step${plan.right.length === 1 ? "" : "s"})`} lab ${name}: ${lab.right.nodes.length} nodes, ${lab.right.links.length} links (project ${done.right})`);
  return inspectProject(c, done.right, lab.right.name);
}

async function byName(c: Context, arg: string): Promise<E.Either<number, ProjectSummary>> {
  const name = labName(arg);
  if (E.isLeft(name)) return E.left(fail(c.err, name.left, 2));
  const found = await findProject(c.api, name.right);
  if (E.isLeft(found)) return E.left(fail(c.err, failureText(found.left), failureCode(found.left)));
  if (found.right === undefined) return E.left(fail(c.err, `no lab ${terminalText(name.right)} on ${terminalText(c.api.server)}`, 1));
  return E.right(found.right);
}

async function inspect(c: Context, arg: string): Promise<number> {
  const project = await byName(c, arg);
  if (E.isLeft(project)) return project.left;
  if (project.right.status !== "opened") {
    c.out(`lab ${terminalText(project.right.name)} (project ${project.right.projectId}) is closed`);
    return 0;
  }
  c.out(`lab ${terminalText(project.right.name)} (project ${project.right.projectId}) on ${terminalText(c.api.server)}`);
  return inspectProject(c, project.right.projectId, project.right.name);
}

async function destroy(c: Context, arg: string): Promise<number> {
  const project = await byName(c, arg);
  if (E.isLeft(project)) return project.left;
  const deleted = await c.api.deleteProject(project.right.projectId);
  if (E.isLeft(deleted)) return fail(c.err, failureText(deleted.left), failureCode(deleted.left));
  c.out(`netemu lab: destroyed lab ${terminalText(project.right.name)} (project ${project.right.projectId})`);
  return 0;
}

async function save(c: Context, arg: string, schema: string | undefined, output: string | undefined): Promise<number> {
  // A file that cannot be written is said before the server is asked anything.
  const writable = output === undefined ? E.right(undefined) : checkOutput(output);
  if (E.isLeft(writable)) return fail(c.err, terminalText(describeSavedLabFilesFailure(writable.left)), 2);
  const project = await byName(c, arg);
  if (E.isLeft(project)) return project.left;
  if (project.right.status !== "opened") return fail(c.err, `lab ${terminalText(project.right.name)} is closed: open it first`, 1);
  const read = await readProject(c.api, project.right);
  if (E.isLeft(read)) return fail(c.err, failureText(read.left), failureCode(read.left));
  const lab = labOfProject(read.right);
  if (E.isLeft(lab)) return fail(c.err, `lab ${terminalText(project.right.name)} cannot be written as a lab file: ${terminalText(lab.left.what)}`, 1);
  const header = [...(schema === undefined ? [] : [`yaml-language-server: $schema=${schema}`]), `netemu lab file (docs/labs.md), saved from project ${project.right.projectId}`];
  const names = tracesNamedBy(lab.right);
  const labName = terminalText(project.right.name);
  if (output === undefined) {
    for (const line of renderLab(lab.right, header).trimEnd().split("\n")) c.out(line);
    // Standard output has no "beside": the file names traces it cannot ship (ADR 0104).
    if (names.length > 0) c.err(`netemu lab: lab ${labName} names the trace${names.length === 1 ? "" : "s"} ${names.map((n) => terminalText(n)).join(", ")}, not written here: --output FILE writes ${names.length === 1 ? "it" : "them"} to traces/ beside FILE with a traces: section, so that deploy on another netemu makes the same lab`);
    return 0;
  }
  const traces: SavedTrace[] = [];
  for (const name of names) {
    const text = await c.api.traceText(name);
    if (E.isLeft(text)) {
      const f = text.left.failure;
      if (f._tag === "Refused" && f.status === 404) return fail(c.err, `lab ${labName} names the trace ${terminalText(name)}, which ${terminalText(c.api.server)} no longer holds: nothing written (upload it again with PUT /v2/netemu/traces/${terminalText(name)}, or change the links that name it)`, 1);
      return fail(c.err, `${failureText(text.left)}; nothing written`, failureCode(text.left));
    }
    traces.push({ name, text: text.right });
  }
  const written = writeSavedLab(output, renderLab(withSavedTraces(lab.right, names), header), traces);
  if (E.isLeft(written)) return fail(c.err, terminalText(describeSavedLabFilesFailure(written.left)), 2);
  c.out(`netemu lab: saved lab ${labName} to ${terminalText(output)}${names.length === 0 ? "" : ` with ${names.length} trace${names.length === 1 ? "" : "s"} beside it (${names.map((n) => `traces/${terminalText(n)}`).join(", ")})`}`);
  return 0;
}

async function exec(c: Context, lab: string | undefined, node: string, argv: readonly string[], timeoutMs: number): Promise<number> {
  const command = argv.join(" ");
  let projects: readonly ProjectSummary[];
  if (lab !== undefined) {
    const one = await byName(c, lab);
    if (E.isLeft(one)) return one.left;
    projects = [one.right];
  } else {
    const all = await c.api.projects();
    if (E.isLeft(all)) return fail(c.err, failureText(all.left), failureCode(all.left));
    projects = all.right.filter((p) => p.status === "opened");
  }
  const matches = [];
  for (const project of projects) {
    const nodes = await c.api.nodes(project.projectId);
    if (E.isLeft(nodes)) return fail(c.err, failureText(nodes.left), failureCode(nodes.left));
    matches.push(...nodes.right.filter((n) => n.name === node).map((n) => ({ project, node: n })));
  }
  const shown = terminalText(node);
  if (matches.length === 0) return fail(c.err, `no node ${shown} in ${lab === undefined ? "any open lab" : `lab ${terminalText(lab)}`} on ${terminalText(c.api.server)}`, 1);
  if (matches.length > 1) return fail(c.err, `node ${shown} is in several labs (${matches.map((m) => terminalText(m.project.name)).join(", ")}): give --lab`, 2);
  const target = (matches[0] as (typeof matches)[number]).node;
  if (target.nodeType === LINUX_HOST_NODE_TYPE) return execInHost(c, (matches[0] as (typeof matches)[number]).project.projectId, target.nodeId, shown, argv, timeoutMs);
  if (target.nodeType !== "vpcs") return fail(c.err, `node ${shown} is a node of type ${terminalText(target.nodeType)}: exec types into VPCS consoles (and Linux hosts) only`, 1);
  const address = consoleAddress(target, new URL(c.api.server).hostname);
  if (address === undefined || target.console === null) return fail(c.err, `node ${shown} has no console (is it started? netemu lab inspect shows it)`, 1);
  const host = address.slice(0, address.lastIndexOf(":")).replace(/^\[|\]$/g, "");
  const answer = await typeIntoConsole(host, target.console, command, timeoutMs);
  if (E.isLeft(answer)) {
    const f = answer.left;
    const where = `${terminalText(f.host)}:${f.port}`;
    if (f._tag === "ConsoleUnreachable") return fail(c.err, `cannot reach ${shown}'s console at ${where}: ${terminalText(f.reason)}`, 1);
    const printed = f.printed.trim() === "" ? "" : `; it printed:\n${terminalText(f.printed.trim()).replace(/\\n/g, "\n")}`;
    return fail(c.err, f._tag === "ConsoleClosed" ? `${shown}'s console at ${where} closed${printed}` : `no answer from ${shown}'s console at ${where} within ${timeoutMs / 1000} s (waiting for ${terminalText(f.waitingFor)})${printed}`, 1);
  }
  for (const line of answer.right.split("\n")) c.out(terminalText(line));
  return 0;
}

/**
 * A command run inside a Linux host (ADR 0087), as its own argv (no shell): its output printed as it
 * came, stdout to stdout and stderr to stderr, and its exit code netemu lab's own (Mininet's `h1 cmd`).
 */
async function execInHost(c: Context, projectId: string, nodeId: string, shown: string, argv: readonly string[], timeoutMs: number): Promise<number> {
  const ran = await c.api.exec(projectId, nodeId, argv, Math.max(1, Math.ceil(timeoutMs / 1000)));
  if (E.isLeft(ran)) return fail(c.err, failureText(ran.left), failureCode(ran.left));
  const r = ran.right;
  const lines = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
  // The program's own text: its tabs and backslashes as they are (iperf3 -J stays JSON), only what could drive the terminal escaped.
  const shownLine = (line: string) => line.split("\t").map((part) => terminalText(part, "kept")).join("\t");
  for (const line of lines(r.stdout)) c.out(shownLine(line));
  for (const line of lines(r.stderr)) c.err(shownLine(line));
  if (r.truncated) c.err(`(${shown}'s output was cut: netemu keeps at most 1 MiB of it)`);
  if (r.timedOut) return fail(c.err, `${terminalText(argv[0] ?? "")} in ${shown} did not end within ${timeoutMs / 1000} s: it was killed (--timeout sets the bound)`, 1);
  if (r.exitCode === null) return fail(c.err, `${terminalText(argv[0] ?? "")} in ${shown} was ended by ${r.signal ?? "a signal"}`, 1);
  return r.exitCode;
}

export async function runLabCommand(argv: readonly string[], env: NodeJS.ProcessEnv, out: Out, err: Out, makeApi: LabApiFactory = (server) => new RouteLabApi(server)): Promise<number> {
  const [action, ...rest] = argv;
  if (action === undefined || action === "--help" || action === "-h" || action === "help") {
    out(LAB_HELP.trimEnd());
    return action === undefined ? 2 : 0;
  }
  // exec's command follows `--` and is passed on whole, never read as options.
  const dash = rest.indexOf("--");
  const own = action === "exec" && dash >= 0 ? rest.slice(0, dash) : rest;
  const command = action === "exec" && dash >= 0 ? rest.slice(dash + 1) : [];
  let parsed;
  try {
    parsed = parseArgs({
      args: [...own],
      options: {
        server: { type: "string" },
        user: { type: "string" },
        password: { type: "string" },
        reconfigure: { type: "boolean" },
        schema: { type: "string" },
        output: { type: "string", short: "o" },
        lab: { type: "string" },
        timeout: { type: "string" },
        wait: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (e) {
    return fail(err, `${terminalText((e as Error).message)} (netemu lab --help)`, 2);
  }
  const o = parsed.values;
  if (o.help === true) {
    out(LAB_HELP.trimEnd());
    return 0;
  }
  const server = (o.server ?? env["NETEMU_SERVER"] ?? "http://127.0.0.1:3080").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+$/.test(server)) return fail(err, `--server ${terminalText(server)}: give the server's address, e.g. http://127.0.0.1:3080`, 2);
  const user = o.user ?? env["NETEMU_USER"];
  const target: RouteServer = { url: server, timeoutMs: 60_000, ...(user === undefined ? {} : { credentials: { user, password: o.password ?? env["NETEMU_PASSWORD"] ?? "" } }) };
  const c: Context = { api: makeApi(target), out, err };
  const positionals = parsed.positionals;
  const one = (what: string): string | undefined => (positionals.length === 1 ? positionals[0] : (fail(err, `${action} takes one ${what} (netemu lab --help)`, 2), undefined));
  const only = (allowed: readonly string[]): boolean => {
    const given = Object.keys(o).filter((k) => !["server", "user", "password", ...allowed].includes(k));
    if (given.length > 0) fail(err, `--${given[0]} is not an option of ${action} (netemu lab --help)`, 2);
    return given.length === 0;
  };
  switch (action) {
    case "deploy": {
      if (!only(["reconfigure", "wait"])) return 2;
      const file = one("lab file");
      if (file === undefined) return 2;
      const wait = o.wait === undefined ? 0 : Number(o.wait);
      if (!Number.isFinite(wait) || wait < 0) return fail(err, `--wait ${terminalText(o.wait ?? "")}: give a number of seconds`, 2);
      return deploy(c, file, o.reconfigure === true, wait * 1000);
    }
    case "inspect": {
      if (!only([])) return 2;
      const arg = one("lab name or file");
      return arg === undefined ? 2 : inspect(c, arg);
    }
    case "destroy": {
      if (!only([])) return 2;
      const arg = one("lab name or file");
      return arg === undefined ? 2 : destroy(c, arg);
    }
    case "save": {
      if (!only(["schema", "output"])) return 2;
      const arg = one("lab name");
      return arg === undefined ? 2 : save(c, arg, o.schema, o.output);
    }
    case "exec": {
      if (!only(["lab", "timeout"])) return 2;
      const node = one("node");
      if (node === undefined) return 2;
      if (dash < 0 || command.length === 0) return fail(err, "exec NODE -- COMMAND: give the command after -- (netemu lab --help)", 2);
      const seconds = o.timeout === undefined ? 60 : Number(o.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) return fail(err, `--timeout ${terminalText(o.timeout ?? "")}: give a number of seconds`, 2);
      return exec(c, o.lab, node, command, seconds * 1000);
    }
    default:
      return fail(err, `unknown lab command "${terminalText(action)}" (netemu lab --help)`, 2);
  }
}

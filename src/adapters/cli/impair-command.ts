/**
 * `netemu impair`: netemu's impairments on a switch or hub port a GNS3 controller placed on a running netemu,
 * by the names the GNS3 GUI shows (ADR 0067). It calls the impairment routes through their route values
 * (route-client.ts, ADR 0080), so what it sends and reads is what the server declares.
 *
 *   netemu impair --project P --node Switch1 --port Ethernet2 --out delay=50 --out bandwidth=1000
 *   netemu impair --project P --node Switch1 --port Ethernet2 --out delay=500us --in packet_loss=0.5% --out bandwidth=10mbit
 *   netemu impair --project P --node Switch1 --port Ethernet2 --schedule-out flap.yaml
 *   netemu impair list [--project P] [--node N] [--port PORT]
 *   netemu impair clear [--project P] [--node N] [--port PORT]
 *
 * Exit status: 0 done, 1 the server refused (its message printed), 2 bad arguments, or no netemu answered.
 */
import { parseArgs } from "node:util";
import * as E from "fp-ts/lib/Either.js";
import { terminalJson, terminalText } from "./terminal-text.js";
import { callRoute, describeFailure, type RouteCallFailure, type RouteOutput, type RouteServer } from "./route-client.js";
import { IMPAIRMENT_ROUTES } from "../http/server/impairment-routes.js";
import { DEFAULT_SERVER_URL } from "../shared/serve-address.js";
import { readScheduleSpec, scheduleSummary } from "./schedule-spec.js";

const HELP = `usage: netemu impair [--server URL] --project P --node NODE --port PORT [--in KIND=V[,V]]... [--out KIND=V[,V]]...
                     [--schedule-in FILE|JSON] [--schedule-out FILE|JSON]
       netemu impair list [--server URL] [--project P] [--node NODE] [--port PORT] [--json]
       netemu impair clear [--server URL] [--project P] [--node NODE] [--port PORT]

Sets, lists or clears netemu's impairments on a switch or hub port that GNS3 placed on the netemu at --server,
named as the GNS3 GUI shows them (project, node and port names; ids and port numbers work too). They hold while
GNS3 deletes and re-creates the port's link, and while the project is closed and opened again. \`clear\` prints
what it removed, each line beginning with "removed"; \`list\` what holds.

  --in KIND=V,...    an impairment on the frames coming from the port's peer (the device GNS3 linked to it)
  --out KIND=V,...   an impairment on the frames the port sends to its peer
                     KIND is one of netemu's filter kinds: delay=LATENCY[,JITTER] (ms), bandwidth=KBITS[,QUEUE_MS],
                     packet_loss=P, burst_loss=P,R[,BAD,GOOD], duplicate=P, reorder=P, corrupt=P, frequency_drop=N,
                     delay_distribution=normal, bpf=EXPRESSION (drops what matches), match=EXPRESSION (scopes the others)
                     ... (README, "Filters"). Repeat the option for several kinds; a direction not given keeps what it had.
                     Chances (P) take 0.01 % (packet_loss=0.5 or 0.5%), times 1 µs (delay=0.25 or 250us, 1.5ms, 2s),
                     rates 1 bit/s with tc's units (bandwidth=10mbit, 512kbit; kbps, mbps are BYTES/s as in tc).
  --clear-in, --clear-out   remove that direction's impairments (the other keeps its own)
  --schedule-in SPEC, --schedule-out SPEC
                     that direction's impairments as a function of time (docs/recipes/flapping-link.md): a YAML or
                     JSON file, or the JSON itself, e.g. '{"period": 10, "windows": [{"at": 0, "for": 2,
                     "filters": {"frequency_drop": [-1]}}]}' (down 2 s every 10 s), or steps:
                     '{"steps": [{"at": 0, "filters": {"delay": [20]}}, {"at": 30, "filters": {"packet_loss": [5]}}]}'.
                     Replaces that direction's fixed impairments; --in/--out or --clear-in/--clear-out end it.
  --server URL       netemu's address (NETEMU_SERVER; default ${DEFAULT_SERVER_URL}, where \`netemu serve\` listens unless given --port).
                     Beside a GNS3 controller, give netemu's own address: a GNS3 controller on this machine listens there too,
                     and is not netemu (this command says so when it meets one).
  --user NAME        for a netemu run with --auth (NETEMU_USER); the password from NETEMU_PASSWORD or --password
  --json             list as JSON, as the route answers
  --help             print this help

Exit status: 0 done, 1 the server refused (its message is printed), 2 bad arguments, or no netemu answered at --server.
`;

/** The kinds whose values are text (pcap-filter expressions, a distribution name): never split at commas. */
const TEXT_KINDS = new Set(["bpf", "match", "queue_discipline"]);
/** The kinds whose first value names an uploaded trace (ADR 0103): a name of digits stays a name. */
const TRACE_KINDS = new Set(["capacity_trace", "delay_trace", "loss_trace"]);

type Out = (line: string) => void;

/** An impairment as the routes answer it (the route value's answer codec). */
type Impairment = RouteOutput<typeof IMPAIRMENT_ROUTES.set>;

/** `KIND=V,V` options into one filters object: numbers where they read as numbers, text kinds whole and repeatable. */
function filtersOf(options: readonly string[], flag: string): { filters: Record<string, unknown[]> } | { error: string } {
  const filters: Record<string, unknown[]> = {};
  for (const option of options) {
    const eq = option.indexOf("=");
    if (eq <= 0) return { error: `${flag} ${option}: give KIND=VALUE, e.g. ${flag} delay=50` };
    const kind = option.slice(0, eq).trim();
    const value = option.slice(eq + 1);
    if (TEXT_KINDS.has(kind)) filters[kind] = [...(filters[kind] ?? []), value];
    else filters[kind] = value.split(",").map((v, i) => (/^\s*-?\d+(\.\d+)?\s*$/.test(v) && !(i === 0 && TRACE_KINDS.has(kind)) ? Number(v) : v.trim()));
  }
  return { filters };
}

function render(filters: Readonly<Record<string, unknown>>): string {
  const kinds = Object.entries(filters).map(([kind, values]) => [kind, Array.isArray(values) ? values : [values]] as const);
  const value = (kind: string, v: unknown): string => (typeof v === "string" && TEXT_KINDS.has(kind) ? `"${terminalText(v).replace(/"/g, '\\"')}"` : terminalText(String(v)));
  return kinds.length === 0 ? "-" : kinds.map(([kind, values]) => `${terminalText(kind)}=${values.map((v) => value(kind, v)).join(",")}`).join(" ");
}

/** One impairment a line, tab-separated: every name escaped, so no name can act on the terminal or break the columns. */
// A removed one is printed with "removed" in a first column, so it never reads as one that holds.
function line(i: Impairment): string {
  const direction = (filters: Readonly<Record<string, unknown>>, now: Impairment["schedule_in_now"]) => (now === undefined ? render(filters) : scheduleSummary(now, render));
  return `${terminalText(i.project_name)}\t${terminalText(i.node_name)}\t${terminalText(i.port_name)}\tin: ${direction(i.filters_in, i.schedule_in_now)}\tout: ${direction(i.filters_out, i.schedule_out_now)}`;
}

export async function runImpairCommand(argv: readonly string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const action = argv[0] === "list" || argv[0] === "clear" ? argv[0] : "set";
  let parsed;
  try {
    parsed = parseArgs({
      args: action === "set" ? [...argv] : argv.slice(1),
      options: {
        server: { type: "string" },
        user: { type: "string" },
        password: { type: "string" },
        project: { type: "string" },
        node: { type: "string" },
        port: { type: "string" },
        in: { type: "string", multiple: true },
        out: { type: "string", multiple: true },
        "clear-in": { type: "boolean" },
        "clear-out": { type: "boolean" },
        "schedule-in": { type: "string" },
        "schedule-out": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    err(`netemu impair: ${terminalText((e as Error).message)}`);
    err(HELP.split("\n").slice(0, 3).join("\n"));
    return 2;
  }
  const o = parsed.values;
  if (o.help === true) {
    out(HELP.trimEnd());
    return 0;
  }
  const url = (o.server ?? env["NETEMU_SERVER"] ?? DEFAULT_SERVER_URL).replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+$/.test(url)) {
    err(`netemu impair: --server ${terminalText(url)}: give the server's address, e.g. ${DEFAULT_SERVER_URL}`);
    return 2;
  }
  const user = o.user ?? env["NETEMU_USER"];
  const server: RouteServer = user === undefined ? { url } : { url, credentials: { user, password: o.password ?? env["NETEMU_PASSWORD"] ?? "" } };
  const selection = { ...(o.project === undefined ? {} : { project: o.project }), ...(o.node === undefined ? {} : { node: o.node }), ...(o.port === undefined ? {} : { port: o.port }) };

  if (action === "set") {
    if (o.project === undefined || o.node === undefined || o.port === undefined) {
      const flag = o.project === undefined ? "--project" : o.node === undefined ? "--node" : "--port";
      err(`netemu impair: ${flag} is required to set an impairment (netemu impair --help)`);
      return 2;
    }
    if (o.in === undefined && o.out === undefined && o["clear-in"] !== true && o["clear-out"] !== true && o["schedule-in"] === undefined && o["schedule-out"] === undefined) {
      err("netemu impair: give at least one of --in, --out, --clear-in, --clear-out, --schedule-in, --schedule-out (netemu impair --help)");
      return 2;
    }
    const given: { filters_in?: Record<string, unknown[]>; filters_out?: Record<string, unknown[]>; schedule_in?: Record<string, unknown>; schedule_out?: Record<string, unknown> } = {};
    for (const [flag, key, spec] of [["--schedule-in", "schedule_in", o["schedule-in"]], ["--schedule-out", "schedule_out", o["schedule-out"]]] as const) {
      if (spec === undefined) continue;
      const schedule = readScheduleSpec(spec);
      if ("error" in schedule) {
        err(`netemu impair: ${flag} ${terminalText(schedule.error)}`);
        return 2;
      }
      given[key] = schedule.schedule;
    }
    for (const [flag, key, values, clear] of [["--in", "filters_in", o.in, o["clear-in"]], ["--out", "filters_out", o.out, o["clear-out"]]] as const) {
      if (values !== undefined && clear === true) {
        err(`netemu impair: ${flag} and --clear-${flag.slice(2)} contradict each other`);
        return 2;
      }
      if (clear === true) given[key] = {};
      if (values === undefined) continue;
      const f = filtersOf(values, flag);
      if ("error" in f) {
        err(`netemu impair: ${terminalText(f.error)}`);
        return 2;
      }
      given[key] = f.filters;
    }
    const set = await callRoute(IMPAIRMENT_ROUTES.set, { body: { project: o.project, node: o.node, port: o.port, ...given } }, server);
    if (E.isLeft(set)) return failed(set.left, err);
    out(o.json === true ? terminalJson(set.right) : line(set.right));
    return 0;
  }

  const answered = await callRoute(action === "list" ? IMPAIRMENT_ROUTES.list : IMPAIRMENT_ROUTES.clear, { body: selection }, server);
  if (E.isLeft(answered)) return failed(answered.left, err);
  const list = answered.right;
  if (o.json === true) {
    out(terminalJson(list));
    return 0;
  }
  if (action === "clear") {
    out(`cleared ${list.length} impairment${list.length === 1 ? "" : "s"}`);
    for (const i of list) out(`removed\t${line(i)}`);
  } else for (const i of list) out(line(i));
  return 0;
}

/** What went wrong, said as the server said it, with what to do when no netemu answered; the exit status. */
function failed(failure: RouteCallFailure, err: Out): number {
  switch (failure._tag) {
    case "Refused":
    case "CredentialsRefused":
      err(`netemu impair: ${terminalText(describeFailure(failure))}`);
      return 1;
    case "NotServed": {
      const software = failure.software === undefined ? "" : ` it says Server: ${failure.software}`;
      err(`netemu impair: ${terminalText(`${failure.server} answered ${failure.status} for ${failure.method} ${failure.path}: this is not a netemu server (a GNS3 controller?${software}); give netemu's address with --server URL or NETEMU_SERVER`)}`);
      return 2;
    }
    case "NoAnswer":
      err(`netemu impair: ${terminalText(describeFailure(failure))}; is netemu running there? give its address with --server URL or NETEMU_SERVER`);
      return 2;
    case "AnswerUnreadable":
      err(`netemu impair: ${terminalText(describeFailure(failure))}; is it the same netemu version as this command?`);
      return 2;
  }
}

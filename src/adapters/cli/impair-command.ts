/**
 * `netemu impair`: netemu's impairments on a switch or hub port a GNS3 controller placed on a running netemu,
 * by the names the GNS3 GUI shows (ADR 0067). It is a client of `/v2/netemu/impairments`.
 *
 *   netemu impair --project P --node Switch1 --port Ethernet2 --out delay=50 --out bandwidth=1000
 *   netemu impair list [--project P] [--node N] [--port PORT]
 *   netemu impair clear [--project P] [--node N] [--port PORT]
 *
 * Exit status: 0 done, 1 the server refused (its message printed), 2 bad arguments or no server.
 */
import { parseArgs } from "node:util";
import { terminalJson, terminalText } from "./terminal-text.js";

const HELP = `usage: netemu impair [--server URL] --project P --node NODE --port PORT [--in KIND=V[,V]]... [--out KIND=V[,V]]...
       netemu impair list [--server URL] [--project P] [--node NODE] [--port PORT] [--json]
       netemu impair clear [--server URL] [--project P] [--node NODE] [--port PORT]

Sets, lists or clears netemu's impairments on a switch or hub port that GNS3 placed on the netemu at --server,
named as the GNS3 GUI shows them (project, node and port names; ids and port numbers work too). They hold while
GNS3 deletes and re-creates the port's link, and while the project is closed and opened again.

  --in KIND=V,...    an impairment on the frames coming from the port's peer (the device GNS3 linked to it)
  --out KIND=V,...   an impairment on the frames the port sends to its peer
                     KIND is one of netemu's filter kinds: delay=LATENCY[,JITTER] (ms), bandwidth=KBITS[,QUEUE_MS],
                     packet_loss=P, burst_loss=P,R[,BAD,GOOD], duplicate=P, reorder=P, corrupt=P, frequency_drop=N,
                     delay_distribution=normal, bpf=EXPRESSION (drops what matches), match=EXPRESSION (scopes the others)
                     ... (README, "Filters"). Repeat the option for several kinds; a direction not given keeps what it had.
  --clear-in, --clear-out   remove that direction's impairments (the other keeps its own)
  --server URL       netemu's address (NETEMU_SERVER, default http://127.0.0.1:3080)
  --user NAME        for a netemu run with --auth (NETEMU_USER); the password from NETEMU_PASSWORD or --password
  --json             list as JSON, as the route answers
  --help             print this help

Exit status: 0 done, 1 the server refused (its message is printed), 2 bad arguments or no answer from the server.
`;

/** The kinds whose values are text (pcap-filter expressions, a distribution name): never split at commas. */
const TEXT_KINDS = new Set(["bpf", "match"]);

type Out = (line: string) => void;

interface Impairment {
  readonly project_name: string;
  readonly node_name: string;
  readonly port_name: string;
  readonly filters_in: Record<string, unknown[]>;
  readonly filters_out: Record<string, unknown[]>;
}

/** `KIND=V,V` options into one filters object: numbers where they read as numbers, text kinds whole and repeatable. */
function filtersOf(options: readonly string[], flag: string): { filters: Record<string, unknown[]> } | { error: string } {
  const filters: Record<string, unknown[]> = {};
  for (const option of options) {
    const eq = option.indexOf("=");
    if (eq <= 0) return { error: `${flag} ${option}: give KIND=VALUE, e.g. ${flag} delay=50` };
    const kind = option.slice(0, eq).trim();
    const value = option.slice(eq + 1);
    if (TEXT_KINDS.has(kind)) filters[kind] = [...(filters[kind] ?? []), value];
    else filters[kind] = value.split(",").map((v) => (/^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v.trim()));
  }
  return { filters };
}

function render(filters: Record<string, unknown[]>): string {
  const kinds = Object.entries(filters);
  const value = (kind: string, v: unknown): string => (typeof v === "string" && TEXT_KINDS.has(kind) ? `"${terminalText(v).replace(/"/g, '\\"')}"` : terminalText(String(v)));
  return kinds.length === 0 ? "-" : kinds.map(([kind, values]) => `${terminalText(kind)}=${values.map((v) => value(kind, v)).join(",")}`).join(" ");
}

/** One impairment a line, tab-separated: every name escaped, so no name can act on the terminal or break the columns. */
function line(i: Impairment): string {
  return `${terminalText(i.project_name)}\t${terminalText(i.node_name)}\t${terminalText(i.port_name)}\tin: ${render(i.filters_in)}\tout: ${render(i.filters_out)}`;
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
  const server = (o.server ?? env["NETEMU_SERVER"] ?? "http://127.0.0.1:3080").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+$/.test(server)) {
    err(`netemu impair: --server ${terminalText(server)}: give the server's address, e.g. http://127.0.0.1:3080`);
    return 2;
  }
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  const user = o.user ?? env["NETEMU_USER"];
  if (user !== undefined) headers["Authorization"] = `Basic ${Buffer.from(`${user}:${o.password ?? env["NETEMU_PASSWORD"] ?? ""}`).toString("base64")}`;
  const selection = { ...(o.project === undefined ? {} : { project: o.project }), ...(o.node === undefined ? {} : { node: o.node }), ...(o.port === undefined ? {} : { port: o.port }) };

  let method: string;
  let body: Record<string, unknown>;
  if (action === "set") {
    for (const [flag, value] of [["--project", o.project], ["--node", o.node], ["--port", o.port]] as const) {
      if (value === undefined) {
        err(`netemu impair: ${flag} is required to set an impairment (netemu impair --help)`);
        return 2;
      }
    }
    if (o.in === undefined && o.out === undefined && o["clear-in"] !== true && o["clear-out"] !== true) {
      err("netemu impair: give at least one of --in, --out, --clear-in, --clear-out (netemu impair --help)");
      return 2;
    }
    const given: Record<string, unknown> = {};
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
    method = "PUT";
    body = { ...selection, ...given };
  } else {
    method = action === "list" ? "GET" : "DELETE";
    body = selection;
  }

  const query = new URLSearchParams(selection as Record<string, string>).toString();
  const url = `${server}/v2/netemu/impairments${method === "PUT" || query === "" ? "" : `?${query}`}`;
  let response: Response;
  try {
    response = await fetch(url, { method, headers, ...(method === "PUT" ? { body: JSON.stringify(body) } : {}), signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
    err(`netemu impair: no answer from ${terminalText(server)}: ${terminalText(cause)}`);
    return 2;
  }
  const text = await response.text();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (!response.ok) {
    const message = typeof (answer as { message?: unknown } | undefined)?.message === "string" ? (answer as { message: string }).message : text || response.statusText;
    err(`netemu impair: ${terminalText(server)} answered ${response.status}: ${terminalText(message)}`);
    return 1;
  }
  if (o.json === true) {
    out(terminalJson(answer));
    return 0;
  }
  if (action === "set") out(line(answer as Impairment));
  else {
    const list = answer as Impairment[];
    if (action === "clear") out(`cleared ${list.length} impairment${list.length === 1 ? "" : "s"}`);
    for (const i of list) out(line(i));
  }
  return 0;
}

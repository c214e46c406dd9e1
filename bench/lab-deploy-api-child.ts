/**
 * The call-by-call baseline of bench/lab-deploy.bench.ts, as a script would build a topology with fetch:
 * a fresh node process (as `netemu lab` is one), one call at a time: POST the project, POST each node, POST
 * each link, PUT each impaired link's filters, POST nodes/start. Prints {"projectId", "calls"} as JSON.
 *
 *   node build/bench/lab-deploy-api-child.js URL TOPOLOGY.json
 */
import { readFileSync } from "node:fs";

type Kind = "ethernet_switch" | "ethernet_hub" | "vpcs";
interface End {
  readonly node: string;
  readonly port: number;
}
type Filters = Record<string, number[]>;
interface Topology {
  readonly name: string;
  readonly ports: number;
  readonly nodes: readonly { readonly name: string; readonly kind: Kind; readonly address?: string }[];
  readonly links: readonly { readonly a: End; readonly b: End; readonly filters?: Filters; readonly aToB?: Filters; readonly bToA?: Filters }[];
}

const [base, file] = process.argv.slice(2) as [string, string];
const t = JSON.parse(readFileSync(file, "utf8")) as Topology;

let calls = 0;
async function call(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  calls += 1;
  const response = await fetch(url, { method, ...(body === undefined ? {} : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
}

// What the lab gives a PC: its address line as the startup script (gns3-nodes.ts, vpcsStartupScript).
const propertiesOf = (n: Topology["nodes"][number]): Record<string, unknown> =>
  n.kind === "vpcs" ? { startup_script: n.address === undefined ? "" : `ip ${n.address}\n` } : { ports_mapping: portsMapping(n.kind) };
const portsMapping = (kind: Kind): Record<string, unknown>[] =>
  Array.from({ length: t.ports }, (_, p) => (kind === "ethernet_switch" ? { name: `Ethernet${p}`, port_number: p, type: "access", vlan: 1 } : { name: `Ethernet${p}`, port_number: p }));

const project = String((await call("POST", `${base}/v2/projects`, { name: t.name }))["project_id"]);
const p = `${base}/v2/projects/${project}`;
const ids = new Map<string, string>();
for (const [i, n] of t.nodes.entries()) {
  // The same body and place as the lab's deploy gives the node (its grid of six columns).
  const made = await call("POST", `${p}/nodes`, { name: n.name, node_type: n.kind, compute_id: "local", properties: propertiesOf(n), x: (i % 6) * 150 - 375, y: Math.floor(i / 6) * 150 - 200 });
  ids.set(n.name, String(made["node_id"]));
}
const end = (e: End, filters?: Filters) => ({ node_id: ids.get(e.node), adapter_number: 0, port_number: e.port, ...(filters === undefined ? {} : { filters }) });
for (const l of t.links) {
  const made = await call("POST", `${p}/links`, { nodes: [end(l.a), end(l.b)] });
  if (l.filters !== undefined || l.aToB !== undefined || l.bToA !== undefined) {
    await call("PUT", `${p}/links/${String(made["link_id"])}`, { nodes: [end(l.a, l.aToB ?? {}), end(l.b, l.bToA ?? {})], filters: l.filters ?? {} });
  }
}
await call("POST", `${p}/nodes/start`, {});
process.stdout.write(`${JSON.stringify({ projectId: project, calls })}\n`);

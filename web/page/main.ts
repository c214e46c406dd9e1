import cytoscape from "cytoscape";
import uPlot from "uplot";
import { api, type ControllerLink, type ControllerLinkEnd, type Impairment, type Lab, type LabCounters, type LabNode, type PortCounters, Refused } from "./api.js";
import { KIND_FIELDS, textOf, valuesOf } from "./impairments.js";
import { layout } from "./layout.js";
import { directionFields, scheduleNowText, scheduleText } from "./schedules.js";
import { humanRate, humanWait, type PortRates, type QueueFigures, portKey, ratesBetween } from "./rates.js";
import { withRemotePeers } from "./remote.js";

/** How often the counters are read (one request a lab, whatever its size) and the topology. */
const COUNTERS_EVERY_MS = 1000;
const TOPOLOGY_EVERY_MS = 5000;
/** Samples kept for a link's chart: two minutes at one a second. */
const HISTORY = 120;
/** Above this many links, edges carry no rate label (the width still shows it). */
const LABELLED_LINKS = 200;
const GNS3_KINDS = new Set(["delay", "packet_loss", "frequency_drop", "corrupt", "bpf"]);

type Selection = { readonly kind: "node"; readonly id: string } | { readonly kind: "link"; readonly id: string } | undefined;

interface State {
  labs: Lab[];
  lab: Lab | undefined;
  nodes: Map<string, LabNode>;
  counters: LabCounters | undefined;
  ports: Map<string, PortCounters>;
  rates: Map<string, PortRates>;
  selection: Selection;
  /** bits/s of each direction of the selected link, oldest first. */
  history: { t: number[]; ab: number[]; ba: number[] };
  topologyKey: string;
}

const state: State = { labs: [], lab: undefined, nodes: new Map(), counters: undefined, ports: new Map(), rates: new Map(), selection: undefined, history: { t: [], ab: [], ba: [] }, topologyKey: "" };

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const labSelect = $<HTMLSelectElement>("lab");
const graphBox = $<HTMLDivElement>("graph");
const details = $<HTMLElement>("details");
const status = $<HTMLElement>("status");
const nodesBody = $<HTMLTableSectionElement>("nodes-body");
const linksBody = $<HTMLTableSectionElement>("links-body");

function element<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<Record<string, string>> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) if (v !== undefined) (k === "text" ? (e.textContent = v) : e.setAttribute(k, v));
  e.append(...children);
  return e;
}

function say(message: string): void {
  status.textContent = message;
}

const linkId = (l: Lab["links"][number]): string => `${l.a.node_id}:${l.a.port_number}~${l.b.node_id}:${l.b.port_number}`;
const portName = (nodeId: string, port: number): string => state.nodes.get(nodeId)?.ports.find((p) => p.port_number === port)?.name ?? `port ${port}`;
// A peer elsewhere (ADR 0098) has no port names: its end is its address alone.
const endName = (e: { node_id: string; port_number: number }): string => [state.nodes.get(e.node_id)?.name ?? e.node_id, portName(e.node_id, e.port_number)].filter((s) => s !== "").join(" ");

/** A link's rate each way, from its ends' counters: what one end sends, or else what the other receives. */
function linkRates(l: Lab["links"][number]): { ab: PortRates | undefined; ba: PortRates | undefined; abBits: number; baBits: number; abFrames: number; baFrames: number } {
  const a = state.rates.get(portKey(l.a.node_id, l.a.port_number));
  const b = state.rates.get(portKey(l.b.node_id, l.b.port_number));
  return {
    ab: a,
    ba: b,
    abBits: a?.bitsOutPerSecond ?? b?.bitsInPerSecond ?? 0,
    baBits: b?.bitsOutPerSecond ?? a?.bitsInPerSecond ?? 0,
    abFrames: a?.framesOutPerSecond ?? b?.framesInPerSecond ?? 0,
    baFrames: b?.framesOutPerSecond ?? a?.framesInPerSecond ?? 0,
  };
}

// ---------------------------------------------------------------- the graph

const SHAPES: Record<string, string> = { ethernet_switch: "round-rectangle", ethernet_hub: "hexagon", vpcs: "ellipse", netemu_host: "ellipse", cloud: "barrel", remote: "diamond" };
const COLOURS: Record<string, string> = { ethernet_switch: "#1f6feb", ethernet_hub: "#8250df", vpcs: "#2da44e", netemu_host: "#bf8700", cloud: "#57606a", remote: "#ffffff" };

const cy = cytoscape({
  container: graphBox,
  elements: [],
  minZoom: 0.02,
  maxZoom: 4,
  // For big labs: the viewport moves as a picture, edges hidden while it moves.
  textureOnViewport: true,
  hideEdgesOnViewport: true,
  style: [
    // Labels too small to read are not drawn: a 1,000-node lab seen whole draws shapes only.
    { selector: "node", style: { label: "data(label)", "font-size": 11, "min-zoomed-font-size": 7, "text-valign": "bottom", "text-margin-y": 4, shape: "data(shape)" as never, "background-color": "data(colour)", width: 28, height: 28 } },
    { selector: "node[status != 'started']", style: { "background-opacity": 0.35 } },
    { selector: "edge", style: { width: "data(width)", "line-color": "#8c959f", "curve-style": "straight", label: "data(label)", "font-size": 9, "min-zoomed-font-size": 7, "text-background-color": "#ffffff", "text-background-opacity": 0.8, "text-background-padding": "1px" } },
    { selector: "edge[?dropping]", style: { "line-color": "#cf222e" } },
    // A peer elsewhere (ADR 0098): hollow, dashed, and so is the link to it.
    { selector: "node[kind = 'remote']", style: { "border-width": 2, "border-style": "dashed", "border-color": "#57606a" } },
    { selector: "edge[?remote]", style: { "line-style": "dashed" } },
    { selector: ":selected", style: { "border-width": 3, "border-color": "#d4a72c", "line-color": "#d4a72c" } },
  ],
});
cy.on("tap", "node", (e) => select({ kind: "node", id: e.target.id() as string }));
cy.on("tap", "edge", (e) => select({ kind: "link", id: e.target.id() as string }));

function drawTopology(lab: Lab): void {
  const started = performance.now();
  const places = layout(lab);
  cy.batch(() => {
    cy.elements().remove();
    cy.add(lab.nodes.map((n) => ({ group: "nodes" as const, data: { id: n.node_id, label: n.name, kind: n.node_type, shape: SHAPES[n.node_type] ?? "ellipse", colour: COLOURS[n.node_type] ?? "#57606a", status: n.status }, position: places.get(n.node_id) ?? { x: 0, y: 0 } })));
    cy.add(lab.links.map((l) => ({ group: "edges" as const, data: { id: linkId(l), source: l.a.node_id, target: l.b.node_id, width: 1.5, label: "", dropping: false, remote: isRemote(l.b.node_id) } })));
  });
  // The box's size as the stylesheet made it, then the whole lab in view, never blown up past 1.2.
  cy.resize();
  cy.fit(undefined, 40);
  if (cy.zoom() > 1.2) {
    cy.zoom(1.2);
    cy.center();
  }
  const elsewhere = lab.nodes.filter((n) => n.node_type === "remote").length;
  graphBox.setAttribute("aria-label", `Topology of lab ${lab.name}: ${lab.nodes.length - elsewhere} nodes${elsewhere > 0 ? ` (and ${elsewhere} peers elsewhere)` : ""} and ${lab.links.length} links. The tables below list them, with buttons to select each.`);
  graphBox.dataset["drawnMs"] = (performance.now() - started).toFixed(1);
}

function paintRates(lab: Lab): void {
  const labelled = lab.links.length <= LABELLED_LINKS;
  cy.batch(() => {
    for (const l of lab.links) {
      const edge = cy.getElementById(linkId(l));
      if (edge.empty()) continue;
      const r = linkRates(l);
      const bits = r.abBits + r.baBits;
      edge.data("width", 1.5 + Math.min(8, Math.log10(1 + bits) * 1.2));
      edge.data("label", labelled && bits > 0 ? humanRate(bits, "b/s") : "");
      edge.data("dropping", droppedSince(l.a) + droppedSince(l.b) > 0);
    }
  });
}

// -------------------------------------------------------------- drops

let previousDrops = new Map<string, number>();
let latestDrops = new Map<string, number>();
const totalDrops = (p: PortCounters): number => Object.values(p.drops).reduce((s, n) => s + n, 0);
const droppedSince = (e: { node_id: string; port_number: number }): number => {
  const k = portKey(e.node_id, e.port_number);
  return (latestDrops.get(k) ?? 0) - (previousDrops.get(k) ?? latestDrops.get(k) ?? 0);
};

// ------------------------------------------------------------- the tables

function fillTables(lab: Lab): void {
  nodesBody.replaceChildren(
    ...lab.nodes.map((n) => {
      const show = element("button", { type: "button", "aria-label": `Select node ${n.name}`, text: n.name });
      show.addEventListener("click", () => select({ kind: "node", id: n.node_id }, true));
      return element("tr", { "data-node": n.node_id }, element("th", { scope: "row" }, show), element("td", { text: n.node_type }), element("td", { text: n.node_type === "remote" ? "outside netemu" : n.status }), element("td", { text: String(n.ports.filter((p) => p.connected).length) }));
    }),
  );
  linksBody.replaceChildren(
    ...lab.links.map((l) => {
      const name = `${endName(l.a)} — ${endName(l.b)}`;
      const show = element("button", { type: "button", "aria-label": `Select link ${name}`, text: name });
      show.addEventListener("click", () => select({ kind: "link", id: linkId(l) }, true));
      return element("tr", { "data-link": linkId(l) }, element("th", { scope: "row" }, show), element("td", { class: "rate ab" }), element("td", { class: "rate ba" }));
    }),
  );
}

function paintTableRates(lab: Lab): void {
  const rows = linksBody.rows;
  lab.links.forEach((l, i) => {
    const row = rows[i];
    if (row === undefined) return;
    const r = linkRates(l);
    row.cells[1]!.textContent = `${humanRate(r.abFrames, "f/s")}, ${humanRate(r.abBits, "b/s")}`;
    row.cells[2]!.textContent = `${humanRate(r.baFrames, "f/s")}, ${humanRate(r.baBits, "b/s")}`;
  });
}

// ------------------------------------------------------------ the details

function select(selection: Selection, centre = false): void {
  state.selection = selection;
  state.history = { t: [], ab: [], ba: [] };
  cy.elements().unselect();
  if (selection !== undefined) {
    const el = cy.getElementById(selection.id);
    el.select();
    if (centre && !el.empty()) cy.animate({ center: { eles: el }, duration: 200 });
  }
  renderDetails();
}

let chart: uPlot | undefined;

function renderDetails(): void {
  chart?.destroy();
  chart = undefined;
  const lab = state.lab;
  const sel = state.selection;
  if (lab === undefined || sel === undefined) {
    details.replaceChildren(element("h2", { text: "Selection" }), element("p", { text: "Select a node or a link in the graph or in the tables below." }));
    return;
  }
  if (sel.kind === "node") {
    const node = state.nodes.get(sel.id);
    if (node === undefined) return select(undefined);
    details.replaceChildren(element("h2", { text: `Node ${node.name}` }), element("p", { text: node.node_type === "remote" ? REMOTE_NODE_TEXT : `${node.node_type}, ${node.status}` }), portsTable(node));
    if (node.node_type === "ethernet_switch") details.append(element("h3", { text: "MAC table" }), element("div", { id: "mac-table", "aria-live": "off" }));
    for (const p of node.ports.filter((p) => p.connected)) details.append(portTools(lab, node, p.port_number));
  } else {
    const link = lab.links.find((l) => linkId(l) === sel.id);
    if (link === undefined) return select(undefined);
    const box = element("div", { id: "chart", role: "img", "aria-label": `Bits per second each way on the link ${endName(link.a)} — ${endName(link.b)}, over the last two minutes` });
    const held = element("p", { id: "queue-delay", role: "status", "aria-label": "Queue delay each way, as the impairments set it (the measured one is in the table above)" });
    details.replaceChildren(element("h2", { text: `Link ${endName(link.a)} — ${endName(link.b)}` }), linkTable(link), held, box);
    void showHeld(lab, link, held);
    chart = new uPlot(
      {
        width: Math.max(280, details.clientWidth - 24),
        height: 160,
        series: [{}, { label: `${endName(link.a)} → ${endName(link.b)} b/s`, stroke: "#1f6feb" }, { label: `${endName(link.b)} → ${endName(link.a)} b/s`, stroke: "#2da44e" }],
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => humanRate(t, "b/s")), size: 70 }],
      },
      [state.history.t, state.history.ab, state.history.ba],
      box,
    );
    for (const end of [link.a, link.b]) {
      const node = state.nodes.get(end.node_id);
      if (node !== undefined) details.append(portTools(lab, node, end.port_number));
    }
  }
  paintDetails();
}

function portsTable(node: LabNode): HTMLTableElement {
  return element(
    "table",
    { id: "ports", class: "figures" },
    element("caption", { text: `Ports of ${node.name}` }),
    element("thead", {}, element("tr", {}, ...["Port", "In", "Out", "Drops"].map((h) => element("th", { scope: "col", text: h })))),
    element("tbody", {}, ...node.ports.filter((p) => p.connected).map((p) => element("tr", { "data-port": portKey(node.node_id, p.port_number) }, element("th", { scope: "row", text: p.name === "" ? `link ${p.port_number + 1}` : p.name }), element("td", { class: "in" }), element("td", { class: "out" }), element("td", { class: "drops" })))),
  );
}

function linkTable(link: Lab["links"][number]): HTMLTableElement {
  return element(
    "table",
    { id: "link-figures", class: "figures" },
    element("caption", { text: "Rates, measured queue delay (mean over the last reading, max over the last one to two seconds) and drops each way" }),
    element("thead", {}, element("tr", {}, ...["Direction", "Frames/s", "Bits/s", "Queue delay, measured (mean, max)", "Dropped (by reason, since start)"].map((h) => element("th", { scope: "col", text: h })))),
    element(
      "tbody",
      {},
      ...[
        { key: "ab", name: `${endName(link.a)} → ${endName(link.b)}` },
        { key: "ba", name: `${endName(link.b)} → ${endName(link.a)}` },
      ].map((d) =>
        element(
          "tr",
          { "data-direction": d.key },
          element("th", { scope: "row", text: d.name }),
          element("td", { class: "frames" }),
          element("td", { class: "bits" }),
          // Named by what it is, which way and its value (set with it), so a screen reader reads all three.
          element("td", { class: "queue", id: `queue-measured-${d.key}`, "data-name": `Measured queue delay ${d.name}` }),
          element("td", { class: "drops" }),
        ),
      ),
    ),
  );
}

/**
 * The measured queue delay of one direction of a link (ADR 0097): a frame going from → to waits in
 * the queue of from's port on the way out and of to's port on the way in, each where a bandwidth is set.
 */
function measuredQueueText(from: { node_id: string; port_number: number }, to: { node_id: string; port_number: number }): string {
  const parts: string[] = [];
  const put = (q: QueueFigures | undefined, where: string) => {
    if (q === undefined || !q.everQueued) return;
    parts.push(q.frames === 0 ? `no frame queued, max ${humanWait(q.maxMs)} at ${where}` : `mean ${humanWait(q.meanMs)}, max ${humanWait(q.maxMs)} at ${where}`);
  };
  put(state.rates.get(portKey(from.node_id, from.port_number))?.queueOut, endName(from));
  put(state.rates.get(portKey(to.node_id, to.port_number))?.queueIn, endName(to));
  return parts.length === 0 ? "no queue" : parts.join("; ");
}

function showMeasuredQueue(cell: HTMLTableCellElement, text: string): void {
  cell.textContent = text;
  cell.setAttribute("aria-label", `${cell.dataset["name"] ?? "Measured queue delay"}: ${text}`);
}

/** What one end's impairments hold a direction's frames for: the delay (± jitter) and the bandwidth queue's bound. */
function heldBy(filters: Readonly<Record<string, readonly unknown[]>> | undefined, where: string): string[] {
  if (filters === undefined) return [];
  const parts: string[] = [];
  const delay = filters["delay"];
  if (delay !== undefined) parts.push(`${String(delay[0])} ms${delay[1] !== undefined && delay[1] !== 0 ? ` ± ${String(delay[1])} ms` : ""} at ${where}`);
  const bandwidth = filters["bandwidth"];
  if (bandwidth !== undefined) parts.push(`a queue of up to ${String(bandwidth[1] ?? "?")} ms at ${String(bandwidth[0])} kbit/s at ${where}`);
  return parts;
}

/** The queue delay each way of a link, as the impairments of its switch or hub ends set it. */
async function showHeld(lab: Lab, link: Lab["links"][number], box: HTMLElement): Promise<void> {
  try {
    const all = await api.impairments(lab.project_id);
    const of = (e: { node_id: string; port_number: number }) => all.find((i) => i.node_id === e.node_id && i.port_number === e.port_number);
    const [a, b] = [of(link.a), of(link.b)];
    const way = (from: typeof link.a, to: typeof link.a, out: typeof a, into: typeof a) => {
      const parts = [...heldBy(out?.filters_out, endName(from)), ...heldBy(into?.filters_in, endName(to))];
      return `${endName(from)} → ${endName(to)}: ${parts.length === 0 ? "no delay set" : parts.join(", ")}`;
    };
    box.textContent = `Queue delay set: ${way(link.a, link.b, a, b)}; ${way(link.b, link.a, b, a)}.`;
  } catch (err) {
    box.textContent = `Queue delay: ${(err as Error).message}`;
  }
}

const dropsText = (p: PortCounters | undefined): string => {
  if (p === undefined) return "—";
  const entries = Object.entries(p.drops).filter(([, n]) => n > 0);
  return entries.length === 0 ? "none" : entries.map(([reason, n]) => `${reason} ${n}`).join(", ");
};

function paintDetails(): void {
  const lab = state.lab;
  const sel = state.selection;
  if (lab === undefined || sel === undefined) return;
  if (sel.kind === "node") {
    for (const row of details.querySelectorAll<HTMLTableRowElement>("#ports tr[data-port]")) {
      const key = row.dataset["port"]!;
      const r = state.rates.get(key);
      row.cells[1]!.textContent = r === undefined ? "—" : `${humanRate(r.framesInPerSecond, "f/s")}, ${humanRate(r.bitsInPerSecond, "b/s")}`;
      row.cells[2]!.textContent = r === undefined ? "—" : `${humanRate(r.framesOutPerSecond, "f/s")}, ${humanRate(r.bitsOutPerSecond, "b/s")}`;
      row.cells[3]!.textContent = dropsText(state.ports.get(key));
    }
    const node = state.nodes.get(sel.id);
    const macBox = document.getElementById("mac-table");
    if (node !== undefined && macBox !== null) void paintMacTable(lab, node, macBox);
    return;
  }
  const link = lab.links.find((l) => linkId(l) === sel.id);
  if (link === undefined) return;
  const r = linkRates(link);
  const rows = details.querySelectorAll<HTMLTableRowElement>("#link-figures tr[data-direction]");
  // A frame going a → b leaves a's port (its egress drops) and enters b's (its ingress drops): both ports' drops are shown on the way they were counted.
  const [ab, ba] = [rows[0], rows[1]];
  if (ab !== undefined) {
    ab.cells[1]!.textContent = humanRate(r.abFrames, "f/s");
    ab.cells[2]!.textContent = humanRate(r.abBits, "b/s");
    showMeasuredQueue(ab.cells[3]!, measuredQueueText(link.a, link.b));
    ab.cells[4]!.textContent = `at ${endName(link.a)}: ${dropsText(state.ports.get(portKey(link.a.node_id, link.a.port_number)))}`;
  }
  if (ba !== undefined) {
    ba.cells[1]!.textContent = humanRate(r.baFrames, "f/s");
    ba.cells[2]!.textContent = humanRate(r.baBits, "b/s");
    showMeasuredQueue(ba.cells[3]!, measuredQueueText(link.b, link.a));
    // A peer elsewhere counts nothing here: what its frames lose here is in the netemu end's drops (ADR 0098).
    ba.cells[4]!.textContent = isRemote(link.b.node_id) ? `at ${endName(link.b)}: not counted, outside netemu` : `at ${endName(link.b)}: ${dropsText(state.ports.get(portKey(link.b.node_id, link.b.port_number)))}`;
  }
  if (state.counters !== undefined) {
    const h = state.history;
    h.t.push(state.counters.at_ms / 1000);
    h.ab.push(r.abBits);
    h.ba.push(r.baBits);
    if (h.t.length > HISTORY) for (const s of [h.t, h.ab, h.ba]) s.shift();
    chart?.setData([h.t, h.ab, h.ba]);
  }
}

let macBusy = false;
async function paintMacTable(lab: Lab, node: LabNode, box: HTMLElement): Promise<void> {
  if (macBusy) return;
  macBusy = true;
  try {
    const entries = await api.macTable(lab.project_id, node.node_id);
    box.replaceChildren(
      entries.length === 0
        ? element("p", { text: "No address learned." })
        : element(
            "table",
            { class: "figures", id: "mac-entries" },
            element("caption", { text: `MAC table of ${node.name}: ${entries.length} addresses` }),
            element("thead", {}, element("tr", {}, ...["MAC", "VLAN", "Port", "Age (s)"].map((h) => element("th", { scope: "col", text: h })))),
            element("tbody", {}, ...entries.map((e) => element("tr", {}, element("td", { text: e.mac }), element("td", { text: String(e.vlan) }), element("td", { text: portName(node.node_id, e.port_number) }), element("td", { text: String(e.age) })))),
          ),
    );
  } catch (err) {
    box.textContent = `MAC table: ${(err as Error).message}`;
  } finally {
    macBusy = false;
  }
}

// ---------------------------------------------- impairments and capture of one port

function portTools(lab: Lab, node: LabNode, port: number): HTMLElement {
  const name = endName({ node_id: node.node_id, port_number: port });
  const section = element("section", { class: "port-tools", "aria-label": `Impairments and capture of ${name}` }, element("h3", { text: name }));
  // A peer elsewhere has no port of netemu's: nothing of it can be impaired or captured here (ADR 0098).
  if (node.node_type === "remote") {
    section.append(remoteEndNote(lab, node, port));
    return section;
  }
  if (node.node_type === "ethernet_switch" || node.node_type === "ethernet_hub") section.append(impairmentForm(lab, node, port, name));
  else section.append(hostEndImpairments(lab, node, port, name));
  section.append(captureControls(lab, node, port, name));
  return section;
}

function impairmentForm(lab: Lab, node: LabNode, port: number, name: string): HTMLFormElement {
  const form = element("form", { class: "impairments", "aria-label": `Impairments of ${name}` });
  const idOf = (direction: string, kind: string) => `imp-${node.node_id}-${port}-${direction}-${kind}`;
  const directions = [
    { key: "in", legend: `Into ${node.name} (frames ${name} receives)` },
    { key: "out", legend: `Out of ${node.name} (frames ${name} sends)` },
  ];
  for (const d of directions) {
    const set = element("fieldset", {}, element("legend", { text: d.legend }));
    // GNS3's five kinds in view; netemu's own behind a disclosure, so the form stays short.
    const more = element("details", {}, element("summary", { text: "More kinds" }));
    for (const f of KIND_FIELDS) {
      const id = idOf(d.key, f.kind);
      (GNS3_KINDS.has(f.kind) ? set : more).append(element("div", { class: "field" }, element("label", { for: id, text: f.label }), element("input", { id, name: `${d.key}.${f.kind}`, type: "text", placeholder: f.hint, "aria-label": `${f.label} ${d.key === "in" ? "into" : "out of"} ${name} (${f.hint})`, autocomplete: "off" })));
    }
    set.append(more);
    // A direction given fixed filters loses its schedule; the other direction, left out, keeps what it has.
    set.append(scheduleField(d.key, idOf(d.key, "schedule"), name, () => void send({ [`filters_${d.key}`]: {} }, `Schedule ${d.key === "in" ? "into" : "out of"} ${name} cleared.`)));
    form.append(set);
  }
  const apply = element("button", { type: "submit", text: `Apply impairments`, "aria-label": `Apply impairments on ${name}` });
  const clear = element("button", { type: "button", text: `Clear`, "aria-label": `Clear impairments on ${name}` });
  const result = element("p", { class: "result", role: "status" });
  form.append(apply, clear, result);
  const scheduleBox = (direction: string) => $(idOf(direction, "schedule")) as HTMLTextAreaElement;
  const showNow = (impairment: Impairment | undefined) => {
    for (const d of ["in", "out"] as const) $(`${idOf(d, "schedule")}-now`).textContent = scheduleNowText(impairment?.[d === "in" ? "schedule_in_now" : "schedule_out_now"]);
  };
  const read = (direction: string): Record<string, unknown[]> => {
    const out: Record<string, unknown[]> = {};
    for (const f of KIND_FIELDS) {
      const v = valuesOf(f, ($(idOf(direction, f.kind)) as HTMLInputElement).value);
      if (v !== undefined) out[f.kind] = v;
    }
    return out;
  };
  const fill = (filters: Impairment | undefined) => {
    for (const d of ["in", "out"] as const) for (const f of KIND_FIELDS) ($(idOf(d, f.kind)) as HTMLInputElement).value = textOf(filters?.[d === "in" ? "filters_in" : "filters_out"][f.kind]);
    for (const d of ["in", "out"] as const) scheduleBox(d).value = scheduleText(filters?.[d === "in" ? "schedule_in" : "schedule_out"]);
    showNow(filters);
    // A kind set behind the disclosure is shown, not hidden.
    for (const more of form.querySelectorAll("details")) if ([...more.querySelectorAll("input")].some((i) => i.value !== "")) more.open = true;
  };
  const send = async (fields: Readonly<Record<string, object>>, done: string) => {
    try {
      const set = await api.putImpairment(lab.project_id, node.node_id, port, fields);
      fill(set);
      result.textContent = done;
      const held = document.getElementById("queue-delay");
      const sel = state.selection;
      const link = sel?.kind === "link" ? lab.links.find((l) => linkId(l) === sel.id) : undefined;
      if (held !== null && link !== undefined) void showHeld(lab, link, held);
    } catch (err) {
      result.textContent = err instanceof Refused ? `Refused: ${err.message}` : `Failed: ${(err as Error).message}`;
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    // Each direction sends its fixed filters, or its schedule when its schedule box holds one (ADR 0102).
    const fields: Record<string, object> = {};
    for (const d of ["in", "out"] as const) {
      const given = directionFields(read(d), scheduleBox(d).value);
      if ("problem" in given) {
        result.textContent = `Refused: schedule ${d === "in" ? "into" : "out of"} ${name}: ${given.problem}. Nothing was changed.`;
        return;
      }
      fields["filters" in given ? `filters_${d}` : `schedule_${d}`] = "filters" in given ? given.filters : given.schedule;
    }
    void send(fields, `Impairments applied on ${name}.`);
  });
  clear.addEventListener("click", () => void send({ filters_in: {}, filters_out: {} }, `Impairments cleared on ${name}.`));
  // The active step moves on its own: the counters' refresh reads it again while the form is in the page.
  scheduleWatchers.add(async (reading) => {
    if (!form.isConnected) return false;
    const all = await reading.impairments();
    if (form.isConnected) showNow(all.find((i) => i.node_id === node.node_id && i.port_number === port));
    return form.isConnected;
  });
  // What the port has now, once the form is in the page.
  void api.impairments(lab.project_id).then(
    (all) => fill(all.find((i) => i.node_id === node.node_id && i.port_number === port)),
    () => undefined,
  );
  return form;
}

/**
 * A direction's schedule: JSON as `netemu impair --schedule-out` takes it, its active step, and a control to
 * clear it. The one editor of a schedule in the page: a switch's or hub's port direction (the impairments
 * overlay) and a host's end of a controller link (the link's `nodes[i].schedule`) both use it.
 */
function scheduleField(direction: string, id: string, name: string, onClear: () => void): HTMLElement {
  const way = direction === "in" ? "into" : "out of";
  const hint = element("p", { id: `${id}-hint`, class: "hint", text: 'JSON, as netemu impair --schedule-out and the API take it, e.g. {"period": 2, "windows": [{"at": 0, "for": 1, "filters": {"frequency_drop": [-1]}}]}. Empty: the fixed impairments above apply.' });
  const box = element("textarea", { id, name: `${direction}.schedule`, rows: "3", spellcheck: "false", "aria-label": `Schedule ${way} ${name}`, "aria-describedby": `${id}-hint ${id}-now` });
  const now = element("p", { id: `${id}-now`, class: "schedule-now", role: "status", "aria-label": `Active schedule step ${way} ${name}`, text: "No schedule." });
  const clear = element("button", { type: "button", text: "Clear schedule", "aria-label": `Clear the schedule ${way} ${name}` });
  clear.addEventListener("click", onClear);
  return element("div", { class: "field schedule" }, element("label", { for: id, text: "Schedule" }), box, hint, now, clear);
}

/** What one refresh reads for the schedule fields: the lab's impairments at most once, whatever the number of forms asking. */
interface ScheduleReading {
  impairments(): Promise<readonly Impairment[]>;
}

/** The forms showing a schedule's active step: each answers false once it left the page. */
const scheduleWatchers = new Set<(reading: ScheduleReading) => Promise<boolean>>();

async function refreshSchedules(lab: Lab): Promise<void> {
  if (scheduleWatchers.size === 0) return;
  let all: Promise<readonly Impairment[]> | undefined;
  const reading: ScheduleReading = { impairments: () => (all ??= api.impairments(lab.project_id)) };
  await Promise.all(
    [...scheduleWatchers].map(async (watch) => {
      try {
        if (!(await watch(reading))) scheduleWatchers.delete(watch);
      } catch {
        // The next refresh tries again; the counters' status line says when netemu does not answer.
      }
    }),
  );
}

function captureControls(lab: Lab, node: LabNode, port: number, name: string): HTMLElement {
  const path = api.portPath(lab.project_id, node, port);
  const start = element("button", { type: "button", text: "Start capture", "aria-label": `Start capture on ${name}` });
  const stop = element("button", { type: "button", text: "Stop capture", "aria-label": `Stop capture on ${name}` });
  const download = element("a", { href: `${path}/pcap`, download: `${node.name}_${portName(node.node_id, port)}.pcap`, text: "Download capture", "aria-label": `Download the capture of ${name} (pcap, grows until stopped)` });
  download.hidden = true;
  const result = element("p", { class: "result", role: "status" });
  start.addEventListener("click", async () => {
    try {
      const started = await api.startCapture(path, `${node.name}_${port}.pcap`.replace(/[^A-Za-z0-9_.-]/g, "_"));
      download.hidden = false;
      result.textContent = `Capturing into ${started.pcap_file_path}.`;
    } catch (err) {
      result.textContent = `Refused: ${(err as Error).message}`;
    }
  });
  stop.addEventListener("click", async () => {
    try {
      await api.stopCapture(path);
      result.textContent = "Capture stopped.";
    } catch (err) {
      result.textContent = `Refused: ${(err as Error).message}`;
    }
  });
  return element("div", { class: "capture", role: "group", "aria-label": `Capture on ${name}` }, start, stop, download, result);
}

// --------------------------------- a host's end of a link, and a peer elsewhere (ADR 0098)

const isRemote = (nodeId: string): boolean => state.nodes.get(nodeId)?.node_type === "remote";
const REMOTE_NODE_TEXT = "Outside netemu: a node on another compute, or an emulator, that a port here sends to over UDP at this address.";
const isEnd = (e: { node_id: string; port_number: number }, node: LabNode, port: number): boolean => e.node_id === node.node_id && e.port_number === port;

/** What a peer elsewhere offers: nothing here, and where its link is impaired and captured instead. */
function remoteEndNote(lab: Lab, node: LabNode, port: number): HTMLElement {
  const link = lab.links.find((l) => isEnd(l.b, node, port));
  const here = link === undefined ? "its netemu end" : endName(link.a);
  return element("p", { class: "note", role: "note", text: `${node.name} is outside netemu: a node on another compute, or an emulator. Nothing of it can be impaired or captured here; this link's impairments and capture are at ${here}.` });
}

/**
 * A host's end of a link (VPCS, cloud, Linux host). In a project of netemu's controller it is set as any
 * client sets it: the link's one-way filters of that end (PUT on the link), which act on what the host
 * sends over it; frames into the host are impaired at the other end. Elsewhere (a GNS3 controller's lab,
 * or a NIO made through the compute API) netemu's impairments act on a host's port as on a switch's (ADR 0081).
 */
function hostEndImpairments(lab: Lab, node: LabNode, port: number, name: string): HTMLElement {
  const link = lab.links.find((l) => isEnd(l.a, node, port) || isEnd(l.b, node, port));
  if (link?.link_id !== undefined) return linkEndForm(lab, node, port, name, link, link.link_id);
  return impairmentForm(lab, node, port, name);
}

const filtersText = (filters: Readonly<Record<string, readonly unknown[]>>): string =>
  Object.entries(filters)
    .map(([kind, values]) => `${kind} ${textOf(values)}`)
    .join("; ");

function linkEndForm(lab: Lab, node: LabNode, port: number, name: string, link: Lab["links"][number], linkId: string): HTMLFormElement {
  const other = isEnd(link.a, node, port) ? link.b : link.a;
  const noteId = `into-${node.node_id}-${port}`;
  const form = element("form", { class: "impairments", "aria-label": `Impairments of ${name}`, "aria-describedby": noteId });
  const idOf = (kind: string) => `imp-${node.node_id}-${port}-out-${kind}`;
  const set = element("fieldset", {}, element("legend", { text: `Out of ${node.name} (frames ${name} sends over the link)` }));
  const more = element("details", {}, element("summary", { text: "More kinds" }));
  for (const f of KIND_FIELDS) {
    const id = idOf(f.kind);
    (GNS3_KINDS.has(f.kind) ? set : more).append(element("div", { class: "field" }, element("label", { for: id, text: f.label }), element("input", { id, name: `out.${f.kind}`, type: "text", placeholder: f.hint, "aria-label": `${f.label} out of ${name} (${f.hint})`, autocomplete: "off" })));
  }
  set.append(more);
  // The link end's schedule, in the same editor as a switch port's; fixed filters given alone end it (ADR 0102).
  set.append(scheduleField("out", idOf("schedule"), name, () => void send({ filters: {} }, `Schedule out of ${name} cleared.`)));
  // The link's API has one-way filters on what each end sends: frames into this host are shaped where they leave.
  const into = element("p", { id: noteId, class: "note", text: `Frames into ${name} are impaired where they are sent, at the link's other end: ${endName(other)}.` });
  const gns3 = element("p", { class: "note" });
  const apply = element("button", { type: "submit", text: "Apply impairments", "aria-label": `Apply impairments on ${name}` });
  const clear = element("button", { type: "button", text: "Clear", "aria-label": `Clear impairments on ${name}` });
  const result = element("p", { class: "result", role: "status" });
  form.append(set, into, gns3, apply, clear, result);
  let adapter = 0;
  const endOf = (answer: ControllerLink): ControllerLinkEnd | undefined => answer.nodes.find((n) => n.node_id === node.node_id && n.port_number === port);
  const scheduleBox = form.querySelector<HTMLTextAreaElement>("textarea")!;
  const now = form.querySelector<HTMLElement>(".schedule-now")!;
  // A GET tells the active step; a PUT's answer (GNS3's link) does not: its step is read right after.
  const showNow = (end: ControllerLinkEnd | undefined) => {
    if (end?.schedule === undefined) now.textContent = scheduleNowText(undefined);
    else if (end.schedule_now !== undefined) now.textContent = scheduleNowText(end.schedule_now);
  };
  const readNow = async () => showNow(endOf(await api.controllerLink(lab.project_id, linkId)));
  const fill = (answer: ControllerLink) => {
    const end = endOf(answer);
    adapter = end?.adapter_number ?? 0;
    for (const f of KIND_FIELDS) ($(idOf(f.kind)) as HTMLInputElement).value = textOf(end?.filters?.[f.kind]);
    scheduleBox.value = scheduleText(end?.schedule);
    showNow(end);
    if ([...more.querySelectorAll("input")].some((i) => i.value !== "")) more.open = true;
    gns3.textContent = Object.keys(answer.filters).length === 0 ? "" : `GNS3's filters of this link act too, both ways (its packet filters dialog): ${filtersText(answer.filters)}.`;
  };
  const send = async (fields: { readonly filters: object } | { readonly schedule: object }, done: string) => {
    try {
      const set = await api.setLinkEnd(lab.project_id, linkId, { node_id: node.node_id, adapter_number: adapter, port_number: port }, fields);
      fill(set);
      result.textContent = done;
      if (endOf(set)?.schedule !== undefined) await readNow().catch(() => undefined);
    } catch (err) {
      result.textContent = err instanceof Refused ? `Refused: ${err.message}` : `Failed: ${(err as Error).message}`;
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const out: Record<string, unknown[]> = {};
    for (const f of KIND_FIELDS) {
      const v = valuesOf(f, ($(idOf(f.kind)) as HTMLInputElement).value);
      if (v !== undefined) out[f.kind] = v;
    }
    // The fixed filters, or the schedule when its box holds one (ADR 0102), as a switch port's direction.
    const given = directionFields(out, scheduleBox.value);
    if ("problem" in given) {
      result.textContent = `Refused: schedule out of ${name}: ${given.problem}. Nothing was changed.`;
      return;
    }
    void send(given, `Impairments applied on ${name}.`);
  });
  clear.addEventListener("click", () => void send({ filters: {} }, `Impairments cleared on ${name}.`));
  // The active step moves on its own: read again on the counters' refresh while the form is in the page.
  scheduleWatchers.add(async () => {
    if (!form.isConnected) return false;
    await readNow();
    return form.isConnected;
  });
  void api.controllerLink(lab.project_id, linkId).then(fill, (err: unknown) => {
    result.textContent = `Link: ${(err as Error).message}`;
  });
  return form;
}

// --------------------------------------------------------------- the loop

function chooseLab(projectId: string | undefined): void {
  const lab = state.labs.find((l) => l.project_id === projectId) ?? state.labs[0];
  state.lab = lab;
  state.counters = undefined;
  state.rates = new Map();
  state.topologyKey = "";
  if (lab !== undefined) showTopology(lab);
  select(undefined);
}

function showTopology(lab: Lab): void {
  const key = JSON.stringify([lab.nodes.map((n) => [n.node_id, n.name, n.status, n.ports.map((p) => p.connected)]), lab.links]);
  state.lab = lab;
  state.nodes = new Map(lab.nodes.map((n) => [n.node_id, n]));
  if (key === state.topologyKey) return;
  state.topologyKey = key;
  drawTopology(lab);
  fillTables(lab);
}

async function readLabs(): Promise<void> {
  try {
    state.labs = (await api.labs()).map(withRemotePeers);
  } catch (err) {
    say(`Labs: ${(err as Error).message}`);
    return;
  }
  const current = state.lab?.project_id;
  labSelect.replaceChildren(...state.labs.map((l) => element("option", { value: l.project_id, text: `${l.name} (${l.nodes.filter((n) => n.node_type !== "remote").length} nodes${l.held_by_controller ? "" : ", placed by a GNS3 controller"})` })));
  if (state.labs.length === 0) {
    say("netemu holds no lab yet.");
    state.lab = undefined;
    return;
  }
  const lab = state.labs.find((l) => l.project_id === current);
  if (lab === undefined) chooseLab(state.labs[0]!.project_id);
  else {
    const changed = JSON.stringify(lab) !== JSON.stringify(state.lab);
    showTopology(lab);
    if (changed && state.selection !== undefined) renderDetails();
  }
  labSelect.value = state.lab?.project_id ?? "";
}

async function readCounters(): Promise<void> {
  const lab = state.lab;
  if (lab === undefined) return;
  try {
    const counters = await api.counters(lab.project_id);
    if (state.lab?.project_id !== counters.project_id) return;
    state.rates = ratesBetween(state.counters, counters);
    state.counters = counters;
    state.ports = new Map(counters.ports.map((p) => [portKey(p.node_id, p.port_number), p]));
    previousDrops = latestDrops;
    latestDrops = new Map(counters.ports.map((p) => [portKey(p.node_id, p.port_number), totalDrops(p)]));
    const started = performance.now();
    paintRates(lab);
    const graphDone = performance.now();
    paintTableRates(lab);
    paintDetails();
    void refreshSchedules(lab);
    // For bench/page.bench.ts: what painting one reading cost, in the graph and in all.
    document.body.dataset["paintGraphMs"] = (graphDone - started).toFixed(1);
    document.body.dataset["paintMs"] = (performance.now() - started).toFixed(1);
    document.body.dataset["readings"] = String(Number(document.body.dataset["readings"] ?? "0") + 1);
    say(`Live: read at ${new Date().toLocaleTimeString()}${counters.unanswered.length > 0 ? `; ${counters.unanswered.length} nodes did not answer` : ""}.`);
  } catch (err) {
    say(`Counters: ${(err as Error).message}`);
  }
}

function every(ms: number, work: () => Promise<void>): void {
  const run = async () => {
    await work();
    setTimeout(run, ms);
  };
  setTimeout(run, ms);
}

labSelect.addEventListener("change", () => chooseLab(labSelect.value));

void (async () => {
  await readLabs();
  document.body.dataset["ready"] = "true";
  // For bench/page.bench.ts: when the graph and tables were there, and when the first rates were painted.
  document.body.dataset["readyMs"] = performance.now().toFixed(0);
  await readCounters();
  document.body.dataset["firstReadingMs"] = performance.now().toFixed(0);
  every(COUNTERS_EVERY_MS, readCounters);
  every(TOPOLOGY_EVERY_MS, readLabs);
})();

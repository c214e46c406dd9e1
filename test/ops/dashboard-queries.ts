import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const DASHBOARD_FILE = join(ROOT, "deploy", "grafana", "netemu-dashboard.json");
export const RULES_FILE = join(ROOT, "deploy", "prometheus", "netemu-rules.yml");

export interface DashboardTarget {
  readonly refId: string;
  readonly expr: string;
  readonly datasource?: { readonly type?: string; readonly uid?: string };
}

export interface DashboardPanel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: { readonly type?: string; readonly uid?: string };
  readonly gridPos?: { readonly h: number; readonly w: number; readonly x: number; readonly y: number };
  readonly targets?: readonly DashboardTarget[];
  readonly panels?: readonly DashboardPanel[];
}

export interface DashboardVariable {
  readonly type: string;
  readonly name: string;
  readonly query?: string | { readonly query: string };
  readonly datasource?: { readonly type?: string; readonly uid?: string };
}

export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly schemaVersion: number;
  readonly panels: readonly DashboardPanel[];
  readonly templating: { readonly list: readonly DashboardVariable[] };
}

export function readDashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD_FILE, "utf8")) as Dashboard;
}

/** Every panel, those inside collapsed rows included. */
export function allPanels(d: Dashboard): DashboardPanel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

/** Each query of the dashboard: its panel, its refId and its expression as Grafana stores it. */
export function dashboardQueries(d: Dashboard): { panel: string; refId: string; expr: string }[] {
  return allPanels(d).flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, refId: t.refId, expr: t.expr })));
}

/** A query variable's PromQL: `label_values(selector, label)` (a Grafana function) or a plain query. */
export function variableQuery(v: DashboardVariable): string {
  return typeof v.query === "string" ? v.query : (v.query?.query ?? "");
}

/** The values Grafana would put in for its variables, so that Prometheus can run the query. */
export function substitute(expr: string, values: Readonly<Record<string, string>>): string {
  return expr.replace(/\$(?:\{(\w+)\}|(\w+))/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare) as string;
    const value = values[name];
    if (value === undefined) throw new Error(`no value for the variable $${name} in: ${expr}`);
    return value;
  });
}

const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset", "inf", "nan"]);

/**
 * The metric names a PromQL expression reads: its identifiers, less functions (followed by `(`),
 * keywords, label names (in `by (...)`, `without (...)` and selectors), strings and durations.
 */
export function metricNamesOf(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = stripped.slice((m.index ?? 0) + m[0].length).trimStart();
    if (after.startsWith("(") || KEYWORDS.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names];
}

/** The selector of `label_values(selector, label)`, or the query itself. */
export function variableSelector(query: string): { selector: string; label: string | undefined } {
  const m = /^\s*label_values\(\s*(.*),\s*(\w+)\s*\)\s*$/.exec(query);
  return m === null ? { selector: query, label: undefined } : { selector: m[1] as string, label: m[2] };
}

/** The names `record:` gives in the rules file. */
export function recordedNames(rules: string): string[] {
  return [...rules.matchAll(/^\s*- record:\s*(\S+)\s*$/gm)].map((m) => m[1] as string);
}

/** Series Prometheus makes itself for each target (not in netemu's scrape). */
export const PROMETHEUS_SERIES = ["up", "scrape_duration_seconds", "scrape_samples_scraped"];

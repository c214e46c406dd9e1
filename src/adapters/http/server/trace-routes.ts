import type { UseCases } from "../../../application/use-cases/index.js";
import type { StoredTrace } from "../../../application/ports/trace-store.js";
import { UPLOAD_TRACE_REFUSALS } from "../../../application/use-cases/compute/trace-upload.js";
import { GET_TRACE_REFUSALS, LIST_TRACES_REFUSALS } from "../../../application/use-cases/compute/trace-list.js";
import { DELETE_TRACE_REFUSALS } from "../../../application/use-cases/compute/trace-delete.js";
import { meanCapacityKbps, traceDurationMs } from "../../../domain/traces/trace.js";
import type { ApiRouter } from "../api-router.js";
import { UPLOAD, empty, json, list, raw, route } from "../route.js";
import { jsonBoolean, jsonClosedObject, jsonEnum, jsonInteger, jsonNumber, jsonString } from "../schema.js";

/** Where the traces links replay are uploaded, listed, read and deleted (ADR 0103): netemu's segment of /v2, beside the impairments. */
const TRACES_PATH = "/v2/netemu/traces";
const TRACE_PATH = `${TRACES_PATH}/{name}` as const;

/** A trace as listed: what it is, how long it loops, and a capacity trace's mean capacity. */
const TraceAnswer = jsonClosedObject(
  "Trace",
  { name: jsonString(), kind: jsonEnum(["capacity", "values"] as const), lines: jsonInteger({ minimum: 1 }), bytes: jsonInteger({ minimum: 0 }), duration_ms: jsonNumber },
  { mean_capacity_kbps: jsonNumber, loops: jsonBoolean },
);

function presentTrace(s: StoredTrace) {
  const t = s.trace;
  return {
    name: s.name,
    kind: t.kind,
    lines: t.kind === "capacity" ? t.opportunitiesMs.length : t.atMs.length + (t.periodMs === undefined ? 0 : 1),
    bytes: Buffer.byteLength(s.text, "utf8"),
    duration_ms: traceDurationMs(t),
    ...(t.kind === "capacity" ? { mean_capacity_kbps: Math.round(meanCapacityKbps(t) * 1000) / 1000 } : { loops: t.periodMs !== undefined }),
  };
}

export const TRACE_ROUTES = {
  list: route({
    name: "netemu.traces.list",
    method: "GET",
    path: TRACES_PATH,
    refusals: LIST_TRACES_REFUSALS,
    run: (uc) => uc.listTraces.execute(),
    answer: list(200, TraceAnswer, presentTrace),
  }),
  /** The body is the trace's text as it is (Mahimahi's file, or `<ms> <value>` lines). */
  upload: route({
    name: "netemu.traces.upload",
    method: "PUT",
    path: TRACE_PATH,
    body: UPLOAD,
    refusals: UPLOAD_TRACE_REFUSALS,
    run: (uc, { params, body }) => uc.uploadTrace.execute({ name: params.name, content: body.content, declaredBytes: body.declaredBytes }),
    answer: json(201, TraceAnswer, presentTrace),
  }),
  get: route({
    name: "netemu.traces.get",
    method: "GET",
    path: TRACE_PATH,
    refusals: GET_TRACE_REFUSALS,
    run: (uc, { params }) => uc.getTrace.execute(params.name),
    answer: raw(200, "text/plain; charset=utf-8", (s: StoredTrace) => s.text),
  }),
  delete: route({
    name: "netemu.traces.delete",
    method: "DELETE",
    path: TRACE_PATH,
    refusals: DELETE_TRACE_REFUSALS,
    run: (uc, { params }) => uc.deleteTrace.execute(params.name),
    answer: empty(204),
  }),
};

export function registerTraceRoutes(api: ApiRouter, uc: UseCases): void {
  for (const value of [TRACE_ROUTES.list, TRACE_ROUTES.upload, TRACE_ROUTES.get, TRACE_ROUTES.delete]) api.addRoute(value, uc);
}

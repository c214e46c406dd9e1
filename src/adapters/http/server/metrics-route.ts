import * as E from "fp-ts/lib/Either.js";
import type { ApiRouter } from "../api-router.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import { raw, route } from "../route.js";

/** One scrape: the exposition text and its content type (Prometheus text format 0.0.4). */
export interface Scrape {
  readonly contentType: string;
  readonly text: string;
}

/** What the HTTP adapter needs of a metrics registry: count each answered request, render a scrape. */
export interface HttpMetrics {
  /** `route` is the name of the handler that answered, undefined when none did. */
  requestAnswered(route: string | undefined, status: number, seconds: number): void;
  scrape(): Promise<Scrape>;
}

/** What Prometheus reads: its text exposition format, as prom-client's default registry renders it. */
const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

/**
 * `GET /metrics`, outside /v2, as Prometheus expects it; behind the same basic auth as every route
 * (ADR 0043). A value made with the registry it scrapes (the HTTP adapter's own port, not a use case);
 * the document says Prometheus's text format, the wire the registry's own content type.
 */
function metricsRoute(metrics: HttpMetrics) {
  return route({
    name: "server.metrics",
    method: "GET",
    path: "/metrics",
    refusals: [],
    run: async () => E.right(await metrics.scrape()),
    answer: raw(200, PROMETHEUS_TEXT, (scrape: Scrape) => scrape.text, (scrape) => scrape.contentType),
  });
}

export function registerMetricsRoute(api: ApiRouter, uc: UseCases, metrics: HttpMetrics): void {
  api.addRoute(metricsRoute(metrics), uc);
}

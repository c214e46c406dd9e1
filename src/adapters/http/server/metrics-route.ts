import type { ApiRouter } from "../api-router.js";

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

/** Outside /v2, as Prometheus expects it; behind the same basic auth as every route (ADR 0043). */
export function registerMetricsRoute(api: ApiRouter, metrics: HttpMetrics): void {
  api.add("server.metrics", "GET", "/metrics", async (x) => {
    const scrape = await metrics.scrape();
    x.text(200, scrape.contentType, scrape.text);
  });
}

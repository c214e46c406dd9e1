import type { ApiRouter } from "../api-router.js";
import { type DocumentedServer, OPENAPI_PATH, openApiDocument } from "./document.js";

/** `GET /v2/netemu/openapi.json`: the description of every route of `api`, this one included. */
export function registerOpenApiRoute(api: ApiRouter, server: DocumentedServer): void {
  // Built on the first request, once every route is registered, and kept: routes never change after.
  // Compact JSON, not GNS3's indented rendering: the document is netemu's own and large.
  let text: string | undefined;
  api.add("netemu.openapi", "GET", OPENAPI_PATH, (x) => {
    text ??= JSON.stringify(openApiDocument(api.entries(), server));
    x.ctx.status = 200;
    x.ctx.type = "application/json";
    x.ctx.body = text;
  });
}

import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { raw, route } from "../route.js";
import { type DocumentedServer, OPENAPI_PATH, openApiDocument } from "./document.js";

/**
 * `GET /v2/netemu/openapi.json`: the description of every route of `api`, this one included. A value
 * made with the router it describes; its body is JSON of its own schema (OpenAPI 3.1's), sent as text.
 */
function openApiRoute(api: ApiRouter, server: DocumentedServer) {
  // Built on the first request, once every route is registered, and kept: routes never change after.
  // Compact JSON, not GNS3's indented rendering: the document is netemu's own and large.
  let text: string | undefined;
  return route({
    name: "netemu.openapi",
    method: "GET",
    path: OPENAPI_PATH,
    refusals: [],
    run: async () => E.right((text ??= JSON.stringify(openApiDocument(api.entries(), server)))),
    // Declared as JSON; sent with its charset, as it always was.
    answer: raw(200, "application/json", (document: string) => document, () => "application/json; charset=utf-8"),
  });
}

export function registerOpenApiRoute(api: ApiRouter, uc: UseCases, server: DocumentedServer): void {
  api.addRoute(openApiRoute(api, server), uc);
}

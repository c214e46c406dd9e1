import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { json, raw, route } from "../route.js";
import { jsonArray, jsonBoolean, jsonClosedObject, jsonInteger, jsonString } from "../schema.js";
import { findSymbol, NODE_SYMBOLS, type NodeSymbol, symbolIdOf } from "./symbols.js";

const SymbolAnswer = jsonClosedObject("Symbol", { symbol_id: jsonString(), filename: jsonString(), theme: jsonString(), builtin: jsonBoolean }, {});
const SymbolDimensionsAnswer = jsonClosedObject("SymbolDimensions", { width: jsonInteger(), height: jsonInteger() }, {});

/**
 * GNS3's symbol routes (ADR 0092), read by its web UI to draw nodes: the pictures are netemu's own and
 * are not the application's concern (no use case holds them), so the routes answer from the catalogue.
 */
const CONTROLLER_SYMBOL_ROUTES = {
  list: route({
    name: "controller.symbol.list",
    method: "GET",
    path: "/v2/symbols",
    refusals: [],
    run: async () => E.right(NODE_SYMBOLS),
    answer: json(200, jsonArray(SymbolAnswer), (symbols: readonly NodeSymbol[]) =>
      symbols.map((s) => ({ symbol_id: symbolIdOf(s), filename: s.fileName, theme: "Netemu", builtin: true })),
    ),
  }),
  raw: route({
    name: "controller.symbol.raw",
    method: "GET",
    path: "/v2/symbols/{symbol_id:.+}/raw",
    refusals: [],
    run: async (_uc, { params }) => E.right(findSymbol(params.symbol_id)),
    answer: raw(200, "image/svg+xml", (symbol: NodeSymbol) => symbol.svg),
  }),
  dimensions: route({
    name: "controller.symbol.dimensions",
    method: "GET",
    path: "/v2/symbols/{symbol_id:.+}/dimensions",
    refusals: [],
    run: async (_uc, { params }) => E.right(findSymbol(params.symbol_id)),
    answer: json(200, SymbolDimensionsAnswer, (symbol: NodeSymbol) => ({ width: symbol.width, height: symbol.height })),
  }),
};

export function registerControllerSymbolRoutes(api: ApiRouter, uc: UseCases): void {
  for (const value of Object.values(CONTROLLER_SYMBOL_ROUTES)) api.addRoute(value, uc);
}

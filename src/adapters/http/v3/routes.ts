import type { Context } from "koa";
import type { ApiRouter, Method } from "../api-router.js";
import type { Exchange } from "../exchange.js";
import { V3Exchange } from "./exchange.js";

const V3_COMPUTE = "/v3/compute";

const v3Exchange = (ctx: Context, template: string): Exchange => new V3Exchange(ctx, template);

/** Registers a /v3/compute route: named `v3.…`, answered through a V3Exchange (3.x's error shapes). */
export function addV3(
  api: ApiRouter,
  name: string,
  method: Method,
  path: string,
  handler: (x: V3Exchange) => Promise<void> | void,
  options: { readonly rawBody?: boolean } = {},
): void {
  api.add(`v3.${name}`, method, `${V3_COMPUTE}${path}`, handler as (x: Exchange) => Promise<void> | void, { ...options, exchange: v3Exchange });
}

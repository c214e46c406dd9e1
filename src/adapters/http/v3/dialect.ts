import type * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import type { Context } from "koa";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter, Dialect } from "../api-router.js";
import type { Exchange } from "../exchange.js";
import type { Answer, AnyRoute, Request } from "../route.js";
import type { V3ValidationDetail } from "./error-mapping.js";
import { V3Exchange } from "./exchange.js";

const V3_COMPUTE = "/v3/compute";

/**
 * How a route value differs on /v3/compute, where a GNS3 3.0.6 controller finds it (ADR 0066, 0076):
 * only what 3.x says otherwise. Everything else (the use case, its refusals, the parameters) is the v2
 * value's.
 */
interface V3Form {
  /** 3.x's own last path segment(s) and action name (`capture/start`, `capture.start`). */
  readonly as?: { readonly action: string; readonly segments: string };
  /** 3.x's body (pydantic's: open, nullable) and how it reads as the v2 body, or FastAPI's 422 detail. */
  readonly body?: { readonly codec: t.Mixed; readonly toV2: (body: never) => E.Either<V3ValidationDetail, unknown> };
  /** 3.x's answer, when it is not v2's. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly answer?: Answer<any>;
  /** A path parameter 3.x names otherwise (`file_path` for v2's `path`). */
  readonly param?: { readonly v2: string; readonly v3: string };
  /** 3.0.6's switch and hub port routes take adapter 0 only (`Path(ge=0, le=0)`): a 422 otherwise. */
  readonly adapterZero?: boolean;
}

/** A route value as /v3/compute serves it: the value itself, renamed, and what the dialect checks first. */
export interface V3Route {
  readonly route: AnyRoute;
  readonly admit: NonNullable<Dialect["admit"]>;
}

/** A v3 body that is the v2 one, field for field. */
export function sameBody<B>(codec: t.Type<B, unknown, unknown>): NonNullable<V3Form["body"]> {
  return { codec, toV2: (body: B) => E.right(body) };
}

/** A v3 body read as the v2 body the route's use case takes. */
export function v3Body<B3, B2>(codec: t.Type<B3, unknown, unknown>, toV2: (body: B3) => E.Either<V3ValidationDetail, B2>): NonNullable<V3Form["body"]> {
  return { codec, toV2 };
}

/** The route value on /v3/compute: `v3.` before its name, /v3/compute in place of /v2/compute. */
export function onV3(route: AnyRoute, form: V3Form = {}): V3Route {
  const path = route.path.startsWith("/v2/compute/") ? route.path.slice("/v2/compute".length) : route.path;
  const name = form.as === undefined ? route.name : route.name.replace(/\.[^.]+$/, `.${form.as.action}`);
  const segments = form.as === undefined ? path : path.replace(/\/[^/]+$/, `/${form.as.segments}`);
  const renamed: AnyRoute = {
    ...route,
    name: `v3.${name}`,
    path: `${V3_COMPUTE}${form.param === undefined ? segments : segments.replace(`{${form.param.v2}`, `{${form.param.v3}`)}`,
    body: form.body?.codec ?? route.body,
    answer: form.answer ?? route.answer,
  };
  const admit = (x: Exchange, request: Request<string, unknown>): Request<string, unknown> | undefined => {
    const v3 = x as V3Exchange;
    let body = request.body;
    if (form.body !== undefined) {
      const read = form.body.toV2(body as never);
      if (E.isLeft(read)) {
        v3.answerV3({ status: 422, detail: [read.left] });
        return undefined;
      }
      body = read.right;
    }
    const adapter = request.params["adapter_number"];
    if (form.adapterZero === true && adapter !== 0) {
      v3.answerV3({ status: 422, detail: [{ type: "less_than_equal", loc: ["path", "adapter_number"], msg: "Input should be less than or equal to 0", input: String(adapter) }] });
      return undefined;
    }
    return { params: form.param === undefined ? request.params : { ...request.params, [form.param.v2]: request.params[form.param.v3] ?? "" }, body };
  };
  return { route: renamed, admit };
}

const v3Exchange = (ctx: Context, template: string): Exchange => new V3Exchange(ctx, template);

/** Registers route values on /v3/compute: answered through a V3Exchange (3.x's error shapes). */
export function registerOnV3(api: ApiRouter, uc: UseCases, routes: readonly V3Route[]): void {
  for (const { route, admit } of routes) api.addRoute(route, uc, { exchange: v3Exchange, admit });
}

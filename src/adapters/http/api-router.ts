import Router from "@koa/router";
import type { Context, Middleware } from "koa";
import type * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import { Exchange } from "./exchange.js";
import { noteAnswerMessage } from "./answer-log.js";
import { readBody } from "./request-body.js";
import type { ErrorTag } from "../../application/errors.js";
import type { UseCases } from "../../application/use-cases/index.js";
import { type Answer, type AnyRoute, isUpload, type Method, pathParameters, type Request, type Upload } from "./route.js";

export type { Method } from "./route.js";
type Handler = (x: Exchange) => Promise<void> | void;

/** The codec each `withBody` handler decodes its body with, for the API's description (ADR 0045). */
const BODY_CODECS = new WeakMap<Handler, t.Type<unknown, unknown, unknown>>();

/** One registered route, as the OpenAPI document describes it. */
export interface RouteEntry {
  readonly name: string;
  readonly method: Method;
  /** GNS3's template: `{project_id}`, `{port_number:\d+}`, `{path:.+}`. */
  readonly template: string;
  /** The codec the body is decoded with, when the route decodes one. */
  readonly body: t.Type<unknown, unknown, unknown> | undefined;
  /** The route reads the request stream itself (a file upload). */
  readonly rawBody: boolean;
  /**
   * What the route's value answers on success and the refusal tags it can answer with (ADR 0076), as
   * the OpenAPI document describes them; undefined for the routes registered as handlers with `add`
   * (the two notification streams, which write on the response themselves).
   */
  readonly answer?: Answer<unknown>;
  readonly refusals?: readonly ErrorTag[];
}

/** How a generation of the API answers: GNS3 2.2's exchange unless told (/v3/compute brings its own, ADR 0066). */
type ExchangeOf = (ctx: Context, template: string) => Exchange;

/**
 * How a generation of the API serves a route value (ADR 0076): its exchange (error shapes), and what
 * it checks of a request before the use case runs, beyond the body's codec (the request the use case
 * gets, or undefined once the dialect has answered its own refusal).
 */
export interface Dialect {
  readonly exchange?: ExchangeOf;
  readonly admit?: (x: Exchange, request: Request<string, unknown>) => Request<string, unknown> | undefined;
}

/**
 * A handler whose body is decoded first: a body that does not fit the codec is answered with GNS3's
 * 400 before the handler runs, and the handler gets the typed value.
 */
function withBody<A>(codec: t.Type<A, unknown, unknown>, handler: (x: Exchange, body: A) => Promise<void> | void): Handler {
  const decoding: Handler = (x) => {
    const body = x.decode(codec);
    return E.isLeft(body) ? undefined : handler(x, body.right);
  };
  BODY_CODECS.set(decoding, codec as t.Type<unknown, unknown, unknown>);
  return decoding;
}

const DIGITS = /^\d+$/;

/**
 * Registers routes by their GNS3 template (`/v2/compute/projects/{project_id}/...`,
 * `{port_number:\d+}`): the template is what X-Route and 400 bodies report; digit-only
 * parameters that are not digits fall through to the JSON 404, as aiohttp's router does.
 */
export class ApiRouter {
  readonly router = new Router({ strict: true, sensitive: true });

  /** Each handler's name and what it answers ("GET /v2/version"): a name is given once. */
  private readonly routes = new Map<string, RouteEntry>();

  /** Templates with digit-only parameters, as regexes capturing those parameters. */
  private readonly digitTemplates: RegExp[] = [];

  constructor(private readonly bodyParser: Middleware) {}

  /** Every route registered so far, in registration order. */
  entries(): readonly RouteEntry[] {
    return [...this.routes.values()];
  }

  /**
   * Whether a path matches a template only with non-digits where digits are required: aiohttp
   * never routes such a path, so it is a 404 whatever the method (never a 405).
   */
  isUnroutedPath(path: string): boolean {
    for (const pattern of this.digitTemplates) {
      const m = pattern.exec(path);
      if (m !== null && m.slice(1).some((v) => !DIGITS.test(v))) return true;
    }
    return false;
  }

  /**
   * Registers a route declared as a value (ADR 0076): the body decoded with its codec (GNS3's 400
   * before the use case runs), the template's parameters decoded, the use case run, and its Either
   * rendered: the refusal through the one error mapping, the result as the route's answer says.
   */
  addRoute(route: AnyRoute, uc: UseCases, dialect: Dialect = {}): void {
    const run = async (x: Exchange, body: unknown): Promise<void> => {
      const request = dialect.admit === undefined ? { params: pathParameters(route.path, (name) => x.param(name)), body } : dialect.admit(x, { params: pathParameters(route.path, (name) => x.param(name)), body });
      if (request === undefined) return;
      const result = await route.run(uc, request);
      if (E.isLeft(result)) {
        // The same decode again answers the refusal as the exchange answers a body that does not fit.
        if (result.left._tag === "PartRefused") return void x.decode(result.left.codec, result.left.value);
        // The rest of an upload refused for its size is not read: the connection ends after the answer.
        if (result.left._tag === "PayloadTooLarge" && route.body !== undefined && isUpload(route.body)) x.ctx.set("Connection", "close");
        return x.fail(result.left);
      }
      render(x, route.answer, result.right);
    };
    const body = route.body;
    const options = { ...(dialect.exchange === undefined ? {} : { exchange: dialect.exchange }), declared: { answer: route.answer, refusals: route.refusals } };
    if (body !== undefined && isUpload(body)) this.add(route.name, route.method, route.path, (x) => run(x, upload(x)), { ...options, rawBody: true });
    else this.add(route.name, route.method, route.path, body === undefined ? (x) => run(x, undefined) : withBody(body, run), options);
  }

  /**
   * `name` says which handler answered, in the request log and the Koa router (`area.resource.action`,
   * e.g. `compute.ethernet_switch.nio.create`). `{name:.+}` is a parameter spanning several segments (a
   * file path); `rawBody` routes read the request stream themselves (file uploads), so no JSON is parsed
   * and no body limit applies; `declared` is what a route value says it answers and refuses (`addRoute`).
   */
  add(
    name: string,
    method: Method,
    template: string,
    handler: Handler,
    options: { readonly rawBody?: boolean; readonly exchange?: ExchangeOf; readonly declared?: Pick<RouteEntry, "answer" | "refusals"> } = {},
  ): void {
    const taken = this.routes.get(name);
    if (taken !== undefined) throw new Error(`route name ${name} is already given to ${taken.method} ${taken.template}`);
    this.routes.set(name, { name, method, template, body: BODY_CODECS.get(handler), rawBody: options.rawBody === true, ...options.declared });
    const digitParams = [...template.matchAll(/\{(\w+):\\d\+\}/g)].map((m) => m[1] as string);
    const path = template.replace(/\{(\w+):\.\+\}/g, "*$1").replace(/\{(\w+)(?::[^}]*)?\}/g, ":$1");
    if (digitParams.length > 0) {
      // Parameters are whole segments: capture the digit-only ones, let the others be anything.
      const source = template
        .split("/")
        .map((segment) => {
          const param = /^\{\w+(:.*)?\}$/.exec(segment);
          if (param === null) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
          return param[1] === undefined ? "[^/]+" : "([^/]+)";
        })
        .join("/");
      this.digitTemplates.push(new RegExp(`^${source}$`));
    }
    const middleware = async (ctx: Context, next: () => Promise<unknown>): Promise<void> => {
      const params = (ctx as unknown as { params: Record<string, string> }).params;
      if (digitParams.some((p) => !DIGITS.test(params[p] ?? ""))) {
        // Not this route after all: the path is unrouted (app.ts answers 404, never 405).
        await next();
        return;
      }
      // Marks the request as answered by a route (app.ts's JSON 404/405 leaves it alone) and names it.
      (ctx.state as { route?: string }).route = name;
      ctx.set("X-Route", template);
      // A generation of the API with its own error shapes (/v3/compute, ADR 0066) brings its own exchange.
      const exchange = options.exchange === undefined ? new Exchange(ctx, template) : options.exchange(ctx, template);
      if (options.rawBody === true) return handler(exchange);
      // Parsed here, after routing, so that a malformed body's 400 names its route as GNS3's does.
      if (await readBody(ctx, this.bodyParser, exchange)) await handler(exchange);
    };
    switch (method) {
      case "GET":
        this.router.get(name, path, middleware);
        break;
      case "POST":
        this.router.post(name, path, middleware);
        break;
      case "PUT":
        this.router.put(name, path, middleware);
        break;
      case "DELETE":
        this.router.delete(name, path, middleware);
        break;
    }
  }
}

/** The request's body as a file, read as it arrives. */
function upload(x: Exchange): Upload {
  const length = x.ctx.get("Content-Length");
  // Not destroyed when the upload stops early: the socket must still carry the answer.
  return { content: x.ctx.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>, declaredBytes: /^\d+$/.test(length) ? Number(length) : undefined };
}

/** A use case's result as its route answers it. */
function render(x: Exchange, answer: Answer<unknown>, value: unknown): void {
  switch (answer.kind) {
    case "json": {
      const body = answer.present(value);
      // An answer of an error status (a report that says "not ready") carries GNS3's message: the request log shows it.
      const message = (body as { message?: unknown } | null)?.message;
      if (answer.status >= 400 && typeof message === "string") noteAnswerMessage(x.ctx, message);
      return x.json(answer.status, body);
    }
    case "choice": {
      const chosen = answer.answers[answer.choose(value)];
      if (chosen === undefined) throw new Error(`no answer chosen for ${x.route}`);
      return render(x, chosen, value);
    }
    case "list":
      return x.jsonList(answer.status, value as readonly never[], answer.present);
    case "empty":
      return x.empty(answer.status);
    case "raw":
      x.ctx.status = answer.status;
      x.ctx.set("Content-Type", answer.contentTypeOf?.(value) ?? answer.contentType);
      x.ctx.body = answer.body(value);
  }
}

import Router from "@koa/router";
import type { Context, Middleware } from "koa";
import { Exchange } from "./exchange.js";
import { readBody } from "./request-body.js";

export type Method = "GET" | "POST" | "PUT" | "DELETE";
export type Handler = (x: Exchange) => Promise<void> | void;

const DIGITS = /^\d+$/;

/**
 * Registers routes by their GNS3 template (`/v2/compute/projects/{project_id}/...`,
 * `{port_number:\d+}`): the template is what X-Route and 400 bodies report; digit-only
 * parameters that are not digits fall through to the JSON 404, as aiohttp's router does.
 */
export class ApiRouter {
  readonly router = new Router({ strict: true, sensitive: true });

  constructor(private readonly bodyParser: Middleware) {}

  add(method: Method, template: string, handler: Handler): void {
    const digitParams = [...template.matchAll(/\{(\w+):\\d\+\}/g)].map((m) => m[1] as string);
    const path = template.replace(/\{(\w+)(?::[^}]*)?\}/g, ":$1");
    const middleware = async (ctx: Context, next: () => Promise<unknown>): Promise<void> => {
      const params = (ctx as unknown as { params: Record<string, string> }).params;
      if (digitParams.some((p) => !DIGITS.test(params[p] ?? ""))) {
        await next();
        return;
      }
      (ctx.state as { handled?: boolean }).handled = true;
      ctx.set("X-Route", template);
      const exchange = new Exchange(ctx, template);
      // Parsed here, after routing, so that a malformed body's 400 names its route as GNS3's does.
      if (await readBody(ctx, this.bodyParser, exchange)) await handler(exchange);
    };
    switch (method) {
      case "GET":
        this.router.get(path, middleware);
        break;
      case "POST":
        this.router.post(path, middleware);
        break;
      case "PUT":
        this.router.put(path, middleware);
        break;
      case "DELETE":
        this.router.delete(path, middleware);
        break;
    }
  }
}

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type Koa from "koa";
import { gns3Json } from "../../shared/gns3-json.js";

/** Where netemu's page is served (ADR 0094): a path of its own, outside GNS3's /v2 and /static. */
const PAGE_PATH = "/netemu/";

/**
 * Where the build put the page's bundle: `page/` beside the compiled `adapters/` (dist/page in the
 * package, build/src/page under the tests), written by tools/build-page.mjs.
 */
export const BUILT_PAGE_DIRECTORY = fileURLToPath(new URL("../../../page/", import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  map: "application/json",
  svg: "image/svg+xml",
  txt: "text/plain; charset=utf-8",
};

/** A file of the bundle by its name: one level, no dots in front, a known type (nothing else is read from disk). */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9]+)*\.(html|js|css|map|svg|txt)$/;

/**
 * The page is the bundle's own: scripts and styles of its origin only, no frame of another site; its
 * charts and graph set inline styles, which style-src must allow.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "no-cache",
};

function refuse(ctx: Koa.Context, status: number, message: string): void {
  ctx.status = status;
  ctx.set("Content-Type", "application/json");
  ctx.body = gns3Json({ message, status });
}

/**
 * Serves netemu's page under PAGE_PATH from `directory` (the built bundle). It runs behind the same
 * credential check as the API. `/netemu` is sent to `/netemu/`; a name that is not a file of the bundle,
 * or a bundle that was not built, answers JSON as every unrouted path does.
 */
export function servePage(directory: string = BUILT_PAGE_DIRECTORY): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== "/netemu" && !ctx.path.startsWith(PAGE_PATH)) return next();
    (ctx.state as { route?: string }).route = "netemu.page";
    if (ctx.method !== "GET" && ctx.method !== "HEAD") {
      ctx.set("Allow", "GET, HEAD");
      return refuse(ctx, 405, "405: Method Not Allowed");
    }
    if (ctx.path === "/netemu") return ctx.redirect(PAGE_PATH);
    const name = ctx.path === PAGE_PATH ? "index.html" : ctx.path.slice(PAGE_PATH.length);
    const kind = FILE_NAME.exec(name)?.[1];
    if (kind === undefined) return refuse(ctx, 404, "404: Not Found");
    let content: Buffer;
    try {
      content = await readFile(join(directory, name));
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
      if (!missing) throw err;
      return refuse(ctx, 404, name === "index.html" ? `netemu's page is not built in ${directory}: npm run build builds it` : "404: Not Found");
    }
    for (const [header, value] of Object.entries(SECURITY_HEADERS)) ctx.set(header, value);
    ctx.set("Content-Type", CONTENT_TYPES[kind]!);
    ctx.status = 200;
    ctx.body = content;
  };
}

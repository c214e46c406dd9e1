import { createReadStream } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { extname, join, sep } from "node:path";
import type Koa from "koa";
import { gns3Json } from "../shared/gns3-json.js";

/** Where GNS3 serves its web UI, and where its `GET /` sends the browser. */
const WEB_UI_PREFIX = "/static/web-ui/";
const WEB_UI_HOME = "/static/web-ui/bundled";

/** The content types of what a compiled Angular application holds; GNS3 sends `.js` as application/javascript. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "application/javascript; charset=utf-8",
  ".mjs": "application/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".eot": "application/vnd.ms-fontobject",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
};

export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
}

/** What the static route found for a path under /static/web-ui/. */
type WebUiFile =
  | { readonly kind: "file"; readonly path: string; readonly size: number }
  /** The path leads out of the directory (`..`, encoded or not, or a symbolic link pointing out). */
  | { readonly kind: "outside" }
  /** The path is not valid percent-encoding, or holds a NUL. */
  | { readonly kind: "malformed" };

function isWithin(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function regularFile(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file a request path names inside `root`, or index.html for any path the UI does not have (the
 * application routes in the browser, as GNS3's handler does). Symbolic links are followed only while
 * they stay inside the directory.
 */
async function findWebUiFile(root: string, requestPath: string): Promise<WebUiFile> {
  let relative: string;
  try {
    relative = decodeURIComponent(requestPath);
  } catch {
    return { kind: "malformed" };
  }
  if (relative.includes("\0")) return { kind: "malformed" };
  // `..` as a segment (after decoding, with either slash) is refused outright, as GNS3 refuses it (403).
  if (relative.split(/[\\/]/).includes("..")) return { kind: "outside" };
  const realRoot = await realpath(root);
  const candidate = join(realRoot, relative);
  if (!isWithin(realRoot, candidate)) return { kind: "outside" };
  let real: string | undefined;
  try {
    real = await realpath(candidate);
  } catch {
    real = undefined;
  }
  if (real !== undefined) {
    if (!isWithin(realRoot, real)) return { kind: "outside" };
    const size = await regularFile(real);
    if (size !== undefined) return { kind: "file", path: real, size };
  }
  const index = join(realRoot, "index.html");
  const size = await regularFile(index);
  // The directory was checked at start; an index.html removed since is the operator's to restore.
  return size === undefined ? { kind: "outside" } : { kind: "file", path: index, size };
}

function refuse(ctx: Koa.Context, status: number, message: string): void {
  ctx.status = status;
  ctx.set("Content-Type", "application/json");
  ctx.body = gns3Json({ message, status });
  (ctx.state as { route?: string }).route = "web-ui.static";
}

/** The answer of /static/web-ui/ when no directory was given: how to give one. */
export const WEB_UI_NOT_CONFIGURED =
  "The GNS3 web UI is not served: netemu does not ship it (it is GPL). Start netemu with --web-ui DIR " +
  "(NETEMU_WEB_UI, or web_ui in [Server] of gns3_server.conf), DIR holding the compiled GNS3 web UI 2.2 (its index.html)";

/**
 * GNS3's web UI routes (ADR 0092): `GET /` answers 302 to /static/web-ui/bundled, and
 * /static/web-ui/{file} serves the directory's files, index.html for any other path. Without a
 * directory, /static/web-ui/ says how to give one. It sits behind --auth, as GNS3 2.2's route does.
 */
export function webUiRoutes(root: string | undefined): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== "GET") return next();
    if (ctx.path === "/" && root !== undefined) {
      (ctx.state as { route?: string }).route = "web-ui.index";
      ctx.redirect(WEB_UI_HOME);
      return;
    }
    if (!ctx.path.startsWith(WEB_UI_PREFIX) && ctx.path !== WEB_UI_PREFIX.slice(0, -1)) return next();
    if (root === undefined) return refuse(ctx, 404, WEB_UI_NOT_CONFIGURED);
    const found = await findWebUiFile(root, ctx.path.slice(WEB_UI_PREFIX.length));
    if (found.kind === "malformed") return refuse(ctx, 400, `The path ${ctx.path} is not a valid file name`);
    if (found.kind === "outside") return refuse(ctx, 403, "403: Forbidden");
    (ctx.state as { route?: string }).route = "web-ui.static";
    ctx.status = 200;
    ctx.set("Content-Type", contentTypeOf(found.path));
    ctx.length = found.size;
    // index.html names the hashed bundles; it must be read again after the directory is replaced.
    ctx.set("Cache-Control", found.path.endsWith("index.html") ? "no-cache" : "public, max-age=3600");
    ctx.body = createReadStream(found.path);
  };
}

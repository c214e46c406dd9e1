#!/usr/bin/env node
// Builds netemu's page (ADR 0094): web/page bundled by esbuild, with its HTML and styles, into
// <out>/ (default dist/page). Nothing is fetched at run time: cytoscape and uPlot are in page.js.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = resolve(root, process.argv[2] ?? "dist/page");
const source = join(root, "web", "page");
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(source, "main.ts")],
  outfile: join(out, "page.js"),
  bundle: true,
  format: "esm",
  target: ["chrome110", "firefox110", "safari16"],
  minify: true,
  sourcemap: true,
  legalComments: "linked",
  logLevel: "warning",
});
copyFileSync(join(source, "index.html"), join(out, "index.html"));
copyFileSync(join(source, "page.css"), join(out, "page.css"));
const require = createRequire(import.meta.url);
copyFileSync(join(dirname(require.resolve("uplot")), "uPlot.min.css"), join(out, "uPlot.min.css"));
// On stderr: `npm pack --json` runs this build (prepack) and its stdout must stay JSON.
console.error(`netemu's page built into ${out}`);

#!/usr/bin/env node
// netemu's command. It lives in git, outside dist/, so that it exists in a fresh clone before the first
// build: npx links a package's bins once, when it first meets the directory, and a bin missing then (dist/
// not built yet, `npm start &` still building) stays missing for that directory ("sh: 1: netemu: not
// found" ever after). The command itself is dist/cli.js, which the build writes (ADR 0089).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(`netemu: not built yet (no ${fileURLToPath(cli)}): run \`npm run build\`, or \`npm start\`, which builds first\n`);
  process.exit(2);
}
await import(cli.href);

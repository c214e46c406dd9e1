import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BUILT_PAGE_DIRECTORY } from "../../src/adapters/http/page/page-files.js";

/**
 * Builds netemu's page beside the compiled code (build/src/page) when `npm test`'s pretest has not:
 * a test run as one file after `npx tsc` finds it there as the package finds dist/page.
 */
export function ensurePageBuilt(): string {
  if (!existsSync(join(BUILT_PAGE_DIRECTORY, "index.html")) || !existsSync(join(BUILT_PAGE_DIRECTORY, "page.js"))) {
    execFileSync(process.execPath, ["tools/build-page.mjs", BUILT_PAGE_DIRECTORY], { stdio: "ignore", timeout: 60_000 });
  }
  return BUILT_PAGE_DIRECTORY;
}

import { existsSync } from "node:fs";
import { chromium, type Browser, type BrowserServer, type Page } from "playwright-core";

/** Debian's chromium (package `chromium`); another build with NETEMU_CHROMIUM. Nothing is downloaded. */
export const CHROMIUM_PATH = process.env["NETEMU_CHROMIUM"] ?? "/usr/bin/chromium";

/**
 * Skips the test (saying why) when Debian's chromium is not installed; under CI a missing browser
 * fails instead, as a missing Debian package does elsewhere.
 */
export function requireChromium(ctx: Mocha.Context): void {
  if (existsSync(CHROMIUM_PATH)) return;
  const message = `${CHROMIUM_PATH} is not installed: apt-get update && apt-get install -y chromium`;
  if (process.env["CI"] === "true") throw new Error(`${message} (CI=true: a missing tool fails the run)`);
  console.log(`      skipped: ${message}`);
  ctx.skip();
}

/**
 * The switches that keep a headless chromium off the network this machine does not have: without
 * them it looks up Google's hosts and opens connections at every start (refused here, many at once).
 */
const OFFLINE_FLAGS = [
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-domain-reliability",
  "--no-default-browser-check",
];

/**
 * One headless chromium for a test: started as its own process (its pid known, so it is ended by
 * pid if closing it does not end it), driven through playwright-core over the DevTools protocol.
 */
export class HeadlessChromium {
  private constructor(
    private readonly server: BrowserServer,
    readonly browser: Browser,
  ) {}

  static async launch(timeoutMs = 30_000): Promise<HeadlessChromium> {
    const server = await chromium.launchServer({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: OFFLINE_FLAGS,
      timeout: timeoutMs,
      // Playwright's own signal handlers would outlive the test; mocha's process ends the browser via close().
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    try {
      const browser = await chromium.connect(server.wsEndpoint(), { timeout: timeoutMs });
      return new HeadlessChromium(server, browser);
    } catch (err) {
      await server.kill();
      throw err;
    }
  }

  /** The browser process's pid. */
  get pid(): number {
    return this.server.process().pid ?? -1;
  }

  /** A page in a fresh context (its own storage), errors on the page's console collected. */
  async newPage(viewport = { width: 1400, height: 900 }): Promise<{ page: Page; consoleErrors: string[] }> {
    const context = await this.browser.newContext({ viewport });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    return { page, consoleErrors };
  }

  /** Closes the browser; if its process is still there 5 s later, it is killed by its pid. */
  async close(): Promise<void> {
    const child = this.server.process();
    const exited = child.exitCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once("exit", () => r()));
    await Promise.race([this.browser.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
    await Promise.race([this.server.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(child.pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  }
}

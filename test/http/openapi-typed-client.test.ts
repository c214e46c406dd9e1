import { expect } from "chai";
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { OPENAPI_PATH } from "../../src/adapters/http/openapi/document.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";

/** The repository's root, from build/test/http. */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const GENERATE = join(ROOT, "tools/openapi-client-gen/generate.mjs");
const TSC = join(ROOT, "node_modules/.bin/tsc");
const CLIENT = join(ROOT, "test/fixtures/openapi-client/client.ts");

/** Generation and compilation take seconds, many on a loaded machine: bounded, each step. */
const STEP_MS = 120_000;

function run(command: string, args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: STEP_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, output: `${stdout}${stderr}${error?.killed === true ? "\n(killed: took longer than the bound)" : ""}` });
    });
  });
}

/**
 * The two aliases openapi-typescript writes for every document, whatever it holds (it has no
 * webhooks and no $defs): no field of any request or answer.
 */
const EMPTY_ROOT_ALIASES = ["export type webhooks = Record<string, never>;", "export type $defs = Record<string, never>;"];

/**
 * The fields that come out `unknown`, each because the API takes or gives any JSON there: what a
 * client keeps for itself (a project's supplier and variables), the read-only fields of a node or a
 * link that clients send back with the object they read and that are ignored, a 400's echo of the
 * request, an ignored compute project path, /v3's FastAPI detail. None is a field of an answer netemu
 * builds.
 */
const ANY_JSON_FIELDS = new Set([
  "supplier",
  "variables",
  "path",
  "request",
  "loc",
  "input",
  // Read-only fields of a node sent back on PUT (and POST), ignored.
  "command_line",
  "console_host",
  "custom_adapters",
  "first_port_name",
  "height",
  "node_directory",
  "port_name_format",
  "port_segment_size",
  "ports",
  "status",
  "template_id",
  "width",
  "ports_statistics",
  // Read-only fields of a link sent back on PUT (and POST), ignored.
  "link_id",
  "project_id",
  "capturing",
  "capture_compute_id",
  "capture_file_name",
  "capture_file_path",
  // Read-only fields of a link end sent back on PUT, ignored (ADR 0102).
  "schedule_set_at",
  "schedule_now",
]);

describe("a TypeScript client generated from the OpenAPI document with openapi-typescript", function () {
  this.timeout(4 * STEP_MS);
  let s: TestServer;
  let dir: string;
  let types: string;

  before(async () => {
    s = await startTestServer();
    dir = await mkdtemp(join(tmpdir(), "netemu-typed-client-"));
    const document = await s.request("GET", OPENAPI_PATH);
    expect(document.status).to.equal(200);
    await writeFile(join(dir, "openapi.json"), document.text);
    const generated = await run(process.execPath, [GENERATE, join(dir, "openapi.json"), join(dir, "netemu-api.d.ts")]);
    expect(generated.code, generated.output).to.equal(0);
    types = await readFile(join(dir, "netemu-api.d.ts"), "utf8");
  });
  after(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("has no type that takes nothing: no Record<string, never> where a request or an answer has an object", () => {
    const fields = types.split("\n").filter((line) => !EMPTY_ROOT_ALIASES.includes(line.trim()));
    expect(fields.filter((line) => line.includes("Record<string, never>"))).to.deep.equal([]);
    // The generated file is the real one: the aliases above are there, and the answers' types.
    for (const alias of EMPTY_ROOT_ALIASES) expect(types).to.include(alias);
    expect(types).to.include("packet_loss?: number;");
  });

  it("leaves a field unknown only where the API takes any JSON", () => {
    const unknown = new Set([...types.matchAll(/^\s*"?([\w$]+)"?\??: unknown;$/gm)].map((m) => m[1] as string));
    expect([...unknown].filter((name) => !ANY_JSON_FIELDS.has(name))).to.deep.equal([]);
  });

  it("compiles, strict and with no cast, a client that builds a lab and reads every counter of a port, and it runs against the server", async () => {
    await copyFile(CLIENT, join(dir, "client.ts"));
    await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const compilerOptions = {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      types: ["node"],
      typeRoots: [join(ROOT, "node_modules/@types")],
      outDir: join(dir, "out"),
    };
    await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, files: ["client.ts", "netemu-api.d.ts"] }));
    const checked = await run(TSC, ["-p", join(dir, "tsconfig.json")]);
    expect(checked.code, checked.output).to.equal(0);
    const code = (await readFile(CLIENT, "utf8")).replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    expect(code, "a cast in the client").to.not.match(/\bas\s+(?!const\b)[\w{[(]/);
    // The same program, emitted and run: the types it compiled against are what the server answers.
    await writeFile(join(dir, "tsconfig.emit.json"), JSON.stringify({ compilerOptions, files: ["client.ts", "netemu-api.d.ts"] }));
    const emitted = await run(TSC, ["-p", join(dir, "tsconfig.emit.json")]);
    expect(emitted.code, emitted.output).to.equal(0);
    const ran = await run(process.execPath, [join(dir, "out/client.js"), s.url]);
    expect(ran.code, ran.output).to.equal(0);
    // Both ends of the link have counters: 5 counters, 16 drop reasons and 2 × 3 queue delay figures each (no CoDel queue), from the node and the link.
    expect(JSON.parse(ran.output)).to.deep.equal({ counters: 27 * 3 });
  });
});

// Builds the batched UDP addon (docs/adr/0068) with the C compiler and the headers of the running
// Node, nothing downloaded: node-gyp would fetch a headers tarball, but a Node installed from a
// distribution package or an official tarball ships its headers in <prefix>/include/node.
// Never fails the install: without a compiler or headers netemu uses node:dgram and says so at start.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "build", "udp_batch.node");
const candidates = [
  process.env.NETEMU_NODE_HEADERS,
  process.env.npm_config_nodedir && join(process.env.npm_config_nodedir, "include", "node"),
  resolve(dirname(process.execPath), "..", "include", "node"),
  "/usr/include/node",
  "/usr/local/include/node",
].filter(Boolean);
const headers = candidates.find((dir) => existsSync(join(dir, "node_api.h")) && existsSync(join(dir, "uv.h")));
const strict = process.argv.includes("--strict");

function giveUp(reason) {
  console.warn(`netemu: batched UDP addon not built (${reason}); the node:dgram path will be used`);
  process.exit(strict ? 1 : 0);
}

if (process.platform !== "linux") giveUp(`recvmmsg/sendmmsg are Linux calls, this is ${process.platform}`);
if (headers === undefined) giveUp(`no Node headers (node_api.h, uv.h) in ${candidates.join(", ")}: Debian's own nodejs has them in libnode-dev; or set NETEMU_NODE_HEADERS`);
const cc = process.env.CC ?? "cc";
mkdirSync(dirname(out), { recursive: true });
const args = ["-O2", "-Wall", "-Wextra", "-shared", "-fPIC", "-pthread", "-fvisibility=hidden", `-I${headers}`, "-o", out, join(here, "udp-batch.c")];
const r = spawnSync(cc, args, { stdio: "inherit" });
if (r.error !== undefined) giveUp(`${cc}: ${r.error.message} (no C compiler? Debian: apt-get install gcc libc6-dev)`);
if (r.status !== 0) giveUp(`${cc} exited with ${r.status}`);
console.log(`netemu: batched UDP addon built: ${out}`);

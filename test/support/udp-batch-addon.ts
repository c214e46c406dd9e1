import { loadUdpBatchAddon, type UdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";

/** What a machine needs for the batched datagram path (native/build.mjs), said when a test skips. */
export const FAST_PATH_NEEDS =
  "Linux, a C compiler (cc; Debian: build-essential) and Node's headers node_api.h and uv.h (shipped with NodeSource's nodejs and the official tarballs; Debian's own nodejs: libnode-dev), then npm run build:native";

/**
 * The batched UDP addon, or a skip that says what to install. Under CI=true the addon must have been
 * built (.ci/run runs npm run build:native): its absence fails the test instead.
 */
export function batchedAddonOrSkip(ctx: Mocha.Context): UdpBatchAddon {
  try {
    return loadUdpBatchAddon();
  } catch (err) {
    const message = `batched UDP addon not available: ${(err as Error).message}`;
    if (process.env["CI"] === "true") throw new Error(`${message} (CI=true: the batched path must be built; needs ${FAST_PATH_NEEDS})`);
    console.log(`      skipped: ${message}; needs ${FAST_PATH_NEEDS}`);
    ctx.skip();
  }
}

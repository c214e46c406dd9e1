/**
 * The server of the slow-clients benchmark: netemu (createNetemu().listen) on 127.0.0.1, alone in
 * its process so that its resident memory is netemu's own.
 */
import "reflect-metadata";
import { createNetemu } from "../src/adapters/composition-root.js";
import { serveIpc } from "./lib/util.js";

const netemu = createNetemu({ logLevel: "error" });

serveIpc(
  {
    async start() {
      const listening = await netemu.listen(0, "127.0.0.1");
      return { url: listening.url };
    },
    rss: () => process.memoryUsage().rss,
  },
  () => netemu.shutdown(),
);

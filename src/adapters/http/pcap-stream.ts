import { access } from "node:fs/promises";
import * as E from "fp-ts/lib/Either.js";
import type { ActiveCapture } from "../../application/use-cases/compute/locate-capture.js";
import type { NetemuError } from "../../application/errors.js";
import type { Exchange } from "./exchange.js";
import { followFile } from "./follow-file.js";

/** Streams the capture file as it grows (`application/vnd.tcpdump.pcap`), until the capture stops. */
export async function streamCapture(x: Exchange, found: E.Either<NetemuError, ActiveCapture>): Promise<void> {
  if (E.isLeft(found)) return x.fail(found.left);
  try {
    await access(found.right.filePath);
  } catch {
    return x.fail({ _tag: "FileNotFound" });
  }
  x.ctx.status = 200;
  x.ctx.set("Content-Type", "application/vnd.tcpdump.pcap");
  x.ctx.body = followFile(found.right.filePath, found.right.isActive);
}

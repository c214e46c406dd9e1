import { access } from "node:fs/promises";
import * as E from "fp-ts/lib/Either.js";
import type { ActiveCapture } from "../../application/use-cases/compute/locate-capture.js";
import type { ErrorOf, NetemuError } from "../../application/errors.js";
import type { Exchange } from "./exchange.js";
import { followFile } from "./follow-file.js";
import type { Readable } from "node:stream";

/** The capture's file, once it exists: FileNotFound until the capture wrote it (GNS3's 404). */
export async function captureFile<L>(found: E.Either<L, ActiveCapture>): Promise<E.Either<L | ErrorOf<"FileNotFound">, ActiveCapture>> {
  if (E.isLeft(found)) return found;
  try {
    await access(found.right.filePath);
  } catch {
    return E.left({ _tag: "FileNotFound" });
  }
  return found;
}

/** The capture file as it grows, until the capture stops. */
export function captureStream(capture: ActiveCapture): Readable {
  return followFile(capture.filePath, capture.isActive);
}

/** What a capture stream is sent as. */
export const PCAP = "application/vnd.tcpdump.pcap";

/** Streams the capture file as it grows (`application/vnd.tcpdump.pcap`), until the capture stops. */
export async function streamCapture(x: Exchange, found: E.Either<NetemuError, ActiveCapture>): Promise<void> {
  const file = await captureFile(found);
  if (E.isLeft(file)) return x.fail(file.left);
  x.ctx.status = 200;
  x.ctx.set("Content-Type", PCAP);
  x.ctx.body = captureStream(file.right);
}

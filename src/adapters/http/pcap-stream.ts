import { access } from "node:fs/promises";
import * as E from "fp-ts/lib/Either.js";
import type { ActiveCapture } from "../../application/use-cases/compute/locate-capture.js";
import type { ErrorOf } from "../../application/errors.js";
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

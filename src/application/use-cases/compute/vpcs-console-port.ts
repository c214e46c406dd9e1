import * as E from "fp-ts/lib/Either.js";
import type { ConsoleType } from "../../../domain/switching/ethernet-switch.js";
import { readInteger } from "../../../domain/configuration/read.js";
import type { ConsolePortPool } from "../../ports/host-processes.js";
import type { ErrorOf } from "../../errors.js";

/** The console types a VPCS takes (GNS3's). */
export const VPCS_CONSOLE_TYPES = ["telnet", "none"] as const;

/** The console port asked for (claimed), or one of the range, or none for console_type none. */
export async function vpcsConsolePort(
  consoles: ConsolePortPool,
  asked: number | null | undefined,
  consoleType: ConsoleType,
): Promise<E.Either<ErrorOf<"ConsolePortUnavailable" | "InvalidConfiguration">, number | null>> {
  if (consoleType === "none") return E.right(null);
  if (asked !== undefined && asked !== null) {
    const port = readInteger(asked, "console", 1, 65_535);
    if (E.isLeft(port)) return port;
    return (await consoles.claim(port.right)) ? E.right(port.right) : E.left({ _tag: "ConsolePortUnavailable", port: port.right, ...consoles.range });
  }
  const reserved = await consoles.reserve();
  return E.isLeft(reserved) ? E.left({ _tag: "ConsolePortUnavailable", ...reserved.left }) : E.right(reserved.right);
}

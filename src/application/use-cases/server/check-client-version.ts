import { inject, injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import { checkClientVersion } from "../../../domain/server/version.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";

/** What CheckClientVersion can answer instead of its result. */
export const CHECK_CLIENT_VERSION_REFUSALS = ["VersionMismatch"] as const;
export type CheckClientVersionError = Refusal<typeof CHECK_CLIENT_VERSION_REFUSALS>;

@injectable()
export class CheckClientVersion {
  constructor(@inject(TOKENS.ServerSettings) private readonly settings: ServerSettings) {}

  execute({ version: clientVersion }: { readonly version: string }): E.Either<CheckClientVersionError, string> {
    return checkClientVersion(clientVersion, this.settings.gns3Version);
  }
}

import { inject, injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import { checkClientVersion } from "../../../domain/server/version.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import type { NetemuError } from "../../errors.js";

@injectable()
export class CheckClientVersion {
  constructor(@inject(TOKENS.ServerSettings) private readonly settings: ServerSettings) {}

  execute(clientVersion: string): E.Either<NetemuError, string> {
    return checkClientVersion(clientVersion, this.settings.gns3Version);
  }
}

import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Lifecycle } from "../../ports/system.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";

/** What ShutdownServer can answer instead of its result. */
export const SHUTDOWN_SERVER_REFUSALS = ["NotLocalServer"] as const;
export type ShutdownServerError = Refusal<typeof SHUTDOWN_SERVER_REFUSALS>;

/** Only a local server may be stopped over the API; the stop itself runs after the answer. */
@injectable()
export class ShutdownServer {
  constructor(
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.Lifecycle) private readonly lifecycle: Lifecycle,
  ) {}

  execute(): E.Either<ShutdownServerError, void> {
    if (!this.settings.local) return E.left({ _tag: "NotLocalServer", action: "stop" });
    this.lifecycle.requestShutdown();
    return E.right(undefined);
  }
}

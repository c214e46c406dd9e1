import { inject, injectable } from "tsyringe";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";

export interface ServerVersion {
  readonly version: string;
  readonly local: boolean;
}

@injectable()
export class GetServerVersion {
  constructor(@inject(TOKENS.ServerSettings) private readonly settings: ServerSettings) {}

  execute(): ServerVersion {
    return { version: this.settings.gns3Version, local: this.settings.local };
  }
}

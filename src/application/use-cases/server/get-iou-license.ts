import { inject, injectable } from "tsyringe";
import type { IouLicense } from "../../../domain/server/iou-license.js";
import type { SettingsStore } from "../../ports/settings-store.js";
import { TOKENS } from "../../ports/tokens.js";

@injectable()
export class GetIouLicense {
  constructor(@inject(TOKENS.SettingsStore) private readonly store: SettingsStore) {}

  execute(): Promise<IouLicense> {
    return this.store.loadIouLicense();
  }
}

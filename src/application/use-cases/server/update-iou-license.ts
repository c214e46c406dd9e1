import { inject, injectable } from "tsyringe";
import { type IouLicense, mergeIouLicense } from "../../../domain/server/iou-license.js";
import type { SettingsStore } from "../../ports/settings-store.js";
import { TOKENS } from "../../ports/tokens.js";
import { KeyedLock } from "../../keyed-lock.js";

/** Merges the given keys into the stored settings and persists them. */
@injectable()
export class UpdateIouLicense {
  constructor(
    @inject(TOKENS.SettingsStore) private readonly store: SettingsStore,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute(update: Partial<IouLicense>): Promise<IouLicense> {
    return this.lock.run("settings:iou_license", async () => {
      const merged = mergeIouLicense(await this.store.loadIouLicense(), update);
      await this.store.saveIouLicense(merged);
      return merged;
    });
  }
}

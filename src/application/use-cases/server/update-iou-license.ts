import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type IouLicense, mergeIouLicense } from "../../../domain/server/iou-license.js";
import type { SettingsStore } from "../../ports/settings-store.js";
import { TOKENS } from "../../ports/tokens.js";
import { KeyedLock } from "../../keyed-lock.js";
import type { Refusal } from "../../errors.js";

/** What UpdateIouLicense can answer instead of its result: nothing was changed. */
export const UPDATE_IOU_LICENSE_REFUSALS = ["SettingsFileFailed"] as const;
export type UpdateIouLicenseError = Refusal<typeof UPDATE_IOU_LICENSE_REFUSALS>;

/** Merges the given keys into the stored settings and persists them. */
@injectable()
export class UpdateIouLicense {
  constructor(
    @inject(TOKENS.SettingsStore) private readonly store: SettingsStore,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute(update: Partial<IouLicense>): Promise<E.Either<UpdateIouLicenseError, IouLicense>> {
    return this.lock.run("settings:iou_license", async () => {
      const current = await this.store.loadIouLicense();
      if (E.isLeft(current)) return current;
      const merged = mergeIouLicense(current.right, update);
      const saved = await this.store.saveIouLicense(merged);
      return E.isLeft(saved) ? saved : E.right(merged);
    });
  }
}

import { inject, injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { IouLicense } from "../../../domain/server/iou-license.js";
import type { SettingsStore } from "../../ports/settings-store.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";

/** What GetIouLicense can answer instead of its result. */
export const GET_IOU_LICENSE_REFUSALS = ["SettingsFileFailed"] as const;
export type GetIouLicenseError = Refusal<typeof GET_IOU_LICENSE_REFUSALS>;

@injectable()
export class GetIouLicense {
  constructor(@inject(TOKENS.SettingsStore) private readonly store: SettingsStore) {}

  execute(): Promise<E.Either<GetIouLicenseError, IouLicense>> {
    return this.store.loadIouLicense();
  }
}

import type * as E from "fp-ts/lib/Either.js";
import type { IouLicense } from "../../domain/server/iou-license.js";
import type { ErrorOf } from "../errors.js";

/** The controller settings file (gns3_controller.conf), written atomically. */
export interface SettingsStore {
  loadIouLicense(): Promise<E.Either<ErrorOf<"SettingsFileFailed">, IouLicense>>;
  saveIouLicense(license: IouLicense): Promise<E.Either<ErrorOf<"SettingsFileFailed">, void>>;
}

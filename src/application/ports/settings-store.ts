import type { IouLicense } from "../../domain/server/iou-license.js";

/** The controller settings file (gns3_controller.conf), written atomically. */
export interface SettingsStore {
  loadIouLicense(): Promise<IouLicense>;
  saveIouLicense(license: IouLicense): Promise<void>;
}

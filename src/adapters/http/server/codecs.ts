import { jsonBoolean, jsonClosedObject, jsonString } from "../schema.js";

/** VERSION_SCHEMA: `local` is accepted and ignored. */
export const VersionBody = jsonClosedObject("Version", { version: jsonString() }, { local: jsonBoolean });

/** IOU_LICENSE_SETTINGS_SCHEMA, which GNS3 2.2 declares but never applies; netemu applies it. */
export const IouLicenseBody = jsonClosedObject("IouLicense", {}, { iourc_content: jsonString(), license_check: jsonBoolean });

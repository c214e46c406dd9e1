import { jsonBoolean, jsonClosedObject, jsonObject, jsonString } from "../schema.js";

/** VERSION_SCHEMA: `local` is accepted and ignored. */
export const VersionBody = jsonClosedObject("Version", { version: jsonString() }, { local: jsonBoolean });

/** IOU_LICENSE_SETTINGS_SCHEMA, which GNS3 2.2 declares but never applies; netemu applies it. */
export const IouLicenseBody = jsonClosedObject("IouLicense", {}, { iourc_content: jsonString(), license_check: jsonBoolean });

/** A port as the GNS3 GUI names it: project, node and port names (or ids, a port number) (ADR 0067). */
const portNames = {
  project: jsonString({ minLength: 1, maxLength: 1024 }),
  node: jsonString({ minLength: 1, maxLength: 1024 }),
  port: jsonString({ minLength: 1, maxLength: 1024 }),
};

/** PUT /v2/netemu/impairments: one port's impairments; a direction left out keeps what it had, `{}` clears it. */
export const ImpairmentBody = jsonClosedObject("Impairment", portNames, { filters_in: jsonObject, filters_out: jsonObject, schedule_in: jsonObject, schedule_out: jsonObject });

/** GET and DELETE /v2/netemu/impairments (body or query string): which impairments, every one when empty. */
export const ImpairmentSelectionBody = jsonClosedObject("ImpairmentSelection", {}, portNames);

import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ServerVersion } from "../../../application/use-cases/server/get-server-version.js";
import { CHECK_CLIENT_VERSION_REFUSALS } from "../../../application/use-cases/server/check-client-version.js";
import { GET_IOU_LICENSE_REFUSALS } from "../../../application/use-cases/server/get-iou-license.js";
import { UPDATE_IOU_LICENSE_REFUSALS } from "../../../application/use-cases/server/update-iou-license.js";
import { WRITE_DEBUG_BUNDLE_REFUSALS } from "../../../application/use-cases/server/write-debug-bundle.js";
import { SHUTDOWN_SERVER_REFUSALS } from "../../../application/use-cases/server/shutdown-server.js";
import type { IouLicense } from "../../../domain/server/iou-license.js";
import type { ApiRouter } from "../api-router.js";
import { empty, json, route } from "../route.js";
import { IouLicenseBody, VersionBody } from "./codecs.js";
import { IouLicenseAnswer, VersionAnswer, VersionCheckedAnswer } from "./answers.js";

const presentVersion = (v: ServerVersion) => ({ local: v.local, version: v.version });
const presentLicense = (license: IouLicense) => ({ iourc_content: license.iourc_content, license_check: license.license_check });

/** GNS3's server routes: its version (also the compute's), the client's version check, IOU license settings, debug bundle, shutdown. */
export const SERVER_ROUTES = {
  version: route({
    name: "server.version",
    method: "GET",
    path: "/v2/version",
    refusals: [],
    run: async (uc) => E.right(uc.getServerVersion.execute()),
    answer: json(200, VersionAnswer, presentVersion),
  }),
  computeVersion: route({
    name: "compute.version",
    method: "GET",
    path: "/v2/compute/version",
    refusals: [],
    run: async (uc) => E.right(uc.getServerVersion.execute()),
    answer: json(200, VersionAnswer, presentVersion),
  }),
  checkVersion: route({
    name: "server.check_version",
    method: "POST",
    path: "/v2/version",
    body: VersionBody,
    refusals: CHECK_CLIENT_VERSION_REFUSALS,
    run: async (uc, { body }) => uc.checkClientVersion.execute({ version: body.version }),
    answer: json(200, VersionCheckedAnswer, (version: string) => ({ version })),
  }),
  iouLicense: route({
    name: "server.iou_license.get",
    method: "GET",
    path: "/v2/iou_license",
    refusals: GET_IOU_LICENSE_REFUSALS,
    run: (uc) => uc.getIouLicense.execute(),
    answer: json(200, IouLicenseAnswer, presentLicense),
  }),
  updateIouLicense: route({
    name: "server.iou_license.update",
    method: "PUT",
    path: "/v2/iou_license",
    body: IouLicenseBody,
    refusals: UPDATE_IOU_LICENSE_REFUSALS,
    run: (uc, { body }) => uc.updateIouLicense.execute(body),
    answer: json(201, IouLicenseAnswer, presentLicense),
  }),
  debug: route({
    name: "server.debug",
    method: "POST",
    path: "/v2/debug",
    refusals: WRITE_DEBUG_BUNDLE_REFUSALS,
    run: (uc) => uc.writeDebugBundle.execute(),
    answer: empty(201),
  }),
  shutdown: route({
    name: "server.shutdown",
    method: "POST",
    path: "/v2/shutdown",
    refusals: SHUTDOWN_SERVER_REFUSALS,
    run: async (uc) => uc.shutdownServer.execute(),
    answer: empty(201),
  }),
};

export function registerServerRoutes(api: ApiRouter, uc: UseCases): void {
  const r = SERVER_ROUTES;
  for (const value of [r.version, r.computeVersion, r.checkVersion, r.iouLicense, r.updateIouLicense, r.debug, r.shutdown]) api.addRoute(value, uc);
}

import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { IouLicenseBody, VersionBody } from "./codecs.js";

export function registerServerRoutes(api: ApiRouter, uc: UseCases): void {
  for (const [name, template] of [
    ["server.version", "/v2/version"],
    ["compute.version", "/v2/compute/version"],
  ] as const) {
    api.add(name, "GET", template, (x) => x.json(200, uc.getServerVersion.execute()));
  }

  api.add(
    "server.check_version",
    "POST",
    "/v2/version",
    withBody(VersionBody, (x, body) => x.respond(uc.checkClientVersion.execute({ version: body.version }), 200, (version) => ({ version }))),
  );

  api.add("server.iou_license.get", "GET", "/v2/iou_license", async (x) => x.respond(await uc.getIouLicense.execute(), 200, (license) => license));

  api.add(
    "server.iou_license.update",
    "PUT",
    "/v2/iou_license",
    withBody(IouLicenseBody, async (x, body) => x.respond(await uc.updateIouLicense.execute(body), 201, (license) => license)),
  );

  api.add("server.debug", "POST", "/v2/debug", async (x) => {
    const written = await uc.writeDebugBundle.execute();
    if (E.isLeft(written)) x.fail(written.left);
    else x.empty(201);
  });

  api.add("server.shutdown", "POST", "/v2/shutdown", (x) => {
    const result = uc.shutdownServer.execute();
    if (E.isLeft(result)) x.fail(result.left);
    else x.empty(201);
  });
}

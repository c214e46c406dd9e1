import type { NetemuError } from "../../../application/errors.js";
import { toHttpError } from "../error-mapping.js";

/** One entry of FastAPI's validation answer: where the input is wrong, and why. */
export interface V3ValidationDetail {
  readonly type: string;
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly input: unknown;
}

/**
 * An expected failure as a GNS3 3.x compute answers it: `{"message"}` (with `exception` on a node
 * error), or FastAPI's 422 `{"detail": [...]}` for input that does not validate.
 */
export type V3HttpError =
  | { readonly status: number; readonly message: string; readonly exception?: string }
  | { readonly status: 422; readonly detail: readonly V3ValidationDetail[] };

/**
 * The one place where an expected failure becomes a /v3/compute answer (ADR 0066). The messages and
 * statuses are v2's (both generations share the use cases) except where 3.x answers otherwise: a
 * path id that is not a UUID is FastAPI's 422, not GNS3 2.2's 400.
 */
export function toV3HttpError(error: NetemuError): V3HttpError {
  if (error._tag === "InvalidUuid") {
    const where = error.what === "Project" ? "project_id" : "node_id";
    return { status: 422, detail: [{ type: "uuid_parsing", loc: ["path", where], msg: "Input should be a valid UUID", input: error.id }] };
  }
  return toHttpError(error);
}

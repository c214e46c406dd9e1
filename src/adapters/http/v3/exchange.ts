import type * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import type { NetemuError } from "../../../application/errors.js";
import { Exchange, type Rejected } from "../exchange.js";
import type { HttpError } from "../error-mapping.js";
import { noteAnswerMessage } from "../answer-log.js";
import { schemaMessage } from "../schema.js";
import { toV3HttpError, type V3HttpError, type V3ValidationDetail } from "./error-mapping.js";

/** Where in the body a codec failure is: the keys io-ts went through, array indexes as numbers. */
function locationOf(errors: t.Errors): (string | number)[] {
  const first = errors[0];
  if (first === undefined) return ["body"];
  const keys = first.context.slice(1).map((entry) => (/^\d+$/.test(entry.key) ? Number(entry.key) : entry.key));
  return ["body", ...keys.filter((k) => k !== "")];
}

/**
 * A request on /v3/compute: the same routes' work, answered as a GNS3 3.x compute answers (ADR 0066):
 * errors as `{"message"}` without `status`, a body that does not validate as FastAPI's 422.
 */
export class V3Exchange extends Exchange {
  override decode<A>(codec: t.Type<A, unknown, unknown>, value: unknown = this.body): E.Either<Rejected, A> {
    const result = codec.decode(value);
    if (E.isRight(result)) return result;
    const failure = result.left[0];
    this.answerV3({ status: 422, detail: [{ type: "value_error", loc: locationOf(result.left), msg: schemaMessage(result.left), input: failure?.value ?? null }] });
    return E.left({ _tag: "Rejected" });
  }

  /** A body that is not JSON is FastAPI's 422 json_invalid; one too large stays 413. */
  override refuseBody(error: HttpError, logged: string = error.message): void {
    if (error.status !== 400) return this.error(error, logged);
    this.answerV3({ status: 422, detail: [{ type: "json_invalid", loc: ["body"], msg: error.message, input: {} }] }, logged);
  }

  override error(error: HttpError, logged: string = error.message): void {
    this.answerV3(error, logged);
  }

  override fail(error: NetemuError): void {
    this.answerV3(toV3HttpError(error));
  }

  answerV3(error: V3HttpError, logged?: string): void {
    if ("detail" in error) {
      noteAnswerMessage(this.ctx, logged ?? error.detail.map((d: V3ValidationDetail) => `${d.loc.join(".")}: ${d.msg}`).join("; "));
      return this.json(422, { detail: error.detail });
    }
    noteAnswerMessage(this.ctx, logged ?? error.message);
    this.json(error.status, error.exception === undefined ? { message: error.message } : { exception: error.exception, message: error.message });
  }
}

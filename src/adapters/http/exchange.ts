import type { Context } from "koa";
import type * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import type { NetemuError } from "../../application/errors.js";
import { toHttpError, type HttpError } from "./error-mapping.js";
import { Readable } from "node:stream";
import { gns3Json, gns3JsonArrayPieces } from "../shared/gns3-json.js";
import { schemaMessage, schemaPath } from "./schema.js";
import { noteAnswerMessage } from "./answer-log.js";

/** Lists up to this long are rendered at once (about a millisecond); longer ones are streamed. */
const LIST_ITEMS_AT_ONCE = 256;
/** Items rendered per turn of the event loop in a streamed list (a few milliseconds of work). */
const LIST_ITEMS_PER_TURN = 64;

/** Each piece made on its own turn of the event loop, and only when the client has taken the previous ones. */
function listStream(pieces: Generator<string, void, undefined>): Readable {
  return new Readable({
    read() {
      setImmediate(() => {
        try {
          const next = pieces.next();
          this.push(next.done === true ? null : Buffer.from(next.value));
        } catch (err) {
          this.destroy(err instanceof Error ? err : new Error(String(err)));
        }
      });
    },
  });
}

/** Thrown nowhere: a decoded request either holds its value or the 400 already sent. */
export interface Rejected {
  readonly _tag: "Rejected";
}

/**
 * One request/response on a GNS3 route: path parameters, the body merged with the query string,
 * and GNS3's way of answering (JSON with sorted keys, errors as `{message, status}`).
 */
export class Exchange {
  constructor(
    readonly ctx: Context,
    /** GNS3's route template, sent as X-Route and in 400 bodies as `path`. */
    readonly route: string,
  ) {}

  param(name: string): string {
    const value = (this.ctx as unknown as { params?: Record<string, string> }).params?.[name];
    return value ?? "";
  }

  /** `{adapter_number:\d+}` params: the router only lets digits through, so this is a number. */
  intParam(name: string): number {
    return Number.parseInt(this.param(name), 10);
  }

  /** The request body as GNS3 sees it: parsed JSON (empty is {}), query parameters merged in as strings. */
  get body(): unknown {
    const state = this.ctx.state as { gns3Body?: unknown };
    return "gns3Body" in state ? state.gns3Body : {};
  }

  /** Decodes the body, or a part of it (`value`), answering GNS3's 400 when it does not fit. */
  decode<A>(codec: t.Type<A, unknown, unknown>, value: unknown = this.body): E.Either<Rejected, A> {
    const result = codec.decode(value);
    if (E.isRight(result)) return result;
    // GNS3 puts the body in the message as a Python repr ("and JSON data '{'name': ...}'"); netemu
    // leaves it out: the answer's `request` holds it as JSON, and the reason reads first (ADR 0085).
    const at = schemaPath(result.left);
    const message = `JSON schema error with API request '${this.ctx.originalUrl}': ${at === "" ? "" : `${at}: `}${schemaMessage(result.left)}`;
    this.error({ status: 400, message });
    return E.left({ _tag: "Rejected" });
  }

  json(status: number, value: unknown): void {
    this.ctx.status = status;
    this.ctx.set("Content-Type", "application/json");
    this.ctx.body = gns3Json(value);
  }

  /**
   * A JSON array answered as gns3Json would, item by item: a short list at once (with its length),
   * a long one streamed a few hundred items per turn of the event loop, rendered as the client takes
   * it (ADR 0059), so that other requests are answered meanwhile and memory holds a piece, not the list.
   */
  jsonList<T>(status: number, items: readonly T[], present: (item: T) => unknown): void {
    if (items.length <= LIST_ITEMS_AT_ONCE) return this.json(status, items.map(present));
    this.ctx.status = status;
    this.ctx.set("Content-Type", "application/json");
    this.ctx.body = listStream(gns3JsonArrayPieces(items, present, LIST_ITEMS_PER_TURN));
  }

  /** respond() for a list: its items presented one by one (see jsonList). */
  respondList<A>(result: E.Either<NetemuError, readonly A[]>, status: number, present: (value: A) => unknown): void {
    if (E.isLeft(result)) this.fail(result.left);
    else this.jsonList(status, result.right, present);
  }

  /** A body that is not JSON (the metrics exposition), with its own content type. */
  text(status: number, contentType: string, text: string): void {
    this.ctx.status = status;
    this.ctx.set("Content-Type", contentType);
    this.ctx.body = text;
  }

  /** An answer without a body (201 for shutdown and debug, 204 for deletes), with no Content-Type. */
  empty(status: number): void {
    this.ctx.status = status;
    // Koa turns a null body into a 204, so an empty 201 is an empty string without its type.
    this.ctx.body = status === 204 ? null : "";
    this.ctx.remove("Content-Type");
  }

  /** Answers an error; `logged` is what the request log says of it (the message unless told). */
  error(error: HttpError, logged: string = error.message): void {
    noteAnswerMessage(this.ctx, logged);
    const body: Record<string, unknown> = { message: error.message, status: error.status };
    if (error.exception !== undefined) body["exception"] = error.exception;
    if (error.status === 400) {
      body["method"] = this.ctx.method;
      body["path"] = this.route;
      body["request"] = this.body;
    }
    this.json(error.status, body);
  }

  /** A body that could not be read (not JSON, too deep, too large): GNS3 2.2's error body. */
  refuseBody(error: HttpError, logged: string = error.message): void {
    this.error(error, logged);
  }

  fail(error: NetemuError): void {
    this.error(toHttpError(error));
  }

  /** Answers a use case's result: the presented value with `status`, or its mapped error. */
  respond<A>(result: E.Either<NetemuError, A>, status: number, present: (value: A) => unknown): void {
    if (E.isLeft(result)) this.fail(result.left);
    else if (status === 204) this.empty(204);
    else this.json(status, present(result.right));
  }
}

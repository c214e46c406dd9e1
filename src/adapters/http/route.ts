import type * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import type { Readable } from "node:stream";
import type { ErrorTag, Refusal } from "../../application/errors.js";
import type { UseCases } from "../../application/use-cases/index.js";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** One `{name}` of a GNS3 template: `{port_number:\d+}` is a number, any other parameter a string. */
type Parameter<Inner extends string> = Inner extends `${infer Name}:\\d+`
  ? { readonly [K in Name]: number }
  : Inner extends `${infer Name}:${string}`
    ? { readonly [K in Name]: string }
    : { readonly [K in Inner]: string };

/** The path parameters a GNS3 template declares, typed as the router decodes them (`pathParameters`). */
export type ParamsOf<Path extends string> = string extends Path
  ? Readonly<Record<string, string | number>>
  : Path extends `${string}{${infer Inner}}${infer Rest}`
    ? Parameter<Inner> & ParamsOf<Rest>
    : unknown;

const PARAMETER = /\{(\w+)(?::([^}]*))?\}/g;

/** The parameters of `template` read from the router's strings: digit-only ones as numbers (the router let only digits through). */
export function pathParameters<Path extends string>(template: Path, raw: (name: string) => string): ParamsOf<Path> {
  const params: Record<string, string | number> = {};
  for (const [, name, pattern] of template.matchAll(PARAMETER)) {
    const value = raw(name as string);
    params[name as string] = pattern === "\\d+" ? Number.parseInt(value, 10) : value;
  }
  return params as ParamsOf<Path>;
}

/**
 * What a route answers when its use case succeeds: JSON whose shape is `codec` (the presenter must
 * return what the codec describes, so the OpenAPI document says what is sent), a list of such items
 * (streamed when long, ADR 0059), no body, a stream of another content type, or one of several such
 * answers chosen by the value (readiness: 200 when ready, 503 when not, ADR 0080). `W` is what a client
 * reads from the wire: the codec's type (route-client.ts decodes with the same codec).
 */
export type Answer<A, W = unknown> =
  | { readonly kind: "json"; readonly status: number; readonly codec: t.Mixed; readonly present: (value: A) => unknown; readonly _W?: W }
  | { readonly kind: "list"; readonly status: number; readonly codec: t.Mixed; readonly present: (item: never) => unknown; readonly _W?: W }
  | { readonly kind: "empty"; readonly status: 201 | 204; readonly _W?: W }
  | { readonly kind: "raw"; readonly status: number; readonly contentType: string; readonly body: (value: A) => Readable | string; readonly contentTypeOf?: (value: A) => string; readonly _W?: W }
  | { readonly kind: "choice"; readonly answers: Readonly<Record<string, SingleAnswer<A>>>; readonly choose: (value: A) => string; readonly _W?: W };

/** An answer of one status (a choice is made of these). */
export type SingleAnswer<A, W = unknown> = Exclude<Answer<A, W>, { readonly kind: "choice" }>;

/** A codec describing values of type O (built with schema.ts, so that the document can say it). */
type Codec<O> = t.Mixed & { readonly _A: O };

/** A JSON answer: `present` must give what `codec` describes. */
export function json<A, O>(status: number, codec: Codec<O>, present: (value: A) => NoInfer<O>): SingleAnswer<A, O> {
  return { kind: "json", status, codec, present };
}

/** A JSON array, each item presented as `codec` describes it. */
export function list<T, O>(status: number, codec: Codec<O>, present: (item: T) => NoInfer<O>): SingleAnswer<readonly T[], O[]> {
  return { kind: "list", status, codec, present: present as (item: never) => unknown };
}

/** An answer without a body: 204, or GNS3's empty 201. */
export function empty(status: 201 | 204 = 204): SingleAnswer<unknown, undefined> {
  return { kind: "empty", status };
}

/**
 * A body of its own content type (a capture stream, the metrics text): `body` makes it from the use
 * case's result; a client reads it as text. `contentTypeOf`, when the value brings its own variant of
 * the declared type (a metrics registry an embedder gives); the document says `contentType`.
 */
export function raw<A>(status: number, contentType: string, body: (value: A) => Readable | string, contentTypeOf?: (value: A) => string): SingleAnswer<A, string> {
  return contentTypeOf === undefined ? { kind: "raw", status, contentType, body } : { kind: "raw", status, contentType, body, contentTypeOf };
}

/**
 * One of several answers, each with its own status, chosen by the use case's value: for a report whose
 * status is part of what it says (`GET /v2/netemu/ready` answers 503 while not ready, as probes and load
 * balancers read it). Not for refusals: a request the use case refuses is a Left, mapped in one place.
 */
export function choice<const M extends Readonly<Record<string, SingleAnswer<never, unknown>>>>(answers: M, choose: (value: ValueOfAnswers<M>) => keyof M & string): Answer<ValueOfAnswers<M>, WireOfAnswer<M[keyof M]>> {
  return { kind: "choice", answers: answers as Readonly<Record<string, SingleAnswer<ValueOfAnswers<M>>>>, choose };
}

/** The value every answer of a choice presents (their presenters' parameter). */
type ValueOfAnswers<M> = M[keyof M] extends SingleAnswer<infer A, unknown> ? A : never;

/** What a client reads off the wire for one answer. */
type WireOfAnswer<X> = X extends { readonly _W?: infer W } ? W : never;

/** A file uploaded as the request's body, read as it arrives (no JSON, no body limit: the use case bounds it). */
export interface Upload {
  readonly content: AsyncIterable<Uint8Array>;
  /** The Content-Length, when the client gave one. */
  readonly declaredBytes: number | undefined;
}

/** A route whose body is a file, streamed to its use case. */
interface UploadBody<B> {
  readonly kind: "upload";
  /** Carries the body's type only. */
  readonly _B?: B;
}

export const UPLOAD: UploadBody<Upload> = { kind: "upload" };

/** Whether a route's body is an upload rather than JSON. */
export function isUpload<B>(body: t.Type<B, unknown, unknown> | UploadBody<B>): body is UploadBody<B> {
  return (body as { kind?: unknown }).kind === "upload";
}

/**
 * A part of the body that only the use case's data says how to read (a node's `properties`, by the
 * node's type): when it does not fit, the router answers as for a body that does not fit its codec
 * (GNS3's 400, or the dialect's), naming the request as that refusal does.
 */
export interface PartRefused {
  readonly _tag: "PartRefused";
  readonly codec: t.Mixed;
  readonly value: unknown;
}

/** Decodes a part of the body with `codec`, or says it does not fit. */
export function decodePart<A>(codec: t.Type<A, unknown, unknown>, value: unknown): E.Either<PartRefused, A> {
  const decoded = codec.decode(value);
  return E.isRight(decoded) ? decoded : E.left({ _tag: "PartRefused", codec, value });
}

/** What a route's use case receives from the request: the template's parameters and the decoded body. */
export interface Request<Path extends string, B> {
  readonly params: ParamsOf<Path>;
  readonly body: B;
}

/**
 * A route as one value (ADR 0076): its name (`area.resource.action`, in the request log and X-Route),
 * method and GNS3 template, the codec its body is decoded with, the use case it runs, what it answers
 * on success and the refusals it can give instead. The router renders the use case's Either (no
 * handler writes a status); the OpenAPI document, the refusal statuses and the /v3 dialect read the
 * same value. `refusals` is the use case's own list (e.g. `GET_COMPUTE_NODE_REFUSALS`): `run` must
 * return no other refusal, which the compiler checks.
 */
export interface Route<Path extends string = string, B = unknown, A = unknown, R extends readonly ErrorTag[] = readonly ErrorTag[], W = unknown> {
  readonly name: string;
  readonly method: Method;
  readonly path: Path;
  /** The body's codec, or UPLOAD; without one the route reads no body (a malformed one is still GNS3's 400). */
  readonly body?: t.Type<B, unknown, unknown> | UploadBody<B>;
  readonly refusals: R;
  readonly answer: Answer<A, W>;
  run(uc: UseCases, request: Request<Path, B>): Promise<E.Either<Refusal<R> | PartRefused, A>>;
}

/** A route of any parameters, body and answer, as the router and the document hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = Route<string, any, any, readonly ErrorTag[], any>;

/** Declares a route, its types inferred from the template, the body codec and the use case. */
export function route<const Path extends string, B, A, const R extends readonly ErrorTag[], W>(declared: Route<Path, B, A, R, W>): Route<Path, B, A, R, W> {
  return declared;
}

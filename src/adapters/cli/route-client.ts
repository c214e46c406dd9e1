/**
 * A typed client of netemu's route values (ADR 0076, 0080): the CLI calls a route through the same
 * value the server registers, so the path, the body and the answer cannot drift from the server's.
 * `callRoute(IMPAIRMENT_ROUTES.set, { body }, server)` fills the template's parameters, sends the body
 * (as query parameters on a GET or DELETE, which the server merges into the body as GNS3 does), and
 * decodes the answer with the route's own answer codec. What goes wrong is a value: the route's refusal
 * with the server's message, a server that does not serve the route (not netemu: a GNS3 controller on
 * the same port), credentials refused, no answer, or an answer that is not what the route says.
 */
import type * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import { type AnyRoute, type Answer, isUpload, type ParamsOf, type Route, type SingleAnswer } from "../http/route.js";
import { schemaMessage } from "../http/schema.js";

/** Where and as whom a route is called. */
export interface RouteServer {
  /** `http://host:port`, no path. */
  readonly url: string;
  /** HTTP basic credentials, for a server run with --auth. */
  readonly credentials?: { readonly user: string; readonly password: string };
  /** How long to wait for the whole answer; 30 s unless told. */
  readonly timeoutMs?: number;
}

/** Why a call gave no answer of the route's: each says what the server said, or that none answered. */
export type RouteCallFailure =
  /** Nothing answered at the address (refused, unreachable, timed out). */
  | { readonly _tag: "NoAnswer"; readonly server: string; readonly cause: string }
  /** The route answered a refusal: its status and GNS3's message. */
  | { readonly _tag: "Refused"; readonly server: string; readonly route: string; readonly status: number; readonly message: string }
  /** The server does not serve the route (no X-Route of it): not netemu, or a netemu without this route. */
  | { readonly _tag: "NotServed"; readonly server: string; readonly method: string; readonly path: string; readonly status: number; readonly message: string; readonly software: string | undefined }
  /** The server checks credentials and refused these (or none were given), or throttles this address. */
  | { readonly _tag: "CredentialsRefused"; readonly server: string; readonly status: number; readonly message: string }
  /** The route answered, but not as its value says (another status, a body its codec refuses). */
  | { readonly _tag: "AnswerUnreadable"; readonly server: string; readonly route: string; readonly status: number; readonly problem: string };

/** What a call of the route sends: the template's parameters and the body its codec takes (each left out when the route has none). */
type RouteInput<R> =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  R extends Route<infer Path, infer B, any, any, any>
    ? (unknown extends ParamsOf<Path> ? { readonly params?: undefined } : { readonly params: ParamsOf<Path> }) & (unknown extends B ? { readonly body?: undefined } : { readonly body: B })
    : never;

/** What a call of the route gives back: its answer as the answer codec reads it (undefined for no body, text for a raw one). */
export type RouteOutput<R> = R extends { readonly answer: Answer<never, infer W> } ? W : never;

const PARAMETER = /\{(\w+)(?::([^}]*))?\}/g;

/** The route's template with its parameters filled in, each encoded (a `{path:.+}` one segment by segment). */
export function fillPath(template: string, params: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(PARAMETER, (_, name: string, pattern: string | undefined) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${template}: no value for {${name}}`);
    return pattern === ".+" ? String(value).split("/").map(encodeURIComponent).join("/") : encodeURIComponent(String(value));
  });
}

/** A GET's or DELETE's body as query parameters: flat values only (the server merges them into the body). */
function asQuery(template: string, body: unknown): string {
  if (body === undefined) return "";
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") throw new TypeError(`${template}: ${key} is not a flat value, and a GET or DELETE sends its body as query parameters`);
    query.append(key, String(value));
  }
  const text = query.toString();
  return text === "" ? "" : `?${text}`;
}

/** The answer of each status the route gives on success. */
function answersOf(answer: Answer<unknown>): readonly SingleAnswer<unknown>[] {
  return answer.kind === "choice" ? Object.values(answer.answers) : [answer];
}

/** GNS3's `message` of an error body, else the text as it came. */
function messageOf(text: string, fallback: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // Not JSON: the text itself says it.
  }
  return text.trim() === "" ? fallback : text.trim();
}

function decodeWith(codec: t.Mixed, value: unknown): E.Either<string, unknown> {
  const decoded = codec.decode(value);
  return E.isLeft(decoded) ? E.left(schemaMessage(decoded.left)) : E.right(decoded.right);
}

/** The body of a success answer, as the route's answer codec reads it. */
function readAnswer(answer: SingleAnswer<unknown>, text: string): E.Either<string, unknown> {
  if (answer.kind === "raw") return E.right(text);
  if (answer.kind === "empty") return text === "" ? E.right(undefined) : E.left("a body where the route answers none");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return E.left("a body that is not JSON");
  }
  if (answer.kind === "json") return decodeWith(answer.codec, value);
  if (!Array.isArray(value)) return E.left("not a JSON array");
  const items: unknown[] = [];
  for (const item of value) {
    const decoded = decodeWith(answer.codec, item);
    if (E.isLeft(decoded)) return decoded;
    items.push(decoded.right);
  }
  return E.right(items);
}

/**
 * Calls `route` on `server` with its parameters and body, and reads the answer with the route's own
 * codec. The route is told apart from whatever else answers at the address by netemu's X-Route header,
 * which names the template that answered.
 */
export async function callRoute<R extends AnyRoute>(route: R, input: RouteInput<R>, server: RouteServer): Promise<E.Either<RouteCallFailure, RouteOutput<R>>> {
  const { params, body } = input as { params?: Record<string, string | number>; body?: unknown };
  // An upload route's body is sent as the text it is (callUploadRoute), any other as JSON.
  const upload = route.body !== undefined && isUpload(route.body);
  if (upload && typeof body !== "string") throw new TypeError(`${route.name}: an upload is sent as text (callUploadRoute)`);
  const path = fillPath(route.path, params);
  const inQuery = route.method === "GET" || route.method === "DELETE";
  const url = `${server.url}${path}${inQuery ? asQuery(route.path, body) : ""}`;
  const headers: Record<string, string> = {};
  if (!inQuery && body !== undefined) headers["Content-Type"] = upload ? "text/plain; charset=utf-8" : "application/json";
  if (server.credentials !== undefined) headers["Authorization"] = `Basic ${Buffer.from(`${server.credentials.user}:${server.credentials.password}`).toString("base64")}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: route.method,
      headers,
      ...(!inQuery && body !== undefined ? { body: upload ? (body as string) : JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(server.timeoutMs ?? 30_000),
    });
    text = await response.text();
  } catch (e) {
    const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
    return E.left({ _tag: "NoAnswer", server: server.url, cause });
  }
  const status = response.status;
  const routed = response.headers.get("x-route") === route.path;
  const expected = answersOf(route.answer).find((a) => a.status === status);
  if (routed && expected !== undefined) {
    const read = readAnswer(expected, text);
    return E.isLeft(read) ? E.left({ _tag: "AnswerUnreadable", server: server.url, route: route.name, status, problem: read.left }) : E.right(read.right as RouteOutput<R>);
  }
  const message = messageOf(text, response.statusText);
  if (routed && status >= 400) return E.left({ _tag: "Refused", server: server.url, route: route.name, status, message });
  if (routed) return E.left({ _tag: "AnswerUnreadable", server: server.url, route: route.name, status, problem: `status ${status}, where the route answers ${answersOf(route.answer).map((a) => a.status).join(" or ")}` });
  // Refused before any route ran: the credential check (ADR 0043) or the failed-login throttle (ADR 0061).
  if (status === 401 || status === 429) return E.left({ _tag: "CredentialsRefused", server: server.url, status, message });
  return E.left({ _tag: "NotServed", server: server.url, method: route.method, path, status, message, software: response.headers.get("server") ?? undefined });
}

/** Calls an upload route (its body a file) with `text` as the body, e.g. a trace (ADR 0103). */
export function callUploadRoute<R extends AnyRoute>(route: R, params: Record<string, string | number>, text: string, server: RouteServer): Promise<E.Either<RouteCallFailure, RouteOutput<R>>> {
  return callRoute(route, { params, body: text } as unknown as RouteInput<R>, server);
}

/** A failure in a sentence a user can act on (the CLI adds its own advice). */
export function describeFailure(failure: RouteCallFailure): string {
  switch (failure._tag) {
    case "NoAnswer":
      return `no answer from ${failure.server}: ${failure.cause}`;
    case "Refused":
      return `${failure.server} answered ${failure.status}: ${failure.message}`;
    case "CredentialsRefused":
      return `${failure.server} answered ${failure.status}: ${failure.status === 401 ? "it checks credentials, and refused these (or none were given)" : failure.message}`;
    case "NotServed":
      return `${failure.server} answered ${failure.status} for ${failure.method} ${failure.path}: this is not a netemu server${failure.software === undefined ? "" : ` (it says Server: ${failure.software})`}, or a netemu without this route`;
    case "AnswerUnreadable":
      return `${failure.server} answered ${failure.route} with ${failure.status}, not as netemu's route answers: ${failure.problem}`;
  }
}

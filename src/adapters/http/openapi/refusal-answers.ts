/**
 * The refusals the OpenAPI document lists, each described once in components.responses and referred to
 * by the routes that can answer it: what a route value declares it refuses (its use case's refusal
 * tags, mapped by error-mapping.ts, ADR 0076), and what every route can meet on its way in.
 */
import type { RouteEntry } from "../api-router.js";
import type { JsonSchema } from "./json-schema.js";
import { refusalStatus } from "../error-mapping.js";

export const ERROR_REF = "#/components/schemas/Error";

/** The refusals an operation can answer with GNS3's `{message, status}` body, by status. */
type RefusalStatus = 400 | 403 | 404 | 409 | 413 | 503;

/**
 * Whether the document lists a refusal's status on its route: the 4xx, and 503 (a data-plane worker
 * down, to try again later); the other 5xx, failures of the host, are under `default`.
 */
const isListed = (status: number): boolean => status < 500 || status === 503;

/**
 * A status the one error mapping gives a refusal, as the document lists it: a new 4xx status needs
 * its description here, or this says so loudly.
 */
function asRefusalStatus(status: number): RefusalStatus {
  if (status === 400 || status === 403 || status === 404 || status === 409 || status === 413 || status === 503) return status;
  throw new Error(`the error mapping answers ${status}, which the OpenAPI document does not describe: add it to refusal-answers.ts`);
}

/** Each refusal is described once, in components.responses, under these names. */
const NAMES: Readonly<Record<RefusalStatus | 401 | 429, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  413: "PayloadTooLarge",
  503: "ServiceUnavailable",
  429: "TooManyRequests",
};

const DESCRIPTIONS: Readonly<Record<RefusalStatus, string>> = {
  400: "Bad request: a body that is not JSON, nests too deep or does not fit the schema (with method, path and request echoed), or an ID that is not a UUID",
  403: "Forbidden: the project is closed, the path leaves the project, or the action is for a local server only",
  404: "Not found: no such project, node, link, adapter, port or file (or a non-digit where the path takes digits)",
  409: "Conflict with the current state: a name or port in use, a port without its NIO, a capture already running, a full project, a socket that does not open ...",
  413: "The request body is larger than the server's limit (--body-limit), or an upload larger than a project may hold",
  503: "The data-plane worker that runs the node is down (restarting, or given up: POST /v2/netemu/data-plane/restart); try again once it is back",
};

const errorAnswer = (description: string): JsonSchema => ({ description, content: { "application/json": { schema: { $ref: ERROR_REF } } } });

/** What a refusal of the credential check says (auth.ts): no body, and how to log in. */
const UNAUTHORIZED: JsonSchema = {
  description: "The server runs with --auth and the request's Authorization is missing or wrong: no body",
  headers: { "WWW-Authenticate": { description: "Basic realm=\"GNS3 server\"", schema: { type: "string" } } },
};

/** The failed-login throttle's answer (ADR 0061). */
const THROTTLED: JsonSchema = {
  ...errorAnswer("Too many failed logins from this address: wait Retry-After seconds (ADR 0061)"),
  headers: { "Retry-After": { description: "Seconds until this address may try again", schema: { type: "integer", minimum: 1 } } },
};

/**
 * The 4xx answers of one route, as references to `refusalAnswers`: 400 and 413 on every route (each
 * reads its body, or an upload's file name and size), 404 where the path names something, the
 * statuses of the refusals its value declares, and 401/429 on every route when the server checks
 * credentials (`basicAuth` guards the whole app, this document too). The two notification streams,
 * registered as handlers, declare none.
 */
export function refusalsOf(route: RouteEntry, auth: boolean): Record<string, JsonSchema> {
  const statuses = new Set<RefusalStatus | 401 | 429>([400, 413]);
  if (/\{\w+/.test(route.template)) statuses.add(404);
  for (const status of (route.refusals ?? []).map(refusalStatus).filter(isListed).map(asRefusalStatus)) statuses.add(status);
  if (auth) {
    statuses.add(401);
    statuses.add(429);
  }
  return Object.fromEntries([...statuses].sort((a, b) => a - b).map((status) => [String(status), { $ref: `#/components/responses/${NAMES[status]}` }]));
}

/** components.responses: every refusal once (the credential ones only when credentials are checked). */
export function refusalAnswers(auth: boolean): Record<string, JsonSchema> {
  const answers: Record<string, JsonSchema> = {};
  for (const status of [400, 403, 404, 409, 413, 503] as const) answers[NAMES[status]] = errorAnswer(DESCRIPTIONS[status]);
  if (auth) {
    answers[NAMES[401]] = UNAUTHORIZED;
    answers[NAMES[429]] = THROTTLED;
  }
  return answers;
}

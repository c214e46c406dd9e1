import type { RouteEntry } from "../api-router.js";
import type { JsonSchema } from "./json-schema.js";
import { refusalStatus } from "../error-mapping.js";

export const ERROR_REF = "#/components/schemas/Error";

/** The refusals an operation can answer with GNS3's `{message, status}` body, by status. */
type RefusalStatus = 400 | 403 | 404 | 409 | 413 | 503;

/**
 * The 403s and 409s of the routes not yet declared as values (ADR 0076, netemu's server routes), by
 * route: what the use cases behind each route return (their error unions in src/application/use-cases)
 * as error-mapping.ts maps it. The other statuses follow from the route
 * itself (see `refusalsOf`). test/http/openapi.test.ts drives refusals and checks each is listed.
 */
const CONFLICTS: Readonly<Record<string, readonly RefusalStatus[]>> = {
  "server.check_version": [409], // VersionMismatch
  "server.debug": [403], // NotLocalServer
  "server.shutdown": [403], // NotLocalServer
  // ADR 0067: the port by name; its project, node or port not found (404), a name two share (409), a socket that does not open.
  "netemu.impairments.set": [404, 409], // ImpairmentTargetNotFound, ImpairmentTargetAmbiguous, UdpConnectionFailed
  "netemu.impairments.clear": [409], // UdpConnectionFailed (a port's NIO made again without the impairment)
};

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
  throw new Error(`the error mapping answers ${status}, which the OpenAPI document does not describe: add it to refusals.ts`);
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
 * route's own 403/409, and 401/429 on every route when the server checks credentials (`basicAuth`
 * guards the whole app, this document too).
 */
export function refusalsOf(route: RouteEntry, auth: boolean): Record<string, JsonSchema> {
  const statuses = new Set<RefusalStatus | 401 | 429>([400, 413]);
  if (/\{\w+/.test(route.template)) statuses.add(404);
  const own = route.refusals === undefined ? (CONFLICTS[route.name] ?? []) : route.refusals.map(refusalStatus).filter(isListed).map(asRefusalStatus);
  for (const status of own) statuses.add(status);
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

/** The route names the table above speaks of, for the test that they all exist. */
export const ROUTES_WITH_CONFLICTS: readonly string[] = Object.keys(CONFLICTS);

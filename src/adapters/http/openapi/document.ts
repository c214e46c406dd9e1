import type { RouteEntry } from "../api-router.js";
import { type JsonSchema, toJsonSchema } from "./json-schema.js";
import { type DescribedAnswer, describeAnswers } from "./answers.js";
import { FILTERS_REF, filtersSchema, withTypedFilters } from "./filters.js";
import { scheduleSchema } from "./schedule-schema.js";
import { ERROR_REF, refusalAnswers, refusalsOf } from "./refusal-answers.js";

/** Where netemu serves its API's description: under /v2, in a segment no GNS3 route uses. */
export const OPENAPI_PATH = "/v2/netemu/openapi.json";

/** The answer of every refused request: GNS3's `{message, status}`, with the request echoed on a 400. */
const ERROR_SCHEMA: JsonSchema = {
  type: "object",
  required: ["message", "status"],
  properties: {
    message: { type: "string" },
    status: { type: "integer" },
    exception: { type: "string", description: "GNS3's exception class name, for a node's 409s (NodeError: netemu runs no Dynamips)" },
    method: { type: "string", description: "400 only" },
    path: { type: "string", description: "400 only: the route's template" },
    request: { description: "400 only: the body as received, query parameters merged in" },
  },
};

const PARAM = /\{(\w+)(?::([^}]*))?\}/g;

/** A GNS3 template in OpenAPI's form: `{port_number:\d+}` becomes `{port_number}`. */
export function openApiPath(template: string): string {
  return template.replace(PARAM, "{$1}");
}

function pathParameters(template: string): JsonSchema[] {
  return [...template.matchAll(PARAM)].map((m) => {
    const [, name, pattern] = m;
    if (pattern === "\\d+") return { name, in: "path", required: true, schema: { type: "integer", minimum: 0 } };
    if (pattern === ".+") return { name, in: "path", required: true, schema: { type: "string" }, description: "may span several segments (a file path)" };
    return { name, in: "path", required: true, schema: { type: "string" } };
  });
}

function requestBody(route: RouteEntry): JsonSchema | undefined {
  if (route.rawBody) return { required: false, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } };
  if (route.body === undefined) return undefined;
  const schema = withTypedFilters(toJsonSchema(route.body));
  // GNS3 reads a missing body as {}, so a body is required only when the codec requires a property.
  const required = Array.isArray(schema["required"]) || schema["oneOf"] !== undefined;
  return { required, content: { "application/json": { schema } } };
}

/**
 * The success answers a route's value declares (several statuses for a choice), or a generic one for
 * the two notification streams, which are handlers that write on the response themselves.
 */
function success(route: RouteEntry): Record<string, JsonSchema> {
  if (route.answer === undefined) return { "2XX": { description: "GNS3's answer for this route: JSON with sorted keys, a stream, or no body" } };
  return Object.fromEntries(describeAnswers(route.answer).map((answer) => [String(answer.status), described(answer)]));
}

function described(answer: DescribedAnswer): JsonSchema {
  if (answer.contentType !== undefined) return { description: "A stream", content: { [answer.contentType]: { schema: { type: "string", format: "binary" } } } };
  if (answer.schema === undefined) return { description: "Done: no body" };
  return { description: answer.status >= 400 ? "GNS3's error body with what the report says, keys sorted" : "GNS3's answer, keys sorted", content: { "application/json": { schema: withTypedFilters(answer.schema) } } };
}

/** /v3/compute's refusals: 3.x's `{"message"}`, FastAPI's 422 `{"detail"}` (ADR 0066). */
const V3_ERROR_SCHEMA: JsonSchema = {
  type: "object",
  required: ["message"],
  properties: { message: { type: "string" }, exception: { type: "string", description: "GNS3's exception name, for some 409s" } },
};
const V3_VALIDATION_SCHEMA: JsonSchema = {
  type: "object",
  required: ["detail"],
  properties: {
    detail: {
      type: "array",
      items: { type: "object", required: ["type", "loc", "msg"], properties: { type: { type: "string" }, loc: { type: "array" }, msg: { type: "string" }, input: {} } },
    },
  },
};
const v3Error = (description: string): JsonSchema => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/V3Error" } } } });

function v3Refusals(route: RouteEntry, auth: boolean): Record<string, JsonSchema> {
  return {
    "400": v3Error("A value the use case refuses (a capture file name, a filter ...)"),
    "401": v3Error("No credentials, wrong ones, or /v3 not served without them (--v3-no-auth)"),
    ...(/\{\w+/.test(route.template) ? { "404": v3Error("Not found: the project, node, port or file") } : {}),
    "409": v3Error("Conflict with the current state"),
    "413": v3Error("The body is larger than the limit"),
    "422": { description: "A body or path parameter that does not validate", content: { "application/json": { schema: { $ref: "#/components/schemas/V3ValidationError" } } } },
    ...(auth ? { "429": { ...v3Error("Too many failed logins from this address"), headers: { "Retry-After": { schema: { type: "integer", minimum: 1 } } } } } : {}),
  };
}

function operation(route: RouteEntry, auth: boolean): JsonSchema {
  const parameters = pathParameters(route.template);
  const body = requestBody(route);
  const v3 = route.template.startsWith("/v3/");
  return {
    operationId: route.name,
    tags: [route.name.split(".")[0]],
    summary: `${route.method} ${route.template}`,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body === undefined ? {} : { requestBody: body }),
    responses: {
      ...success(route),
      ...(v3 ? v3Refusals(route, auth) : refusalsOf(route, auth)),
      default: { description: "Any other failure (a 5xx: the host failed, the cause in the message): GNS3's {message, status}", content: { "application/json": { schema: { $ref: ERROR_REF } } } },
    },
  };
}

/** What the document says of the server that serves it. */
export interface DocumentedServer {
  /** netemu's package version. */
  readonly version: string;
  /** The GNS3 version `/v2/version` reports. */
  readonly gns3Version: string;
  /** Whether every request needs HTTP basic credentials (`--auth`). */
  readonly auth: boolean;
}

/**
 * The basic-auth scheme is always declared; whether a request needs it is the server's setting
 * (ADR 0063): required with --auth, optional otherwise (credentials are then ignored, not refused).
 */
function security(auth: boolean): JsonSchema[] {
  return auth ? [{ basic: [] }] : [{}, { basic: [] }];
}

/**
 * The OpenAPI 3.1 document of every route registered through `ApiRouter.add`, with request bodies
 * derived from the codecs the routes decode with (ADR 0045), and each route's refusals, security
 * and typed filters (ADR 0063).
 */
export function openApiDocument(routes: readonly RouteEntry[], server: DocumentedServer): JsonSchema {
  const { version, gns3Version, auth } = server;
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.template)] ??= {});
    item[route.method.toLowerCase()] = operation(route, auth);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "netemu",
      version,
      description:
        `GNS3 v2 API (as GNS3 ${gns3Version}) served by netemu: the compute's Ethernet switches, hubs, NIOs and captures, ` +
        "the controller's projects, nodes and links, and netemu's own additions. Bodies are checked as GNS3's JSON schemas " +
        "check them; query parameters are merged into the body. The notification routes are a websocket and a JSON-lines stream." +
        (auth ? " This server checks HTTP basic credentials on every request." : " This server checks no credentials (it runs without --auth)."),
      license: { name: "MIT", identifier: "MIT" },
    },
    // Relative: the document is served by the server it describes, at whatever address the client used.
    servers: [{ url: "/", description: "The server that serves this document" }],
    security: security(auth),
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA, Filters: filtersSchema(), Schedule: scheduleSchema(FILTERS_REF), V3Error: V3_ERROR_SCHEMA, V3ValidationError: V3_VALIDATION_SCHEMA },
      responses: refusalAnswers(auth),
      securitySchemes: { basic: { type: "http", scheme: "basic", description: "GNS3's --auth: user and password from the server's configuration" } },
    },
  };
}

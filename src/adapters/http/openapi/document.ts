import type { RouteEntry } from "../api-router.js";
import { type JsonSchema, toJsonSchema } from "./json-schema.js";
import { SUCCESS_ANSWERS } from "./responses.js";

/** Where netemu serves its API's description: under /v2, in a segment no GNS3 route uses. */
export const OPENAPI_PATH = "/v2/netemu/openapi.json";

/** The answer of every refused request: GNS3's `{message, status}`, with the request echoed on a 400. */
const ERROR_SCHEMA: JsonSchema = {
  type: "object",
  required: ["message", "status"],
  properties: {
    message: { type: "string" },
    status: { type: "integer" },
    exception: { type: "string", description: "GNS3's exception name, for some 409s (DynamipsError, ...)" },
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
  const schema = toJsonSchema(route.body);
  // GNS3 reads a missing body as {}, so a body is required only when the codec requires a property.
  const required = Array.isArray(schema["required"]) || schema["oneOf"] !== undefined;
  return { required, content: { "application/json": { schema } } };
}

/** The documented success answer, or a generic one for the routes not described yet. */
function success(route: RouteEntry): Record<string, JsonSchema> {
  const answer = SUCCESS_ANSWERS[route.name];
  if (answer === undefined) return { "2XX": { description: "GNS3's answer for this route: JSON with sorted keys, a stream, or no body" } };
  if (answer.schema === undefined) return { [String(answer.status)]: { description: "Done: no body" } };
  return { [String(answer.status)]: { description: "GNS3's answer, keys sorted", content: { "application/json": { schema: answer.schema } } } };
}

function operation(route: RouteEntry): JsonSchema {
  const parameters = pathParameters(route.template);
  const body = requestBody(route);
  return {
    operationId: route.name,
    tags: [route.name.split(".")[0]],
    summary: `${route.method} ${route.template}`,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body === undefined ? {} : { requestBody: body }),
    responses: {
      ...success(route),
      default: { description: "A refusal: GNS3's {message, status}", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
    },
  };
}

/**
 * The OpenAPI 3.1 document of every route registered through `ApiRouter.add`, with request bodies
 * derived from the codecs the routes decode with (ADR 0045).
 */
export function openApiDocument(routes: readonly RouteEntry[], version: string, gns3Version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.template)] ??= {});
    item[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "netemu",
      version,
      description:
        `GNS3 v2 API (as GNS3 ${gns3Version}) served by netemu: the compute's Ethernet switches, hubs, NIOs and captures, ` +
        "the controller's projects, nodes and links, and netemu's own additions. Bodies are checked as GNS3's JSON schemas " +
        "check them; query parameters are merged into the body. The notification routes are a websocket and a JSON-lines stream.",
    },
    paths,
    components: { schemas: { Error: ERROR_SCHEMA } },
  };
}

#!/usr/bin/env node
/**
 * Generates TypeScript types of an OpenAPI document with openapi-typescript, as a user of netemu's
 * API would: `node generate.mjs <openapi.json> <types.d.ts>`. Lives in this package because
 * openapi-typescript needs the TypeScript 5 compiler API, which netemu's TypeScript 7 has not (ADR 0079).
 */
import { readFileSync, writeFileSync } from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";

const [input, output] = process.argv.slice(2);
if (input === undefined || output === undefined) {
  process.stderr.write("usage: node generate.mjs <openapi.json> <types.d.ts>\n");
  process.exit(2);
}
const ast = await openapiTS(JSON.parse(readFileSync(input, "utf8")));
writeFileSync(output, astToString(ast));

import { expect } from "chai";
import fc from "fast-check";
import * as E from "fp-ts/lib/Either.js";
import type * as t from "io-ts";
import { readFileSync, readdirSync } from "node:fs";
import { parse } from "yaml";
import { FiltersCodec, LabCodec, LabLinkCodec, LabNodeCodec, labJsonSchema, labSchemaText } from "../../../../src/application/labs/lab-format.js";
import { nearby, validates } from "../../../support/json-schema-check.js";

const ROOT = new URL("../../../../../", import.meta.url);
type Schema = Record<string, any>;

/** Values near what `generator` describes on which the codec and the schema (read with the whole document) disagree. */
function disagreement(codec: t.Mixed, schema: Schema, generator: Schema, root: Schema, seed: number): unknown {
  const result = fc.check(
    fc.property(nearby(generator), (v) => E.isRight(codec.decode(v)) === validates(schema, v, root)),
    { numRuns: 400, seed },
  );
  return result.failed ? result.counterexample?.[0] : undefined;
}

describe("lab files: the JSON Schema for editors agrees with the codecs (ADR 0084)", () => {
  const schema = labJsonSchema() as Schema;
  const nodeSchema = schema["properties"].nodes.additionalProperties as Schema;
  const linkSchema = schema["properties"].links.items as Schema;

  it("ships schemas/lab.schema.json as the codecs generate it (npm run schema:lab writes it)", () => {
    expect(readFileSync(new URL("schemas/lab.schema.json", ROOT), "utf8")).to.equal(labSchemaText());
  });

  it("takes every example lab, as the codec does", () => {
    for (const file of readdirSync(new URL("labs/", ROOT)).filter((f) => f.endsWith(".yml"))) {
      const doc: unknown = parse(readFileSync(new URL(`labs/${file}`, ROOT), "utf8"));
      expect([validates(schema, doc, schema), E.isRight(LabCodec.decode(doc))], file).to.deep.equal([true, true]);
    }
  });

  it("agrees with the filters codec on values near every filter kind", () => {
    const filters = schema["$defs"].Filters as Schema;
    expect(disagreement(FiltersCodec, filters, filters, schema, 84)).to.equal(undefined);
  });

  it("agrees with the node codec on values near every kind's settings", () => {
    for (const [i, branch] of (nodeSchema["allOf"] as Schema[]).entries()) {
      expect(disagreement(LabNodeCodec, nodeSchema, branch["then"], schema, 840 + i), branch["if"].properties.kind.const).to.equal(undefined);
    }
  });

  it("agrees with the link codec on values near a link", () => {
    const generator = { ...linkSchema, properties: { ...linkSchema["properties"], filters: schema["$defs"].Filters, a_to_b: schema["$defs"].Filters } };
    expect(disagreement(LabLinkCodec, linkSchema, generator, schema, 8400)).to.equal(undefined);
  });

  it("agrees with the lab codec on whole files near a lab", () => {
    const generator = { ...schema, properties: { ...schema["properties"], nodes: { ...schema["properties"].nodes, additionalProperties: nodeSchema["allOf"][0].then } } };
    expect(disagreement(LabCodec, schema, generator, schema, 84000)).to.equal(undefined);
  });

  it("refuses, as the codec does, what each codec check is there for", () => {
    const refused: unknown[] = [
      { name: "x" },
      { name: "x", nodes: {}, extra: 1 },
      { name: "x", nodes: { "a:b": { kind: "ethernet_hub" } } },
      { name: "x", nodes: { a: { kind: "router" } } },
      { name: "x", nodes: { a: { kind: "ethernet_hub", vlan: 1 } } },
      { name: "x", nodes: { a: { kind: "vpcs", address: "10.0.0.1" } } },
      { name: "x", nodes: {}, links: [{ endpoints: ["a:e0"] }] },
      { name: "x", nodes: {}, links: [{ endpoints: ["a:e0", "b:e0"], a_to_b: { delay: [1, 2, 3] } }] },
      { name: "x", nodes: {}, links: [{ endpoints: ["a:e0", "b:e0"], b_to_a: { latency: 1 } }] },
    ];
    for (const doc of refused) expect([validates(schema, doc, schema), E.isRight(LabCodec.decode(doc))], JSON.stringify(doc)).to.deep.equal([false, false]);
  });
});

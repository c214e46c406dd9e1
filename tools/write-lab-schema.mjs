// Writes schemas/lab.schema.json from the lab file codecs (ADR 0084): `npm run schema:lab`.
// test/unit/labs/lab-schema.test.ts fails while the file differs from what the codecs say.
import { writeFileSync } from "node:fs";
import { labSchemaText } from "../dist/application/labs/lab-format.js";

writeFileSync(new URL("../schemas/lab.schema.json", import.meta.url), labSchemaText());
console.log("wrote schemas/lab.schema.json");

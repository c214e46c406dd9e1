import { expect } from "chai";
import { jsonErrorLine } from "../../../src/adapters/persistence/json-error-line.js";

describe("locating the line of a JSON syntax error", () => {
  for (const [text, line] of [
    ['{\n  "a": tru\n}', 2],
    ['{\n  "a": 1,\n  "b": [1, 2,, 3]\n}', 3],
    ['{\n  "a": 1\n  "b": 2\n}', 3],
    ['{\n  "a": "unterminated\n}', 2],
    ["{}\nextra", 2],
    ['{\n  "a": {\n', 3],
  ] as const) {
    it(`says line ${line} for ${JSON.stringify(text)}`, () => {
      expect(() => JSON.parse(text)).to.throw();
      expect(jsonErrorLine(text)).to.equal(line);
    });
  }
});

import { expect } from "chai";
import fc from "fast-check";
import { terminalJson, terminalText } from "../../../src/adapters/cli/terminal-text.js";

const ACTS_ON_A_TERMINAL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("Text printed to a terminal by the CLI", () => {
  it("writes ESC, BEL, tabs, newlines, C1 controls and bidirectional overrides as escapes", () => {
    expect(terminalText("a\u001b[2Jb\u0007\tc\nd\re\u009bf\u202eg\u0000")).to.equal("a\\x1b[2Jb\\x07\\tc\\nd\\re\\x9bf\\u202eg\\x00");
  });

  it("doubles backslashes, so an escape printed always stands for a control character, unless told to keep them", () => {
    expect(terminalText("\\x1b")).to.equal("\\\\x1b");
    expect(terminalText("ether proto \\ip\u001b", "kept")).to.equal("ether proto \\ip\\x1b");
  });

  it("leaves ordinary text, accents and other scripts as they are", () => {
    expect(terminalText("Switch1 été 交换机 🙂")).to.equal("Switch1 été 交换机 🙂");
  });

  it("never lets a character that acts on a terminal through, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        expect(terminalText(s)).not.to.match(ACTS_ON_A_TERMINAL);
        expect(terminalText(s, "kept")).not.to.match(ACTS_ON_A_TERMINAL);
      }),
    );
  });

  it("writes JSON that holds no such character and reads back as the same value", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: "binary" }), fc.string({ unit: "binary" })), (value) => {
        const text = terminalJson(value);
        expect(text.replace(/\n/g, "")).not.to.match(ACTS_ON_A_TERMINAL);
        expect(JSON.parse(text)).to.deep.equal(value);
      }),
    );
  });
});

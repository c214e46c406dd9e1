/**
 * Where a JSON text first goes wrong, as a 1-based line number. Node's JSON.parse does not always
 * say (its message may quote the text instead of giving a position), and people fix files by line.
 */
export function jsonErrorLine(text: string): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && " \t\r\n".includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw new Error("bad");
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = (): void => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\n") fail();
      i += text[i] === "\\" ? 2 : 1;
    }
    if (i >= text.length) fail();
    i++;
  };
  const number = (): void => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (m === null) fail();
    else i += m[0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    } else if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else number();
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
  } catch {
    /* i is where it went wrong */
  }
  return text.slice(0, Math.min(i, text.length)).split("\n").length;
}

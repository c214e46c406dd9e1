/**
 * Text from elsewhere (names a GNS3 client gave, expressions read from a file, a server's message) as the
 * CLI prints it to a terminal. A name can hold anything a JSON string can; printed raw, ESC and CSI start
 * escape sequences (retitling the window, moving the cursor, hiding what follows), BEL rings, a tab or a
 * newline breaks the tab-separated columns, and bidirectional overrides reorder what is read.
 */

/** C0 controls, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw inside strings (it escapes C0 itself; its own newlines are the layout's). */
const UNPRINTABLE_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

function hex(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * The text with every character a terminal would act on written as an escape (`\t`, `\n`, `\r`, `\xNN`,
 * `\uNNNN`); a backslash doubled, so that a printed `\x1b` always means a name that held ESC and never one
 * that held those four characters. `backslashes: "kept"` is for text whose backslashes mean something to
 * the reader as they are (a pcap-filter expression's `\ip`), at the cost of that ambiguity.
 */
export function terminalText(text: string, backslashes: "doubled" | "kept" = "doubled"): string {
  const doubled = backslashes === "doubled" ? text.replace(/\\/g, "\\\\") : text;
  return doubled.replace(UNPRINTABLE, (ch) => NAMED[ch] ?? hex(ch));
}

/**
 * JSON for a terminal: JSON.stringify already escapes C0 controls; DEL, C1 controls and the bidirectional
 * characters it leaves raw are written as `\uNNNN` too, which any JSON reader reads back as the same text.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNPRINTABLE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

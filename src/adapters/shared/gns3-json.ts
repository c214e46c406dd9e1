/**
 * JSON as GNS3 2.2 writes it, in its answers and its project files alike (Python's json.dumps with
 * indent=4, sort_keys=True and the default ensure_ascii): keys sorted at every level, 4-space indent,
 * ", " never at line ends, every character outside printable ASCII escaped as \uXXXX. The one writer
 * of that layout in netemu (ADR 0053): the HTTP adapter's answers and the `.gns3` files both use it,
 * so a project named `Café ü` reads the same in both. Clients do not depend on the layout, but
 * byte-exact answers (available_filters is 2119 bytes) and files GNS3 can diff do.
 */
const NOT_ASCII = /[\u007f-\uffff]/;

function escapeString(s: string): string {
  const quoted = JSON.stringify(s);
  return NOT_ASCII.test(quoted) ? quoted.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : quoted;
}

/**
 * Renders a value whose nesting the doors bounded (request bodies and project files: JSON_DEPTH_LIMIT;
 * free-form values an embedder gives: CONFIGURATION_LIMITS.jsonDepth), so the recursion is bounded too.
 */
function render(value: unknown, indent: string): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return escapeString(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      const inner = indent + "    ";
      if (Array.isArray(value)) {
        if (value.length === 0) return "[]";
        return `[\n${value.map((v) => inner + render(v, inner)).join(",\n")}\n${indent}]`;
      }
      const keys = Object.keys(value as object)
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .sort();
      if (keys.length === 0) return "{}";
      const items = keys.map((k) => `${inner}${escapeString(k)}: ${render((value as Record<string, unknown>)[k], inner)}`);
      return `{\n${items.join(",\n")}\n${indent}}`;
    }
    default:
      return "null";
  }
}

export function gns3Json(value: unknown): string {
  return render(value, "");
}

/**
 * The text of gns3Json(items.map(present)) in pieces of `perPiece` items, each presented and rendered
 * only when asked for: a list of 100,000 nodes is answered a piece at a time, never holding the event
 * loop (or a string near V8's length limit) for the whole of it. Joined, the pieces are that text
 * byte for byte.
 */
export function* gns3JsonArrayPieces<T>(items: readonly T[], present: (item: T) => unknown, perPiece: number): Generator<string, void, undefined> {
  if (items.length === 0) {
    yield "[]";
    return;
  }
  const step = Math.max(1, Math.floor(perPiece));
  for (let start = 0; start < items.length; start += step) {
    const end = Math.min(items.length, start + step);
    let piece = start === 0 ? "[\n" : ",\n";
    for (let i = start; i < end; i += 1) piece += (i === start ? "" : ",\n") + "    " + render(present(items[i] as T), "    ");
    if (end === items.length) piece += "\n]";
    yield piece;
  }
}

/** GNS3's bodies and files nest a few levels; a deeper one is refused before anything walks it recursively. */
export const JSON_DEPTH_LIMIT = 64;

/** Whether parsed JSON nests deeper than `limit` levels (checked without recursion). */
export function jsonDepthExceeds(value: unknown, limit: number = JSON_DEPTH_LIMIT): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== "object" || v === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The README's shell blocks and what the HTML comment above each says about running it (test/docs). */

/** `needs VPCS 0.8.3`: a block whose VPCS nodes netemu runs (the GNS3 peer's VPCS), not Debian's vpcs on PATH. */
export const PEER_VPCS_TOOL = "VPCS 0.8.3";

/**
 * What the HTML comment just above a block says: `<!-- readme-test: skip, REASON -->` (never run),
 * `<!-- readme-test: needs TOOL, ... -->` (run when TOOL is installed; under CI=true a missing one
 * fails, as every test needing a tool), `<!-- readme-test: tour, ... -->` (the quick tour, run on a
 * fresh clone by test/docs/readme-tour.test.ts), or nothing, or `<!-- readme-test: runs, ... -->` (run).
 */
export type Directive =
  | { readonly kind: "run" }
  | { readonly kind: "skip"; readonly reason: string }
  | { readonly kind: "needs"; readonly tool: string }
  | { readonly kind: "tour" };

export interface ShellBlock {
  readonly line: number;
  readonly text: string;
  readonly directive: Directive;
}

function directiveOf(comment: string | undefined, line: number): Directive {
  const m = comment === undefined ? null : /^<!--\s*readme-test:\s*(.*?)\s*-->$/.exec(comment.trim());
  if (m === null) return { kind: "run" };
  const [word, ...rest] = (m[1] as string).split(",").map((s) => s.trim());
  if (word === "skip" && rest.join(",").length > 0) return { kind: "skip", reason: rest.join(", ") };
  if (word === `needs ${PEER_VPCS_TOOL}`) return { kind: "needs", tool: PEER_VPCS_TOOL };
  const needs = /^needs (\S+)$/.exec(word ?? "");
  if (needs !== null) return { kind: "needs", tool: needs[1] as string };
  if (word === "runs") return { kind: "run" };
  if (word === "tour") return { kind: "tour" };
  throw new Error(`README line ${line}: "${comment}" is not a readme-test directive (skip, REASON | needs TOOL | tour | runs)`);
}

/** The README's ```sh blocks, dedented (blocks in list items are indented), with their directives. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split("\n");
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(sh|bash|shell)\s*$/.exec(lines[i] as string);
    if (open === null) continue;
    const indent = (open[1] as string).length;
    let previous = i - 1;
    while (previous >= 0 && (lines[previous] as string).trim() === "") previous--;
    const directive = directiveOf((lines[previous] ?? "").trim().startsWith("<!--") ? lines[previous] : undefined, i + 1);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j] as string); j++) body.push((lines[j] as string).slice(indent));
    blocks.push({ line: i + 1, text: body.join("\n") + "\n", directive });
    i = j;
  }
  return blocks;
}

import { expect } from "chai";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import MarkdownIt from "markdown-it";
type Token = ReturnType<InstanceType<typeof MarkdownIt>["parse"]>[number];

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The markdown files a reader reaches from the README: the README itself and every page under docs/ (not the ADRs, which are records). */
function pages(): string[] {
  const found = ["README.md"];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && path !== join("docs", "adr")) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".md")) found.push(path);
    }
  };
  walk("docs");
  return found;
}

/**
 * The pages a newcomer reads first, where a doc named must be a link to it: the README and the map
 * of the docs (the reference pages name each other in backticks, as the ADRs do).
 */
const NAMES_AS_LINKS = ["README.md", join("docs", "README.md"), join("docs", "getting-started.md"), join("docs", "troubleshooting.md"), join("docs", "recipes")];

/** GitHub's anchor for a heading: lower case, punctuation but hyphens and underscores dropped, spaces as hyphens. */
function anchorOf(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

interface Rendered {
  readonly source: string[];
  readonly tokens: Token[];
}

function render(page: string): Rendered {
  const text = readFileSync(join(ROOT, page), "utf8");
  return { source: text.split("\n"), tokens: new MarkdownIt({ html: true }).parse(text, {}) };
}

/** The headings markdown-it made, with their level, text and GitHub anchor. */
function headings(r: Rendered): { level: number; text: string; anchor: string; line: number }[] {
  const out: { level: number; text: string; anchor: string; line: number }[] = [];
  r.tokens.forEach((token, i) => {
    if (token.type !== "heading_open") return;
    const text = (r.tokens[i + 1]?.children ?? []).map((c) => c.content).join("");
    out.push({ level: Number(token.tag.slice(1)), text, anchor: anchorOf(text), line: (token.map?.[0] ?? 0) + 1 });
  });
  return out;
}

/** Every inline token with whether it sits inside a link. */
function inlineTokens(r: Rendered): { token: Token; inLink: boolean; line: number }[] {
  const out: { token: Token; inLink: boolean; line: number }[] = [];
  for (const block of r.tokens) {
    if (block.type !== "inline") continue;
    let depth = 0;
    for (const token of block.children ?? []) {
      if (token.type === "link_open") depth++;
      out.push({ token, inLink: depth > 0, line: (block.map?.[0] ?? 0) + 1 });
      if (token.type === "link_close") depth--;
    }
  }
  return out;
}

describe("the README and the docs, rendered as a reader sees them", function () {
  this.timeout(20_000);
  const readme = render("README.md");

  it("renders every ## line of the README as a section heading, none swallowed by a code block", () => {
    const written = readme.source.flatMap((line, i) => (/^## \S/.test(line) ? [{ line: i + 1, text: line.slice(3).trim() }] : []));
    const rendered = headings(readme).filter((h) => h.level === 2).map((h) => ({ line: h.line, text: h.text }));
    expect(rendered).to.deep.equal(written);
    expect(written.map((h) => h.text)).to.include.members(["Use netemu as a GNS3 compute", "Configuration", "Metrics"]);
  });

  for (const page of pages()) {
    it(`closes every code fence it opens (${page})`, () => {
      const r = page === "README.md" ? readme : render(page);
      const fences = r.tokens.filter((t) => t.type === "fence");
      for (const fence of fences) {
        const [start, end] = fence.map ?? [0, 0];
        const closing = r.source[end - 1] ?? "";
        const opening = (r.source[start] ?? "").trim();
        expect(end - start >= 2 && closing.trim() === opening.replace(/^(`{3,}|~{3,}).*$/, "$1"), `${page}: the fence opened on line ${start + 1} is not closed on a line of its own`).to.equal(true);
      }
      const fenceLines = r.source.filter((line) => /^\s*(```|~~~)/.test(line)).length;
      expect(fenceLines, `${page}: a line starting with a fence is neither an opening nor a closing one (text after a closing fence?)`).to.equal(fences.length * 2);
    });

    it(`links only to files and headings that exist (${page})`, () => {
      const r = page === "README.md" ? readme : render(page);
      const ownAnchors = new Set(headings(r).map((h) => h.anchor));
      for (const { token, line } of inlineTokens(r)) {
        if (token.type !== "link_open") continue;
        const href = String(token.attrGet("href") ?? "");
        if (/^[a-z]+:/i.test(href)) continue;
        const [path, anchor] = href.split("#") as [string, string | undefined];
        if (path === "") {
          expect(ownAnchors.has(anchor ?? ""), `${page}:${line}: no heading for #${anchor}`).to.equal(true);
          continue;
        }
        const target = join(ROOT, dirname(page), decodeURIComponent(path));
        expect(existsSync(target), `${page}:${line}: ${href} does not exist`).to.equal(true);
        if (anchor !== undefined && target.endsWith(".md")) {
          const theirs = new Set(headings(render(relative(ROOT, target))).map((h) => h.anchor));
          expect(theirs.has(anchor), `${page}:${line}: ${href}: no such heading`).to.equal(true);
        }
      }
    });

    if (!NAMES_AS_LINKS.some((prefix) => page.startsWith(prefix))) continue;
    it(`makes a link of every doc it names (${page})`, () => {
      const r = page === "README.md" ? readme : render(page);
      const unlinked = inlineTokens(r)
        .filter(({ token, inLink }) => token.type === "code_inline" && !inLink)
        .filter(({ token }) => /^(docs|deploy)\/\S+$|^\S+\.md$/.test(token.content))
        .filter(({ token }) => existsSync(join(ROOT, token.content)) || existsSync(join(ROOT, dirname(page), token.content)))
        .map(({ token, line }) => `${page}:${line}: \`${token.content}\``);
      expect(unlinked, "paths in backticks where a link is meant").to.deep.equal([]);
    });
  }
});

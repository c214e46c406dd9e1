import { expect } from "chai";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
/** The package's entry points: what they export is the public API, used or not inside the repository. */
const ENTRIES = new Set(["src/index.ts", "src/http.ts", "src/pcap-filter.ts", "src/cli.ts"]);

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return tsFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

describe("the source's exports", () => {
  it("are each imported by another file (src, test or bench) or published by an entry point: no dead exports", () => {
    const sources = tsFiles("src");
    const everything = new Map([...sources, ...tsFiles("test"), ...tsFiles("bench")].map((f) => [f, readFileSync(join(ROOT, f), "utf8")]));
    const unused: string[] = [];
    for (const file of sources) {
      if (ENTRIES.has(file)) continue;
      const text = everything.get(file) as string;
      for (const m of text.matchAll(/^export (?:declare )?(?:abstract )?(?:async )?(?:function|const|class|interface|type|let|enum) (\w+)/gm)) {
        const name = m[1] as string;
        const word = new RegExp(`\\b${name}\\b`);
        const usedElsewhere = [...everything].some(([other, t]) => other !== file && word.test(t));
        if (!usedElsewhere) unused.push(`${relative(ROOT, join(ROOT, file))}: ${name}`);
      }
    }
    expect(unused, "export only what another module uses").to.deep.equal([]);
  });
});

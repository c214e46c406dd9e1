import { expect } from "chai";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

type Json = { readonly [key: string]: unknown };
const readJson = (path: string): Json => JSON.parse(readFileSync(join(ROOT, path), "utf8")) as Json;

/** The fields npm copies from a package.json into its lock entry; a difference makes `npm install` rewrite the lock. */
const COPIED = ["name", "version", "license", "bin", "engines", "dependencies", "devDependencies", "optionalDependencies", "peerDependencies"] as const;
/** npm marks a package whose install runs a script (`hasInstallScript`), and rewrites a lock that does not say so. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"] as const;

function expectedLockEntry(manifest: Json): Json {
  const entry: { [key: string]: unknown } = {};
  for (const field of COPIED) if (manifest[field] !== undefined) entry[field] = manifest[field];
  const scripts = (manifest["scripts"] ?? {}) as Json;
  if (INSTALL_SCRIPTS.some((name) => scripts[name] !== undefined)) entry["hasInstallScript"] = true;
  // npm writes a string bin as an object keyed by the package's name.
  if (typeof entry["bin"] === "string") entry["bin"] = { [manifest["name"] as string]: entry["bin"] };
  return entry;
}

function lockEntry(lock: Json, key: string): Json {
  const packages = lock["packages"] as { readonly [key: string]: Json };
  const found = packages[key];
  if (found === undefined) throw new Error(`package-lock.json has no entry "${key}"`);
  const entry: { [key: string]: unknown } = {};
  for (const field of [...COPIED, "hasInstallScript"]) if (found[field] !== undefined) entry[field] = found[field];
  return entry;
}

describe("the package's files", () => {
  /**
   * A fresh clone's first `npm install` must leave package-lock.json as committed: this is what npm
   * rewrites when package.json changed without the lock (a new dependency, a pin, an install script),
   * checked offline and in milliseconds, where `npm install --package-lock-only` would need the registry.
   */
  describe("package-lock.json", () => {
    const lock = readJson("package-lock.json");

    it("describes the root package as package.json does, so npm install does not rewrite it", () => {
      expect(lock["name"]).to.equal(readJson("package.json")["name"]);
      expect(lock["version"]).to.equal(readJson("package.json")["version"]);
      expect(lockEntry(lock, "")).to.deep.equal(expectedLockEntry(readJson("package.json")));
    });

    it("describes every local (file:) dependency as its own package.json does", () => {
      const manifest = readJson("package.json");
      const all = { ...(manifest["dependencies"] as Json), ...(manifest["devDependencies"] as Json) };
      const local = Object.entries(all).filter(([, spec]) => typeof spec === "string" && spec.startsWith("file:"));
      expect(local, "no file: dependency to check").to.not.be.empty;
      for (const [name, spec] of local) {
        const dir = (spec as string).slice("file:".length);
        const expected = expectedLockEntry(readJson(join(dir, "package.json")));
        const { name: _ignored, ...entry } = lockEntry(lock, dir);
        const { name: _alsoIgnored, ...want } = expected;
        expect(entry, `${dir} (${name})`).to.deep.equal(want);
        expect((lock["packages"] as { readonly [key: string]: Json })[`node_modules/${name}`], `node_modules/${name}`).to.deep.include({ resolved: dir, link: true });
      }
    });

    it("locks every exactly pinned dependency at its pinned version", () => {
      const manifest = readJson("package.json");
      const packages = lock["packages"] as { readonly [key: string]: Json };
      for (const [name, spec] of Object.entries({ ...(manifest["dependencies"] as Json), ...(manifest["devDependencies"] as Json) })) {
        if (typeof spec !== "string" || !/^\d+\.\d+\.\d+$/.test(spec)) continue;
        expect(packages[`node_modules/${name}`]?.["version"], name).to.equal(spec);
      }
    });
  });

  it("has the license package.json names (MIT), with the project's name", () => {
    expect(readJson("package.json")["license"]).to.equal("MIT");
    const path = join(ROOT, "LICENSE");
    expect(existsSync(path), "LICENSE is missing").to.equal(true);
    const text = readFileSync(path, "utf8");
    expect(text).to.match(/^MIT License\n\nCopyright \(c\) \d{4} The netemu authors\n/);
    expect(text).to.include("Permission is hereby granted, free of charge, to any person obtaining a copy");
    expect(text).to.include('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });
});

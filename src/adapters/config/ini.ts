export class IniSyntaxError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

/**
 * The INI dialect of GNS3's gns3_server.conf: [Section], key = value, # and ; comments. A section or
 * a key given twice is refused, as Python's configparser (strict) refuses it: which one counts would
 * be a guess, and an operator editing the first would see no effect.
 */
export function parseIni(text: string): Record<string, Record<string, string>> {
  const sections: Record<string, Record<string, string>> = Object.create(null) as Record<string, Record<string, string>>;
  const sectionLines = new Map<string, number>();
  let keyLines = new Map<string, number>();
  let current: Record<string, string> | undefined;
  let currentName = "";
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) return;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header !== null) {
      const name = (header[1] as string).trim();
      const first = sectionLines.get(name);
      if (first !== undefined) throw new IniSyntaxError(i + 1, `section [${name}] appears a second time (first at line ${first}): merge the two`);
      sectionLines.set(name, i + 1);
      keyLines = new Map();
      currentName = name;
      current = sections[name] = Object.create(null) as Record<string, string>;
      return;
    }
    const eq = line.search(/[=:]/);
    if (eq <= 0) throw new IniSyntaxError(i + 1, `expected "key = value" or "[Section]", got "${line}"`);
    if (current === undefined) throw new IniSyntaxError(i + 1, `"${line}" comes before any [Section]`);
    const key = line.slice(0, eq).trim().toLowerCase();
    const first = keyLines.get(key);
    if (first !== undefined) throw new IniSyntaxError(i + 1, `"${key}" appears a second time in [${currentName}] (first at line ${first})`);
    keyLines.set(key, i + 1);
    current[key] = line.slice(eq + 1).trim();
  });
  return sections;
}

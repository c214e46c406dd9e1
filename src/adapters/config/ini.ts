export class IniSyntaxError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

/** The INI dialect of GNS3's gns3_server.conf: [Section], key = value, # and ; comments. */
export function parseIni(text: string): Record<string, Record<string, string>> {
  const sections: Record<string, Record<string, string>> = Object.create(null) as Record<string, Record<string, string>>;
  let current: Record<string, string> | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) return;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header !== null) {
      const name = (header[1] as string).trim();
      current = sections[name] ?? (sections[name] = Object.create(null) as Record<string, string>);
      return;
    }
    const eq = line.search(/[=:]/);
    if (eq <= 0) throw new IniSyntaxError(i + 1, `expected "key = value" or "[Section]", got "${line}"`);
    if (current === undefined) throw new IniSyntaxError(i + 1, `"${line}" comes before any [Section]`);
    current[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  });
  return sections;
}

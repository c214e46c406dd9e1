import { CONFIGURATION_LIMITS } from "../../src/domain/configuration/limits.js";

/**
 * The biggest bpf filter the API accepts, with realistic costly content (issue 25): 64 lines
 * (CONFIGURATION_LIMITS.filterLines), 65,279 characters in all (under filterText), each line a list of
 * `host`, `net` and `port` terms or-ed together, as a blocklist is written. Nothing in it matches the
 * frames the tests and benchmarks send (10.0.0.0/8 hosts and ports 1-999 are left out), so every frame
 * runs every line to its end: the worst case for the matcher.
 */
export const BIGGEST_BPF_CHARACTERS = 65_279;

export function biggestBpfFilter(): string[] {
  const lines: string[] = [];
  const count = CONFIGURATION_LIMITS.filterLines;
  let budget = BIGGEST_BPF_CHARACTERS;
  for (let i = 0; i < count; i++) {
    const target = Math.floor(budget / (count - i));
    const terms: string[] = [];
    let length = 0;
    for (let t = 0; ; t++) {
      const term =
        t % 3 === 0 ? `host 172.${16 + (i % 16)}.${t % 250}.${(i * 7 + t) % 250}` : t % 3 === 1 ? `net 192.168.${(i * 3 + t) % 256}.0/24` : `port ${2000 + i * 100 + t}`;
      const extra = (terms.length === 0 ? 0 : 4) + term.length;
      if (length + extra > target) break;
      terms.push(term);
      length += extra;
    }
    // Padded with spaces before its last term to the exact length (lines are trimmed, so not at an end):
    // the line's text, not its terms, is what the limits count.
    const last = terms.pop() as string;
    const line = `${terms.join(" or ")} or `.padEnd(target - last.length, " ") + last;
    lines.push(line);
    budget -= line.length;
  }
  return lines;
}

/**
 * netemu's own node pictures (MIT, drawn for netemu; ADR 0092), served as GNS3 serves its symbols: by
 * file name, whatever theme directory an id names (`:/symbols/ethernet_switch.svg`,
 * `:/symbols/classic/ethernet_switch.svg`). Each SVG carries `width` and `height` attributes: the GNS3
 * web UI reads them from the text to size a node it places, and fails without them. Kept as text in a
 * module so that they ship in the package's dist/ with the code that serves them.
 */

export interface NodeSymbol {
  /** The file name GNS3's ids end with. */
  readonly fileName: string;
  readonly width: number;
  readonly height: number;
  readonly svg: string;
}

const STROKE = `stroke="#1d3557" stroke-width="2" stroke-linejoin="round"`;

function picture(fileName: string, width: number, height: number, title: string, body: string): NodeSymbol {
  const svg =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${title}">` +
    `<title>${title}</title>${body}</svg>\n`;
  return { fileName, width, height, svg };
}

/** A box with two arrows each way: frames switched between ports. */
function switchBox(fileName: string, title: string, fill: string, tag: string): NodeSymbol {
  const arrows =
    `<path d="M14 15h30m-6-5 6 5-6 5M46 25H16m6-5-6 5 6 5" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>`;
  const text = tag === "" ? "" : `<text x="30" y="39" font-family="sans-serif" font-size="8" font-weight="bold" fill="#fff" text-anchor="middle">${tag}</text>`;
  return picture(fileName, 60, 44, title, `<rect x="1" y="3" width="58" height="38" rx="6" fill="${fill}" ${STROKE}/>${arrows}${text}`);
}

/** A screen on a stand; `screen` is drawn on it. */
function computer(fileName: string, title: string, screen: string): NodeSymbol {
  return picture(
    fileName,
    52,
    50,
    title,
    `<rect x="2" y="2" width="48" height="34" rx="3" fill="#e9eef5" ${STROKE}/>` +
      `<rect x="7" y="7" width="38" height="24" fill="#457b9d"/>${screen}` +
      `<path d="M20 36h12l3 8H17z" fill="#a8b3c2" ${STROKE}/><rect x="11" y="44" width="30" height="4" rx="2" fill="#a8b3c2" ${STROKE}/>`,
  );
}

const CLOUD_PATH = "M16 44a12 12 0 0 1-2-24 16 16 0 0 1 30-6 12 12 0 0 1 18 8 11 11 0 0 1-2 22z";

export const NODE_SYMBOLS: readonly NodeSymbol[] = [
  switchBox("ethernet_switch.svg", "Ethernet switch", "#2a9d8f", ""),
  switchBox("frame_relay_switch.svg", "Frame Relay switch", "#6d597a", "FR"),
  switchBox("atm_switch.svg", "ATM switch", "#b56576", "ATM"),
  picture(
    "hub.svg",
    60,
    44,
    "Ethernet hub",
    `<rect x="1" y="3" width="58" height="38" rx="6" fill="#e9c46a" ${STROKE}/>` +
      `<path d="M30 22 12 12m18 10L12 32m18-10 18-10M30 22l18 10" stroke="#1d3557" stroke-width="2.5" stroke-linecap="round"/>` +
      `<circle cx="30" cy="22" r="5" fill="#1d3557"/>`,
  ),
  computer("computer.svg", "Computer", ""),
  computer("vpcs_guest.svg", "VPCS", `<text x="26" y="23" font-family="monospace" font-size="9" font-weight="bold" fill="#fff" text-anchor="middle">PC</text>`),
  computer("linux_guest.svg", "Linux host", `<path d="M11 13l5 4-5 4M19 24h9" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round"/>`),
  picture("cloud.svg", 76, 48, "Cloud", `<path d="${CLOUD_PATH}" fill="#dbe7f3" ${STROKE}/>`),
  picture(
    "nat.svg",
    76,
    48,
    "NAT",
    `<path d="${CLOUD_PATH}" fill="#f4d8cd" ${STROKE}/>` +
      `<text x="38" y="36" font-family="sans-serif" font-size="12" font-weight="bold" fill="#1d3557" text-anchor="middle">NAT</text>`,
  ),
];

const BY_FILE_NAME = new Map(NODE_SYMBOLS.map((s) => [s.fileName, s]));

/** The id netemu lists a symbol under (GNS3 lists its built-in ones under their theme's directory). */
export function symbolIdOf(symbol: NodeSymbol): string {
  return `:/symbols/netemu/${symbol.fileName}`;
}

const COMPUTER = BY_FILE_NAME.get("computer.svg") as NodeSymbol;

/**
 * The symbol an id names, by its file name whatever precedes it, as GNS3 2.2 resolves them: the web UI
 * asks for `:/symbols/x.svg` to draw a node and for `/symbols/x.svg` (its leading colon cut) when a
 * template is dragged in. A name netemu has no picture for gets the computer, as GNS3 answers its
 * classic computer for a symbol it cannot find (a node keeps the symbol a GNS3 project gave it).
 */
export function findSymbol(symbolId: string): NodeSymbol {
  const fileName = symbolId.slice(symbolId.lastIndexOf("/") + 1);
  return BY_FILE_NAME.get(fileName) ?? COMPUTER;
}

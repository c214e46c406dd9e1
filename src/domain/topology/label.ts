export interface Label {
  readonly text: string;
  readonly style?: string | null;
  readonly x?: number | null;
  readonly y?: number;
  readonly rotation?: number;
}

const DEFAULT_PORT_LABEL_STYLE =
  "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;";

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
}

/** GNS3's default link-end label: "<adapter>/<port>", HTML-escaped, in the TypeWriter style. */
export function defaultPortLabel(adapterNumber: number, portNumber: number): Label {
  return { text: escapeHtml(`${adapterNumber}/${portNumber}`), style: DEFAULT_PORT_LABEL_STYLE };
}

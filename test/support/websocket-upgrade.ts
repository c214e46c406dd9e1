import { WebSocket } from "ws";

/** What a websocket upgrade came to: the refusal's status, body and realm, the connection error's code, or open. */
export interface UpgradeOutcome {
  readonly status?: number;
  readonly body?: string;
  readonly wwwAuthenticate?: string;
  readonly error?: string;
  readonly open?: true;
}

/** Tries the upgrade at `url` and reads the refusal's answer whole; an upgrade that opens is closed at once. */
export function upgradeOutcome(url: string, headers: Record<string, string> = {}): Promise<UpgradeOutcome> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    ws.once("open", () => {
      ws.terminate();
      resolve({ open: true });
    });
    ws.once("unexpected-response", (req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        req.destroy();
        const wwwAuthenticate = res.headers["www-authenticate"];
        resolve({ status: res.statusCode ?? 0, body, ...(wwwAuthenticate === undefined ? {} : { wwwAuthenticate }) });
      });
    });
  });
}

import { randomBytes } from "node:crypto";
import { connect as tcpConnect, type Socket } from "node:net";

/**
 * A websocket client that never reads after the handshake (nor answers pings or close frames): a
 * stuck controller or browser tab, or a half-open TCP connection. Rejects when the upgrade is refused.
 */
export function stuckWebsocketClient(port: number, path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, "127.0.0.1");
    let head = "";
    socket.once("error", reject);
    socket.on("connect", () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    const onData = (chunk: Buffer): void => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      socket.pause();
      if (!head.startsWith("HTTP/1.1 101")) return reject(new Error(`no upgrade: ${head.split("\r\n")[0]}`));
      socket.on("error", () => undefined); // a reset when the server drops it
      resolve(socket);
    };
    socket.on("data", onData);
  });
}

import { expect } from "chai";
import { createServer as createHttpServer } from "node:http";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import { WebSocket as WebSocketClient, WebSocketServer, type WebSocket } from "ws";
import { connectConsole, relayConsole } from "../../src/adapters/http/console-socket.js";
import type { ConsoleRelayLimits } from "../../src/adapters/http/console-relay-options.js";
import { stuckWebsocketClient } from "../support/stuck-websocket.js";
import { refusalStatus } from "../../src/adapters/http/error-mapping.js";
import { OPEN_NODE_CONSOLE_REFUSALS } from "../../src/application/use-cases/compute/open-node-console.js";
import { OPEN_CONTROLLER_NODE_CONSOLE_REFUSALS } from "../../src/application/use-cases/controller/open-controller-node-console.js";
import { RESET_NODE_CONSOLE_REFUSALS } from "../../src/application/use-cases/compute/reset-node-console.js";
import { RESET_CONTROLLER_NODE_CONSOLE_REFUSALS } from "../../src/application/use-cases/controller/reset-controller-node-console.js";
import { closeReason } from "../../src/adapters/http/notification-socket.js";

/** An HTTP server relaying each websocket upgrade to `node`'s console, as netemu's upgrade does (a listening node, closed with the relay). */
async function relayServer(node: Server, limits?: ConsoleRelayLimits): Promise<{ readonly port: number; close(): Promise<void> }> {
  await new Promise<void>((r) => node.listen(0, "127.0.0.1", r));
  const wss = new WebSocketServer({ noServer: true });
  const http = createHttpServer();
  http.on("upgrade", (req, socket, head) =>
    void connectConsole("127.0.0.1", (node.address() as AddressInfo).port).then((telnet) => {
      if (E.isLeft(telnet)) return socket.destroy();
      wss.handleUpgrade(req, socket, head, (ws: WebSocket) => relayConsole(ws, telnet.right, limits));
    }),
  );
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  return {
    port: (http.address() as AddressInfo).port,
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((r) => http.close(() => r()));
      await new Promise<void>((r) => node.close(() => r()));
    },
  };
}

describe("web console relay (ADR 0095)", function () {
  it("answers every refusal of opening a console with a 4xx before the upgrade, none with a 500", () => {
    for (const tag of [...OPEN_NODE_CONSOLE_REFUSALS, ...OPEN_CONTROLLER_NODE_CONSOLE_REFUSALS]) {
      expect(refusalStatus(tag), tag).to.be.within(400, 499);
    }
  });

  this.timeout(30_000);

  it("speaks telnet for the browser: the node's options answered, its commands kept from the page, a 255 typed doubled", async () => {
    // A node that asks to echo, prints, and records what reaches it.
    const reached: number[] = [];
    const node: Server = createServer((socket: Socket) => {
      socket.on("data", (b: Buffer) => reached.push(...b));
      socket.on("error", () => undefined);
      socket.write(Buffer.from([255, 251, 1, 72, 105, 255, 255]));
    });
    const relay = await relayServer(node);
    const browser = new WebSocketClient(`ws://127.0.0.1:${relay.port}/console/ws`);
    try {
      const shown: number[] = [];
      browser.on("message", (data: Buffer) => shown.push(...data));
      await new Promise<void>((resolve, reject) => browser.once("open", () => resolve()).once("error", reject));
      browser.send(Buffer.from([1, 255, 2]));
      const deadline = Date.now() + 5000;
      while ((shown.length < 3 || reached.length < 7) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(shown, "what the page is sent").to.deep.equal([72, 105, 255]);
      expect(reached, "what reaches the node").to.deep.equal([255, 253, 1, 1, 255, 255, 2]);
    } finally {
      browser.terminate();
      await relay.close();
    }
  });

  it("answers why a console cannot be reached", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const opened = await connectConsole("127.0.0.1", port);
    expect(E.isLeft(opened) && opened.left).to.match(/ECONNREFUSED/);
  });

  it("pauses reading a console whose browser does not read, then drops the browser and frees the console socket", async () => {
    // A node that prints without end, as `ping -t` does: how much it wrote is what the relay read.
    let written = 0;
    let consoleClosed = false;
    const node: Server = createServer((socket: Socket) => {
      const chunk = Buffer.alloc(16 * 1024, 0x41);
      const flood = (): void => {
        while (!socket.destroyed && socket.write(chunk)) written += chunk.length;
        if (!socket.destroyed) written += chunk.length;
      };
      socket.on("drain", flood);
      socket.on("error", () => undefined);
      socket.on("close", () => (consoleClosed = true));
      flood();
    });
    const relay = await relayServer(node, { pauseAboveBytes: 64 * 1024, stalledMs: 1500 });
    const client = await stuckWebsocketClient(relay.port, "/console/ws");
    try {
      await new Promise((r) => setTimeout(r, 800));
      const heldWhilePaused = written;
      // Kernel buffers on both sockets (a few MiB at most on loopback) plus the pause bound: not the flood's pace.
      expect(heldWhilePaused).to.be.below(32 * 1024 * 1024);
      const deadline = Date.now() + 10_000;
      while (!consoleClosed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(consoleClosed, "the console socket was freed").to.equal(true);
    } finally {
      client.destroy();
      await relay.close();
    }
  });
});

describe("/v3/compute's web console refusals (ADR 0099)", () => {
  it("tell the refusal in the close frame's reason, cut on a character to the 123 bytes a reason may hold", () => {
    expect(closeReason("VPCS PC1 is not started: start it first")).to.equal("VPCS PC1 is not started: start it first");
    const long = `Cannot connect to node ${"é".repeat(100)} telnet server: connect ECONNREFUSED 127.0.0.1:5000`;
    const cut = closeReason(long);
    expect(Buffer.byteLength(cut)).to.be.at.most(123);
    expect(cut).to.match(/^Cannot connect to node é+\.\.\.$/);
  });

  it("answer every refusal of resetting a console with a 4xx, none with a 500", () => {
    for (const tag of [...RESET_NODE_CONSOLE_REFUSALS, ...RESET_CONTROLLER_NODE_CONSOLE_REFUSALS]) expect(refusalStatus(tag), tag).to.be.within(400, 499);
  });
});

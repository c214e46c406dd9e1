import { expect } from "chai";
import { createServer as createHttpServer } from "node:http";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import { WebSocketServer, type WebSocket } from "ws";
import { TelnetLine, connectConsole, relayConsole } from "../../src/adapters/http/console-socket.js";
import { stuckWebsocketClient } from "../support/stuck-websocket.js";
import { refusalStatus } from "../../src/adapters/http/error-mapping.js";
import { OPEN_NODE_CONSOLE_REFUSALS } from "../../src/application/use-cases/compute/open-node-console.js";
import { OPEN_CONTROLLER_NODE_CONSOLE_REFUSALS } from "../../src/application/use-cases/controller/open-controller-node-console.js";
import { RESET_NODE_CONSOLE_REFUSALS } from "../../src/application/use-cases/compute/reset-node-console.js";
import { RESET_CONTROLLER_NODE_CONSOLE_REFUSALS } from "../../src/application/use-cases/controller/reset-controller-node-console.js";
import { closeReason } from "../../src/adapters/http/notification-socket.js";

describe("web console relay (ADR 0095)", function () {
  it("answers every refusal of opening a console with a 4xx before the upgrade, none with a 500", () => {
    for (const tag of [...OPEN_NODE_CONSOLE_REFUSALS, ...OPEN_CONTROLLER_NODE_CONSOLE_REFUSALS]) {
      expect(refusalStatus(tag), tag).to.be.within(400, 499);
    }
  });

  this.timeout(30_000);

  describe("TelnetLine", () => {
    it("keeps telnet commands from the terminal and answers the node's options once: echo and go-ahead accepted, others refused", () => {
      const line = new TelnetLine();
      const first = line.receive(Buffer.from([255, 251, 1, 255, 253, 1, 72, 105, 255, 251, 3, 255, 253, 24]));
      expect(first.text.toString()).to.equal("Hi");
      expect([...first.answers]).to.deep.equal([255, 253, 1, 255, 252, 1, 255, 253, 3, 255, 252, 24]);
      expect([...line.receive(Buffer.from([255, 251, 1])).answers]).to.deep.equal([]);
    });

    it("follows a command split across chunks, a doubled 255 as data and a subnegotiation skipped whole", () => {
      const line = new TelnetLine();
      expect(line.receive(Buffer.from([65, 255])).text.toString()).to.equal("A");
      expect([...line.receive(Buffer.from([255, 66, 255, 250, 24, 1, 255, 240, 67])).text]).to.deep.equal([255, 66, 67]);
    });

    it("doubles a 255 the terminal sends, so the node reads it as data", () => {
      expect([...TelnetLine.send(Buffer.from([1, 255, 2]))]).to.deep.equal([1, 255, 255, 2]);
    });
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
    await new Promise<void>((r) => node.listen(0, "127.0.0.1", r));
    const wss = new WebSocketServer({ noServer: true });
    const http = createHttpServer();
    http.on("upgrade", (req, socket, head) =>
      void connectConsole("127.0.0.1", (node.address() as AddressInfo).port).then((telnet) => {
        if (E.isLeft(telnet)) return socket.destroy();
        wss.handleUpgrade(req, socket, head, (ws: WebSocket) => relayConsole(ws, telnet.right, { pauseAboveBytes: 64 * 1024, stalledMs: 1500 }));
      }),
    );
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const client = await stuckWebsocketClient((http.address() as AddressInfo).port, "/console/ws");
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
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((r) => http.close(() => r()));
      await new Promise<void>((r) => node.close(() => r()));
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

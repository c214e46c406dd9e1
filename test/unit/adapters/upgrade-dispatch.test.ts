import { expect } from "chai";
import type { IncomingMessage, ServerResponse } from "node:http";
import { PassThrough } from "node:stream";
import { servedWhenFirstCalled, upgradeDispatch } from "../../../src/adapters/http/upgrade-dispatch.js";

const request = (upgrade: string | undefined, headers: Record<string, string> = {}): IncomingMessage =>
  ({ headers: { ...(upgrade === undefined ? {} : { upgrade }), ...headers } }) as unknown as IncomingMessage;

describe("where a request that asks to upgrade goes (ADR 0078)", () => {
  it("hands a websocket, however its name is cased, to the notification sockets", () => {
    const handed: string[] = [];
    const dispatch = upgradeDispatch({ handleUpgrade: (req) => void handed.push(String(req.headers.upgrade)) }, () => expect.fail("not for the app"));
    dispatch(request("websocket"), new PassThrough(), Buffer.alloc(0));
    dispatch(request("WebSocket"), new PassThrough(), Buffer.alloc(0));
    expect(handed).to.deep.equal(["websocket", "WebSocket"]);
  });

  it("does not hand another protocol's offer to the notification sockets: a body after it is refused 400 on the socket", async () => {
    const dispatch = upgradeDispatch({ handleUpgrade: () => expect.fail("not a websocket") }, () => expect.fail("a request with a body is not served"));
    const socket = new PassThrough();
    const written: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => written.push(chunk));
    dispatch(request("h2c", { "content-length": "5" }), socket, Buffer.alloc(0));
    await new Promise((resolve) => setImmediate(resolve));
    expect(Buffer.concat(written).toString()).to.match(/^HTTP\/1\.1 400 Bad Request/);
  });

  it("composes the app when it first serves a request, not before: middleware added meanwhile counts", () => {
    let composed = 0;
    const served: string[] = [];
    const app = {
      callback: () => {
        composed++;
        return (req: IncomingMessage) => void served.push(String(req.headers["x-which"]));
      },
    };
    const serve = servedWhenFirstCalled(app as never);
    expect(composed).to.equal(0);
    serve(request(undefined, { "x-which": "first" }), {} as ServerResponse);
    serve(request(undefined, { "x-which": "second" }), {} as ServerResponse);
    expect(composed).to.equal(1);
    expect(served).to.deep.equal(["first", "second"]);
  });
});

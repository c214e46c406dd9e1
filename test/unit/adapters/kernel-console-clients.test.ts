import { expect } from "chai";
import { createServer, connect, type Server, type Socket } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import { KernelConsoleClients } from "../../../src/adapters/system/kernel-console-clients.js";

/** A console as VPCS serves it: it accepts one client and leaves the next queued in its backlog. */
async function oneClientConsole(): Promise<{ server: Server; port: number }> {
  const server = createServer({ pauseOnConnect: true });
  let served = false;
  server.on("connection", (s) => {
    if (served) return;
    served = true;
    s.resume();
    s.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address !== null ? address.port : 0 };
}

async function client(port: number): Promise<{ socket: Socket; closed: Promise<boolean> }> {
  const socket = connect({ host: "127.0.0.1", port });
  socket.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return { socket, closed: new Promise((resolve) => socket.once("close", () => resolve(true))) };
}

const within = (p: Promise<boolean>, ms: number): Promise<boolean> => Promise.race([p, new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe("KernelConsoleClients: a console's clients dropped by the kernel (ss -K)", function () {
  this.timeout(15_000);
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy();
    for (const s of servers.splice(0)) s.close();
  });

  it("drops every client of the console's port, the one served and the one waiting, and the console still accepts", async function () {
    if (process.getuid?.() !== 0) this.skip();
    const { server, port } = await oneClientConsole();
    servers.push(server);
    const served = await client(port);
    const waiting = await client(port);
    sockets.push(served.socket, waiting.socket);
    const dropped = await new KernelConsoleClients().dropAll(port);
    expect(dropped).to.deep.equal(E.right(2));
    expect(await within(served.closed, 5000), "the served client was dropped").to.equal(true);
    expect(await within(waiting.closed, 5000), "the waiting client was dropped").to.equal(true);
    const next = await client(port);
    sockets.push(next.socket);
    expect(next.socket.readyState).to.equal("open");
  });

  it("leaves the connections of other ports alone", async function () {
    if (process.getuid?.() !== 0) this.skip();
    const a = await oneClientConsole();
    const b = await oneClientConsole();
    servers.push(a.server, b.server);
    const other = await client(b.port);
    sockets.push(other.socket);
    expect(await new KernelConsoleClients().dropAll(a.port)).to.deep.equal(E.right(0));
    expect(await within(other.closed, 300)).to.equal(false);
  });

  it("answers why when ss cannot be run", async () => {
    const dropped = await new KernelConsoleClients("/nonexistent/ss").dropAll(5000);
    expect(E.isLeft(dropped) && dropped.left).to.match(/\/nonexistent\/ss -K .* failed: .*ENOENT/);
  });

  it("answers the kernel's refusal, which ss reports on its standard error while exiting 0 (no CAP_NET_ADMIN)", async function () {
    if (process.getuid?.() !== 0) this.skip();
    const { server, port } = await oneClientConsole();
    servers.push(server);
    sockets.push((await client(port)).socket);
    // setpriv runs ss as nobody, as an unprivileged netemu would.
    const refused = await new KernelConsoleClientsAs(["--reuid=nobody", "--regid=nogroup", "--clear-groups"]).dropAll(port);
    expect(E.isLeft(refused) && refused.left).to.match(/Operation not permitted/);
  });
});

/** ss run through setpriv: the same adapter without the privileges. */
class KernelConsoleClientsAs extends KernelConsoleClients {
  constructor(setprivArgs: readonly string[]) {
    super("setpriv", [...setprivArgs, "ss"]);
  }
}

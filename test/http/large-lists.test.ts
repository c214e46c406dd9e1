import { expect } from "chai";
import { createHash } from "node:crypto";
import { request } from "node:http";
import * as E from "fp-ts/lib/Either.js";
import type { LinkRepository, NodeRepository } from "../../src/application/ports/repositories.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import type { ControllerNode } from "../../src/domain/topology/node.js";
import { presentLink, presentNode } from "../../src/adapters/http/controller/presenters.js";
import { gns3Json } from "../../src/adapters/shared/gns3-json.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";

/**
 * Large lists (issue 17, ADR 0059): a project's 100,000 nodes are answered with the very bytes GNS3's
 * layout gives, and while they are made other requests are answered.
 */

const id = (i: number): string => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;

/** GET on its own connection: status, content type, the body's length and SHA-256; `onFirstChunk` when the body starts. */
function get(url: string, onFirstChunk: () => void = () => undefined): Promise<{ status: number; type: string | undefined; bytes: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      const hash = createHash("sha256");
      let bytes = 0;
      res.on("data", (c: Buffer) => {
        if (bytes === 0) onFirstChunk();
        bytes += c.length;
        hash.update(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], bytes, sha256: hash.digest("hex") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const digest = (text: string) => ({ bytes: Buffer.byteLength(text), sha256: createHash("sha256").update(text).digest("hex") });

describe("HTTP: large lists answered without holding the event loop", function () {
  this.timeout(120_000);
  let s: TestServer;
  let projectId: string;
  let model: ControllerNode;

  beforeEach(async () => {
    s = await startTestServer();
    const uc = s.netemu.useCases;
    const project = await uc.createProject.execute({ name: "large" });
    if (E.isLeft(project)) throw new Error(project.left._tag);
    projectId = project.right.projectId;
    const made = await uc.createNode.execute({ projectId, name: "SW", nodeType: "ethernet_switch", computeId: "local" });
    if (E.isLeft(made)) throw new Error(made.left._tag);
    // One port each keeps the 100,000-node answer near 100 MB.
    model = { ...made.right.node, portsMapping: made.right.node.portsMapping.slice(0, 1) };
  });
  afterEach(() => s.close());

  it("answers 100,000 nodes with the same bytes as the list rendered at once, answering /v2/version before the list is made", async () => {
    const nodes = s.netemu.container.resolve<NodeRepository>(TOKENS.NodeRepository);
    const COUNT = 100_000;
    const WATCHED = COUNT - 10;
    let versionAnswered = false;
    /** Whether /v2/version had been answered when the list came to its 99,990th node. */
    let answeredBeforeTheEnd: boolean | undefined;
    for (let i = 1; i < COUNT; i += 1) {
      const node: ControllerNode = { ...model, nodeId: id(i), name: `SW${i}` };
      if (i === WATCHED) {
        Object.defineProperty(node, "name", {
          enumerable: true,
          get: () => {
            answeredBeforeTheEnd ??= versionAnswered;
            return `SW${i}`;
          },
        });
      }
      await nodes.save(node);
    }

    let version: Promise<number> | undefined;
    const list = await get(`${s.url}/v2/projects/${projectId}/nodes`, () => {
      // Sent once the list has started: it must not wait for the whole list to be made.
      version = get(`${s.url}/v2/version`).then((r) => {
        versionAnswered = true;
        return r.status;
      });
    });
    expect(await version).to.equal(200);
    expect(answeredBeforeTheEnd, "/v2/version answered before the list reached its end").to.equal(true);

    const views = await s.netemu.useCases.listNodes.execute({ projectId });
    if (E.isLeft(views)) throw new Error(views.left._tag);
    expect(views.right).to.have.length(COUNT);
    const expected = digest(gns3Json(views.right.map((v) => presentNode(v, s.netemu.settings.host))));
    expect(list).to.deep.equal({ status: 200, type: "application/json", ...expected });
  });

  it("streams a list longer than a few hundred links with the same bytes, and a short one at once with its length", async () => {
    const links = s.netemu.container.resolve<LinkRepository>(TOKENS.LinkRepository);
    const uc = s.netemu.useCases;
    const other = await uc.createNode.execute({ projectId, name: "SW1", nodeType: "ethernet_switch", computeId: "local" });
    if (E.isLeft(other)) throw new Error(other.left._tag);
    const link = await uc.createLink.execute({ projectId, nodes: [{ nodeId: model.nodeId, adapterNumber: 0, portNumber: 0 }, { nodeId: other.right.node.nodeId, adapterNumber: 0, portNumber: 0 }] });
    if (E.isLeft(link)) throw new Error(link.left._tag);
    const expectedFor = async () => {
      const all = await uc.listLinks.execute({ projectId });
      if (E.isLeft(all)) throw new Error(all.left._tag);
      return digest(gns3Json(all.right.map(presentLink)));
    };

    const short = await fetch(`${s.url}/v2/projects/${projectId}/links`);
    const shortText = await short.text();
    expect(short.headers.get("content-length")).to.equal(String(Buffer.byteLength(shortText)));
    expect(digest(shortText)).to.deep.equal(await expectedFor());

    for (let i = 2; i <= 1000; i += 1) await links.save({ ...link.right, linkId: id(i) });
    const long = await get(`${s.url}/v2/projects/${projectId}/links`);
    expect(long).to.deep.equal({ status: 200, type: "application/json", ...(await expectedFor()) });
  });

  it("answers an unknown project's list with GNS3's 404, as before", async () => {
    const r = await s.request("GET", `/v2/projects/${id(999)}/nodes`);
    expect(r.status).to.equal(404);
    expect(r.json).to.include({ status: 404 });
  });
});

import { expect } from "chai";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebSocket } from "ws";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { GNS3_PEER_VPCS } from "../support/vpcs-console.js";
import { Gns3Server, requireGns3Peer } from "../support/gns3-peer.js";

type Frame = { action: string; event: Record<string, unknown> };

interface Peer {
  readonly url: string;
  request(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The same steps a web UI user takes, on a project of `peer`, while a websocket client watches the
 * project: the frames it got (pings aside), and the REST answers of each step.
 */
async function watchSteps(peer: Peer): Promise<{ first: Frame | undefined; frames: Frame[] }> {
  const p = (await peer.request("POST", "/v2/projects", { name: `frames-${Date.now()}` })).json;
  const P = `/v2/projects/${p.project_id}`;
  const frames: Frame[] = [];
  const ws = new WebSocket(`${peer.url.replace(/^http/, "ws")}${P}/notifications/ws`);
  ws.on("message", (data) => frames.push(JSON.parse(data.toString()) as Frame));
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  try {
    // Each step waits for its frames: GNS3 sends some of them after it answered.
    const step = async <T>(call: Promise<T>): Promise<T> => {
      const answer = await call;
      await sleep(300);
      return answer;
    };
    const pc1 = (await step(peer.request("POST", `${P}/nodes`, { name: "PC1", node_type: "vpcs", compute_id: "local" }))).json;
    const pc2 = (await step(peer.request("POST", `${P}/nodes`, { name: "PC2", node_type: "vpcs", compute_id: "local" }))).json;
    const link = (await step(peer.request("POST", `${P}/links`, { nodes: [{ node_id: pc1.node_id, adapter_number: 0, port_number: 0 }, { node_id: pc2.node_id, adapter_number: 0, port_number: 0 }] }))).json;
    await step(peer.request("PUT", `${P}/nodes/${pc1.node_id}`, { x: 10, y: 20 }));
    const drawing = (await step(peer.request("POST", `${P}/drawings`, { svg: '<svg height="10" width="10"><rect/></svg>', x: 5, y: 6 }))).json;
    await step(peer.request("PUT", `${P}/drawings/${drawing.drawing_id}`, { x: 50 }));
    await step(peer.request("PUT", `${P}/drawings/${drawing.drawing_id}`, { svg: '<svg height="20" width="20"></svg>' }));
    await step(peer.request("PUT", `${P}/links/${link.link_id}`, { filters: { frequency_drop: [5] } }));
    await step(peer.request("DELETE", `${P}/links/${link.link_id}`));
    await step(peer.request("DELETE", `${P}/drawings/${drawing.drawing_id}`));
    await step(peer.request("DELETE", `${P}/nodes/${pc2.node_id}`));
    return { first: frames[0], frames: frames.filter((f) => f.action !== "ping") };
  } finally {
    ws.terminate();
    await peer.request("DELETE", P);
  }
}

/** The actions in order, a run of one action told twice in a row counted once (GNS3 relays its compute's node.deleted too). */
const actions = (frames: readonly Frame[]) => frames.map((f) => f.action).filter((a, i, all) => a !== all[i - 1]);
const keysOf = (frames: readonly Frame[], action: string) => frames.filter((f) => f.action === action).map((f) => Object.keys(f.event).sort());

describe("e2e: a project's notification frames, netemu against GNS3 2.2.59 for the same steps", function () {
  this.timeout(90_000);
  let gns3: Gns3Server | undefined;
  let s: TestServer | undefined;
  let configDir: string | undefined;

  before(function () {
    requireGns3Peer(this);
    if (!existsSync(GNS3_PEER_VPCS)) this.skip();
  });
  after(async () => {
    await s?.close();
    await gns3?.stop();
    if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true });
  });

  it("sends the same actions in the same order, drawing and link events with GNS3's fields, and a ping with GNS3's figures first", async () => {
    gns3 = await Gns3Server.start();
    const theirs = await watchSteps(gns3);
    configDir = mkdtempSync(join(tmpdir(), "netemu-frames-"));
    s = await startTestServer({ settings: { configDir, vpcsPath: GNS3_PEER_VPCS } });
    const ours = await watchSteps(s);
    expect(ours.first?.action).to.equal("ping");
    expect(Object.keys(ours.first?.event ?? {}).sort()).to.deep.equal(Object.keys(theirs.first?.event ?? {}).sort());
    expect(actions(ours.frames)).to.deep.equal(actions(theirs.frames));
    expect(actions(ours.frames)).to.deep.equal(["node.created", "link.created", "node.updated", "drawing.created", "drawing.updated", "link.updated", "link.deleted", "drawing.deleted", "node.deleted"]);
    for (const action of ["drawing.created", "drawing.updated", "drawing.deleted", "link.created", "link.updated", "link.deleted"]) {
      expect(keysOf(ours.frames, action), action).to.deep.equal(keysOf(theirs.frames, action));
    }
    // The drawing's values are the client's, whoever serves it.
    const drawingValues = (frames: readonly Frame[]) => frames.filter((f) => f.action.startsWith("drawing.")).map((f) => ({ ...f.event, drawing_id: undefined, project_id: undefined }));
    expect(drawingValues(ours.frames)).to.deep.equal(drawingValues(theirs.frames));
  });
});

import { expect } from "chai";
import type * as E from "fp-ts/lib/Either.js";
import { rm } from "node:fs/promises";
import type { WorkerDataPlane } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import type { DataPlane, MacTableEntry, PortCounters } from "../../src/application/ports/data-plane.js";
import type { PacketCaptures } from "../../src/application/ports/packet-captures.js";
import type { ComputeNode } from "../../src/domain/switching/compute-node.js";
import type { SyncError } from "../../src/application/errors.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { httpWiredSwitch } from "../support/http-nios.js";
import { twoDataPlaneWorkers } from "../support/two-data-plane-workers.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";
import { openPcapFiles } from "../support/capture-files.js";

const PROJECT = "66666666-3333-4444-8555-77777777778c";
const ROUNDS = 12;
const CAPTURE = { data_link_type: "DLT_EN10MB" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The real worker data plane, whose node is moved to the other worker the moment a capture starts or
 * stops on it, or it is synced: what placement by load (ADR 0069) may do at any time, here at the
 * worst one, every time.
 */
class MovedWhenTouched implements DataPlane, PacketCaptures {
  constructor(private readonly inner: WorkerDataPlane) {}
  private move(nodeId: string): void {
    void this.inner.moveNode(nodeId, 0).then(() => this.inner.moveNode(nodeId, 1));
  }
  sync(node: ComputeNode): Promise<E.Either<SyncError, void>> {
    const synced = this.inner.sync(node);
    this.move(node.nodeId);
    return synced;
  }
  removeNode(nodeId: string): Promise<void> {
    return this.inner.removeNode(nodeId);
  }
  counters(nodeId: string): Promise<ReadonlyMap<number, PortCounters>> {
    return this.inner.counters(nodeId);
  }
  macTable(nodeId: string): Promise<readonly MacTableEntry[]> {
    return this.inner.macTable(nodeId);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  start(nodeId: string, portNumber: number, filePath: string): ReturnType<PacketCaptures["start"]> {
    const started = this.inner.start(nodeId, portNumber, filePath);
    this.move(nodeId);
    return started;
  }
  stop(nodeId: string, portNumber: number): Promise<void> {
    const stopped = this.inner.stop(nodeId, portNumber);
    this.move(nodeId);
    return stopped;
  }
  fileOf(nodeId: string, portNumber: number): Promise<string | undefined> {
    return this.inner.fileOf(nodeId, portNumber);
  }
}

const DATA_PLANES: readonly { readonly name: string; readonly start: () => Promise<TestServer> }[] = [
  { name: "on the main thread", start: () => startTestServer() },
  { name: "in 2 worker threads, nodes moved between them as captures start", start: () => startTestServer({ overrides: { dataPlane: new MovedWhenTouched(twoDataPlaneWorkers({ loadIntervalMs: 0 })) } }) },
];

/**
 * Captures started while what they capture goes (ADR 0074): whatever wins, no descriptor stays on a
 * capture file once the requests answered, even one deleted from the disk meanwhile.
 */
for (const dataPlane of DATA_PLANES) {
  describe(`capture churn over HTTP: captures started while nodes, NIOs and links are deleted, data plane ${dataPlane.name} (real sockets and files)`, function () {
    this.timeout(60_000);
    let s: TestServer;
    const opened: UdpPeer[] = [];

    beforeEach(async () => {
      s = await dataPlane.start();
    });
    afterEach(async () => {
      await s.close();
      await Promise.all(opened.splice(0).map((p) => p.close()));
    });

    /** Descriptors on .pcap files under the projects directory (deleted ones included). */
    const pcapsOpen = () => openPcapFiles(s.netemu.settings.projectsPath);

    it(`leaves no capture file open after ${ROUNDS} rounds of start_capture against DELETE of the NIO, DELETE of the node or stop_capture, each .pcap deleted once started`, async () => {
      expect((await s.request("POST", "/v2/compute/projects", { name: "churn", project_id: PROJECT })).status).to.equal(201);
      const outcomes = new Map<string, number>();
      for (let round = 0; round < ROUNDS; round++) {
        const { base, peers, lports } = await httpWiredSwitch(s, PROJECT, `SW${round}`, opened);
        // Frames flowing through the port while its capture starts and it goes.
        const flowing = (async () => {
          for (let i = 0; i < 20; i++) await peers[0].send(ethernetFrame("ff:ff:ff:ff:ff:ff", "00:50:79:66:68:0d"), lports[0]);
        })();
        const kind = (["DELETE the NIO", "DELETE the node", "stop_capture"] as const)[round % 3];
        const starting = s.request("POST", `${base}/adapters/0/ports/0/start_capture`, { ...CAPTURE, capture_file_name: `churn-${round}.pcap` });
        await sleep(round % 4);
        const against =
          kind === "DELETE the NIO" ? s.request("DELETE", `${base}/adapters/0/ports/0/nio`) : kind === "DELETE the node" ? s.request("DELETE", base) : s.request("POST", `${base}/adapters/0/ports/0/stop_capture`);
        const started = await starting;
        if (started.status === 200) await rm(started.json.pcap_file_path, { force: true });
        const [answer] = await Promise.all([against, flowing]);
        outcomes.set(`${kind}: start ${started.status}, ${answer.status}`, (outcomes.get(`${kind}: start ${started.status}, ${answer.status}`) ?? 0) + 1);
        // What is left goes: a capture still running stops with its NIO, then its node.
        await s.request("POST", `${base}/adapters/0/ports/0/stop_capture`);
        await s.request("DELETE", base);
        expect(await pcapsOpen(), `round ${round} (${kind}, start answered ${started.status}, then ${answer.status})`).to.deep.equal([]);
      }
      expect([...outcomes.keys()].some((o) => o.includes("start 200")), `some captures started (${[...outcomes.keys()].join("; ")})`).to.equal(true);
    });

    it(`leaves no capture file open after ${ROUNDS} rounds of a link's start_capture against DELETE of the link or of one of its nodes, each .pcap deleted once started`, async () => {
      const projectId = (await s.request("POST", "/v2/projects", { name: "link-churn" })).json.project_id as string;
      const outcomes = new Set<string>();
      for (let round = 0; round < ROUNDS; round++) {
        const node = async (name: string) => (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local" })).json.node_id as string;
        const a = await node(`A${round}`);
        const b = await node(`B${round}`);
        const link = (await s.request("POST", `/v2/projects/${projectId}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: 0 }, { node_id: b, adapter_number: 0, port_number: 0 }] })).json;
        expect(link.link_id, JSON.stringify(link)).to.be.a("string");
        const kind = (["DELETE the link", "DELETE its first node"] as const)[round % 2];
        const starting = s.request("POST", `/v2/projects/${projectId}/links/${link.link_id}/start_capture`, { capture_file_name: `link-${round}.pcap` });
        await sleep(round % 4);
        const against = kind === "DELETE the link" ? s.request("DELETE", `/v2/projects/${projectId}/links/${link.link_id}`) : s.request("DELETE", `/v2/projects/${projectId}/nodes/${a}`);
        const started = await starting;
        if (started.status === 201) await rm(started.json.capture_file_path, { force: true });
        const answer = await against;
        outcomes.add(`${kind}: start ${started.status}, ${answer.status}`);
        await s.request("POST", `/v2/projects/${projectId}/links/${link.link_id}/stop_capture`);
        for (const id of [a, b]) await s.request("DELETE", `/v2/projects/${projectId}/nodes/${id}`);
        expect(await pcapsOpen(), `round ${round} (${kind}, start answered ${started.status}, then ${answer.status})`).to.deep.equal([]);
      }
      expect([...outcomes].some((o) => o.includes("start 201")), `some captures started (${[...outcomes].join("; ")})`).to.equal(true);
    });
  });
}

import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNetemu, type Netemu } from "../../../src/adapters/composition-root.js";
import type { SyncError } from "../../../src/application/errors.js";
import type { ComputeNode } from "../../../src/domain/switching/compute-node.js";
import type { ImpairmentStoreRefusal } from "../../../src/application/ports/impairment-store.js";
import { InMemoryImpairmentStore } from "../../../src/adapters/persistence/in-memory-impairment-store.js";
import { FakeDataPlane } from "../../support/fake-data-plane.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";

/** A data plane that can be told to refuse every change, as when a port's socket does not reopen. */
class RefusingDataPlane extends FakeDataPlane {
  refuse = false;
  override async sync(node: ComputeNode): Promise<E.Either<SyncError, void>> {
    if (this.refuse) return E.left({ _tag: "UdpConnectionFailed", rhost: "127.0.0.1", rport: 9, reason: "refused by the test" });
    return super.sync(node);
  }
}

/** A store whose disk refuses every change. */
class UnwritableStore extends InMemoryImpairmentStore {
  override async apply(): Promise<E.Either<ImpairmentStoreRefusal, void>> {
    return E.left({ _tag: "ImpairmentsUnwritable", path: "/the/test/impairments.journal", code: "EIO", detail: "the test's disk refuses" });
  }
}

const PROJECT = "6b6b6b6b-3333-4444-8555-777777777777";
const at = { project: "lab", node: "Switch1", port: "Ethernet1" };

describe("impairment use cases against a data plane that refuses (ADR 0067)", () => {
  let netemu: Netemu;
  let dataPlane: RefusingDataPlane;
  let store: InMemoryImpairmentStore;
  let logger: RecordingLogger;
  let dir: string;
  let nodeId: string;

  const build = async (impairmentStore: InMemoryImpairmentStore): Promise<void> => {
    await netemu?.shutdown();
    store = impairmentStore;
    dataPlane = new RefusingDataPlane();
    logger = new RecordingLogger();
    netemu = createNetemu({ overrides: { dataPlane, logger, impairmentStore }, settings: { configDir: dir } });
    const uc = netemu.useCases;
    await uc.createComputeProject.execute({ name: "lab", projectId: PROJECT });
    const sw = await uc.createSwitch.execute({ projectId: PROJECT, name: "Switch1" });
    if (E.isLeft(sw)) throw new Error(sw.left._tag);
    nodeId = sw.right.nodeId;
    const nio = await uc.addNio.execute({ port: { projectId: PROJECT, nodeId, adapterNumber: 0, portNumber: 1 }, nio: { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001 } });
    if (E.isLeft(nio)) throw new Error(nio.left._tag);
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "netemu-impair-unit-"));
    await build(new InMemoryImpairmentStore());
  });
  afterEach(async () => {
    await netemu.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  const live = () => dataPlane.attached.get(`${nodeId}/1`);

  it("hands the data plane the port's NIO with the impairment on its direction, and the record without it", async () => {
    const set = await netemu.useCases.setImpairment.execute({ ...at, out: { delay: [30] } });
    expect(set._tag).to.equal("Right");
    expect(live()).to.deep.include({ filtersOut: { delay: [30] } });
    const view = await netemu.useCases.getComputeNode.execute({ projectId: PROJECT, nodeId });
    expect(E.isRight(view) && view.right.node.nios.get(1)).to.not.have.property("filtersOut");
  });

  it("records nothing when the data plane refuses the impaired port", async () => {
    dataPlane.refuse = true;
    const set = await netemu.useCases.setImpairment.execute({ ...at, out: { delay: [30] } });
    expect(E.isLeft(set) && set.left._tag).to.equal("UdpConnectionFailed");
    expect(await netemu.useCases.listImpairments.execute()).to.deep.equal(E.right([]));
  });

  it("keeps an impairment the data plane refuses to take off, and answers why", async () => {
    await netemu.useCases.setImpairment.execute({ ...at, out: { delay: [30] } });
    dataPlane.refuse = true;
    const cleared = await netemu.useCases.clearImpairments.execute({ project: "lab" });
    expect(E.isLeft(cleared) && cleared.left._tag).to.equal("UdpConnectionFailed");
    const listed = await netemu.useCases.listImpairments.execute();
    expect(E.isRight(listed) && listed.right.map((i) => i.portName)).to.deep.equal(["Ethernet1"]);
  });

  it("leaves the live port as it was when the impairment cannot be recorded, and answers why as a value", async () => {
    await build(new UnwritableStore());
    const set = await netemu.useCases.setImpairment.execute({ ...at, out: { delay: [30] } });
    expect(E.isLeft(set) && set.left).to.deep.include({ _tag: "ImpairmentsUnwritable", code: "EIO" });
    expect(live()).to.not.have.property("filtersOut");
    expect(store).to.be.instanceOf(UnwritableStore);
  });

  it("keeps an impairment the store cannot record the clear of, live and listed, and answers why", async () => {
    await netemu.useCases.setImpairment.execute({ ...at, out: { delay: [30] } });
    const unwritable = new UnwritableStore();
    store.apply = unwritable.apply.bind(unwritable);
    const cleared = await netemu.useCases.clearImpairments.execute({});
    expect(E.isLeft(cleared) && cleared.left._tag).to.equal("ImpairmentsUnwritable");
    expect(live()).to.deep.include({ filtersOut: { delay: [30] } });
    const listed = await netemu.useCases.listImpairments.execute();
    expect(E.isRight(listed) && listed.right).to.have.length(1);
  });

  it("deletes a node whose impairments the store cannot forget, saying so in the log", async () => {
    await netemu.useCases.setImpairment.execute({ ...at, out: { delay: [30] } });
    const unwritable = new UnwritableStore();
    store.apply = unwritable.apply.bind(unwritable);
    const deleted = await netemu.useCases.deleteComputeNode.execute({ projectId: PROJECT, nodeId });
    expect(deleted._tag).to.equal("Right");
    expect(logger.lines.some((l) => l.level === "warn" && l.msg.includes("could not be forgotten"))).to.equal(true);
  });

  it("clears the impairment of a project that is closed (its node gone) without asking the data plane", async () => {
    await netemu.useCases.setImpairment.execute({ ...at, out: { delay: [30] } });
    expect((await netemu.useCases.closeComputeProject.execute({ projectId: PROJECT }))._tag).to.equal("Right");
    dataPlane.refuse = true;
    const cleared = await netemu.useCases.clearImpairments.execute({});
    expect(E.isRight(cleared) && cleared.right.length).to.equal(1);
  });
});

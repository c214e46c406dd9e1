import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { KeyedLock } from "../../../src/application/keyed-lock.js";
import { ComputeLookup } from "../../../src/application/use-cases/compute/compute-lookup.js";
import { CreateComputeProject } from "../../../src/application/use-cases/compute/create-compute-project.js";
import { CreateSwitch } from "../../../src/application/use-cases/compute/create-switch.js";
import { NodeCreation } from "../../../src/application/use-cases/compute/node-creation.js";
import { AddNio } from "../../../src/application/use-cases/compute/add-nio.js";
import { RemoveNio } from "../../../src/application/use-cases/compute/remove-nio.js";
import { NioAttachment } from "../../../src/application/use-cases/compute/nio-attachment.js";
import { FilterPrograms } from "../../../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import type { UdpPortPool } from "../../../src/application/ports/udp-port-pool.js";
import type { ErrorOf } from "../../../src/application/errors.js";
import {
  InMemoryComputeProjectRepository,
  InMemoryComputeNodeRepository,
} from "../../../src/adapters/persistence/in-memory-repositories.js";
import { FakeDataPlane } from "../../support/fake-data-plane.js";
import { ImpairmentOverlay } from "../../../src/application/use-cases/compute/impairment-overlay.js";
import { InMemoryImpairmentStore } from "../../../src/adapters/persistence/in-memory-impairment-store.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";

/** A pool over a small range that never touches the network. */
class FakeUdpPortPool implements UdpPortPool {
  readonly held = new Set<number>();
  readonly range: { readonly start: number; readonly end: number };
  constructor(private readonly ports: readonly number[]) {
    this.range = { start: ports[0] ?? 0, end: ports.at(-1) ?? 0 };
  }
  async reserve(): Promise<E.Either<ErrorOf<"NoFreeUdpPort">, number>> {
    const free = this.ports.find((p) => !this.held.has(p));
    if (free === undefined) return E.left({ _tag: "NoFreeUdpPort", start: this.ports[0] ?? 0, end: this.ports.at(-1) ?? 0 });
    this.held.add(free);
    return E.right(free);
  }
  claim(port: number): void {
    this.held.add(port);
  }
  release(port: number): void {
    this.held.delete(port);
  }
  releaseProject(): void {
    this.held.clear();
  }
  reserved(): readonly number[] {
    return [...this.held];
  }
}

let counter = 0;
const ids = { uuid: () => `00000000-0000-4000-8000-${String(++counter).padStart(12, "0")}` };

function compute() {
  const projects = new InMemoryComputeProjectRepository();
  const switches = new InMemoryComputeNodeRepository();
  const dataPlane = new FakeDataPlane();
  const pool = new FakeUdpPortPool([20000, 20001, 20002]);
  const lock = new KeyedLock();
  const lookup = new ComputeLookup(projects, switches);
  const programs = new FilterPrograms(new InlineBpfCompiler());
  const logger = new RecordingLogger();
  return {
    logger,
    dataPlane,
    pool,
    switches,
    createProject: new CreateComputeProject(projects, ids, { create: async () => undefined, list: async () => [], read: async () => E.left("missing" as const), write: async () => E.right(undefined), remove: async () => undefined }, lock),
    createSwitch: new CreateSwitch(new NodeCreation(lookup, switches, ids, lock)),
    addNio: new AddNio(lookup, new NioAttachment(lookup, switches, dataPlane, pool, lock, logger, new ImpairmentOverlay(new InMemoryImpairmentStore(), logger)), programs, lock, { nowMs: () => 0 }),
    removeNio: new RemoveNio(new NioAttachment(lookup, switches, dataPlane, pool, lock, logger, new ImpairmentOverlay(new InMemoryImpairmentStore(), logger))),
  };
}

describe("use cases with in-memory ports", () => {
  it("refuses to create a compute project under an id that is not a UUID, and keeps no trace of it", async () => {
    const c = compute();
    expect(await c.createProject.execute({ name: "p", projectId: "not-a-uuid" })).to.deep.equal(E.left({ _tag: "InvalidUuid", what: "Project", id: "not-a-uuid" }));
    const made = await c.createProject.execute({ name: "p", projectId: "00000000-0000-4000-8000-00000000abcd" });
    expect(E.isRight(made) && made.right.projectId).to.equal("00000000-0000-4000-8000-00000000abcd");
  });

  it("lets exactly one of many concurrent NIO adds on the same port succeed", async () => {
    const c = compute();
    const project = await c.createProject.execute({ name: "p" });
    if (E.isLeft(project)) throw new Error("project");
    const sw = await c.createSwitch.execute({ projectId: project.right.projectId, name: "SW" });
    if (E.isLeft(sw)) throw new Error("switch");
    const at = { projectId: project.right.projectId, nodeId: sw.right.nodeId, adapterNumber: 0, portNumber: 0 };
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => c.addNio.execute({ port: at, nio: { type: "nio_udp", lport: 21000 + i, rhost: "127.0.0.1", rport: 22000 } })),
    );
    expect(results.filter(E.isRight)).to.have.length(1);
    const refusals = results.filter(E.isLeft).map((r) => r.left._tag);
    expect(new Set(refusals)).to.deep.equal(new Set(["PortNotFree"]));
    expect(c.dataPlane.attached.size).to.equal(1);
    expect(c.pool.reserved()).to.have.length(1);
  });

  it("holds a NIO's UDP port while it lives and frees it when the NIO goes", async () => {
    const c = compute();
    const project = await c.createProject.execute({ name: "p" });
    if (E.isLeft(project)) throw new Error("project");
    const sw = await c.createSwitch.execute({ projectId: project.right.projectId, name: "SW" });
    if (E.isLeft(sw)) throw new Error("switch");
    const at = { projectId: project.right.projectId, nodeId: sw.right.nodeId, adapterNumber: 0, portNumber: 2 };
    await c.addNio.execute({ port: at, nio: { type: "nio_udp", lport: 20001, rhost: "127.0.0.1", rport: 20002 } });
    expect(c.pool.reserved()).to.deep.equal([20001]);
    expect(await c.removeNio.execute({ port: at })).to.deep.equal(E.right(undefined));
    expect(c.pool.reserved()).to.deep.equal([]);
    expect((await c.switches.get(sw.right.nodeId))?.nios.size).to.equal(0);
  });

  it("records nothing when the data plane cannot open the NIO", async () => {
    const c = compute();
    c.dataPlane.refusedLports.add(20000);
    const project = await c.createProject.execute({ name: "p" });
    if (E.isLeft(project)) throw new Error("project");
    const sw = await c.createSwitch.execute({ projectId: project.right.projectId, name: "SW" });
    if (E.isLeft(sw)) throw new Error("switch");
    const at = { projectId: project.right.projectId, nodeId: sw.right.nodeId, adapterNumber: 0, portNumber: 0 };
    const r = await c.addNio.execute({ port: at, nio: { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 1 } });
    expect(E.isLeft(r) && r.left._tag).to.equal("UdpConnectionFailed");
    expect((await c.switches.get(sw.right.nodeId))?.nios.size).to.equal(0);
    expect(c.pool.reserved()).to.deep.equal([]);
  });
});

describe("KeyedLock", () => {
  it("runs work for one key one at a time, in order, and other keys alongside", async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const step = (name: string, ms: number) => async () => {
      log.push(`${name}+`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`${name}-`);
    };
    await Promise.all([lock.run("a", step("a1", 20)), lock.run("a", step("a2", 1)), lock.run("b", step("b1", 5))]);
    expect(log.indexOf("a1-")).to.be.lessThan(log.indexOf("a2+"));
    expect(log.indexOf("b1+")).to.be.lessThan(log.indexOf("a1-"));
  });

  it("keeps going after a failing task", async () => {
    const lock = new KeyedLock();
    const failing = lock.run("k", async () => {
      throw new Error("boom");
    });
    await failing.catch(() => undefined);
    expect(await lock.run("k", async () => 42)).to.equal(42);
  });
});

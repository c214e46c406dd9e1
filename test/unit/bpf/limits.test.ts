import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { Worker } from "node:worker_threads";
import { generateSource } from "../../../src/domain/bpf/codegen.js";
import { buildDag } from "../../../src/domain/bpf/dag.js";
import { BpfError } from "../../../src/domain/bpf/errors.js";
import type { BpfCompileError } from "../../../src/domain/bpf/index.js";
import { compileCaptureMatcher } from "../../../src/domain/bpf/index.js";
import { MAX_COMPILE_WORK, MAX_EXPRESSION_LENGTH, MAX_GENEVE, MAX_NESTING, WorkBudget } from "../../../src/domain/bpf/limits.js";
import { parse } from "../../../src/domain/bpf/parser.js";
import { compilePredicate } from "../../../src/domain/bpf/semantics.js";

const NESTING = `expression nests deeper than ${MAX_NESTING} levels (parentheses, brackets, not, unary minus, arithmetic operators)`;
const GENEVE = `expression has more than ${MAX_GENEVE} geneve primitives (each looks inside the tunnel of the one before)`;

function refusal(expression: string): BpfCompileError | undefined {
  const r = compileCaptureMatcher(expression);
  return E.isLeft(r) ? r.left : undefined;
}

const accepted = (expression: string): boolean => E.isRight(compileCaptureMatcher(expression));
const repeat = (n: number, f: (i: number) => string, separator: string): string => Array.from({ length: n }, (_, i) => f(i)).join(separator);
const host = (i: number): string => `host 10.0.${i >> 8}.${i & 255}`;

/** The work an expression takes, counted by a budget that never runs out. */
function workOf(expression: string): number {
  const budget = new WorkBudget(Number.MAX_SAFE_INTEGER);
  const dag = buildDag(compilePredicate(parse(expression)), budget);
  generateSource(dag.root, dag.prelude, budget);
  return budget.used;
}

function compileWithin(expression: string, limit: number): void {
  const budget = new WorkBudget(limit);
  const dag = buildDag(compilePredicate(parse(expression)), budget);
  generateSource(dag.root, dag.prelude, budget);
}

describe("the pcap-filter compiler's limits", () => {
  it(`accepts an expression of ${MAX_EXPRESSION_LENGTH} characters and refuses one more, before reading it`, () => {
    const longest = `tcp${" ".repeat(MAX_EXPRESSION_LENGTH - 3)}`;
    expect(accepted(longest)).to.equal(true);
    expect(refusal(`${longest} `)).to.deep.equal({
      _tag: "BpfCompileError",
      message: `expression is longer than ${MAX_EXPRESSION_LENGTH} characters`,
      position: MAX_EXPRESSION_LENGTH,
    });
    // past the limit even a character the lexer would refuse is not read
    expect(refusal(`${longest}$`)?.message).to.equal(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  });

  it(`accepts ${MAX_NESTING} nested parentheses and refuses ${MAX_NESTING + 1}, at the one too many`, () => {
    expect(accepted(`${"(".repeat(MAX_NESTING)}tcp${")".repeat(MAX_NESTING)}`)).to.equal(true);
    expect(refusal(`${"(".repeat(MAX_NESTING + 1)}tcp${")".repeat(MAX_NESTING + 1)}`)).to.deep.equal({
      _tag: "BpfCompileError",
      message: NESTING,
      position: MAX_NESTING,
    });
  });

  it(`counts not, brackets, unary minus and arithmetic operators as levels of nesting too`, () => {
    const cases: readonly [string, string, number][] = [
      [`${"not ".repeat(MAX_NESTING)}tcp`, `${"not ".repeat(MAX_NESTING + 1)}tcp`, 4 * MAX_NESTING],
      [`${"! ".repeat(MAX_NESTING)}tcp`, `${"! ".repeat(MAX_NESTING + 1)}tcp`, 2 * MAX_NESTING],
      [`${"not (".repeat(MAX_NESTING / 2)}tcp${")".repeat(MAX_NESTING / 2)}`, `not ${"not (".repeat(MAX_NESTING / 2)}tcp${")".repeat(MAX_NESTING / 2)}`, 4 + 5 * (MAX_NESTING / 2 - 1) + 4],
      [`ip[0] = ${"-".repeat(MAX_NESTING)}1`, `ip[0] = ${"-".repeat(MAX_NESTING + 1)}1`, 8],
      [`ip[0] = ${repeat(MAX_NESTING + 1, () => "1", " + ")}`, `ip[0] = ${repeat(MAX_NESTING + 2, () => "1", " + ")}`, 8 + 4 * MAX_NESTING + 2],
      [`${"ip[".repeat(MAX_NESTING)}0${"]".repeat(MAX_NESTING)} = 1`, `${"ip[".repeat(MAX_NESTING + 1)}0${"]".repeat(MAX_NESTING + 1)} = 1`, 3 * MAX_NESTING],
      [`ip[${"(".repeat(MAX_NESTING - 1)}1${")".repeat(MAX_NESTING - 1)}] = 1`, `ip[${"(".repeat(MAX_NESTING)}1${")".repeat(MAX_NESTING)}] = 1`, 3 + MAX_NESTING - 1],
      [`host ${"(".repeat(MAX_NESTING)}1 or 2${")".repeat(MAX_NESTING)}`, `host ${"(".repeat(MAX_NESTING + 1)}1 or 2${")".repeat(MAX_NESTING + 1)}`, 5 + MAX_NESTING],
    ];
    for (const [deepest, deeper, position] of cases) {
      expect(accepted(deepest), deepest).to.equal(true);
      expect(refusal(deeper), deeper).to.deep.equal({ _tag: "BpfCompileError", message: NESTING, position });
    }
  });

  it(`does not count the terms of an and/or chain as nesting, however long`, () => {
    expect(accepted(repeat(2000, () => "tcp", " and "))).to.equal(true);
    expect(accepted(repeat(2000, () => "tcp", " or "))).to.equal(true);
    expect(accepted(`host ${repeat(1000, (i) => `10.0.${i >> 8}.${i & 255}`, " or ")}`)).to.equal(true);
  });

  it(`accepts ${MAX_GENEVE} geneve primitives and refuses ${MAX_GENEVE + 1}, at the one too many`, () => {
    expect(accepted(repeat(MAX_GENEVE, (i) => `geneve ${i}`, " or "))).to.equal(true);
    const tooMany = repeat(MAX_GENEVE + 1, (i) => `geneve ${i}`, " or ");
    expect(refusal(tooMany)).to.deep.equal({ _tag: "BpfCompileError", message: GENEVE, position: tooMany.lastIndexOf("geneve") });
  });

  it("compiles an expression within exactly the work it takes, and refuses it with one step less", () => {
    const expression = `(tcp or udp) and (${repeat(20, (i) => `port ${i + 1}`, " or ")}) and not (${repeat(10, host, " or ")})`;
    const work = workOf(expression);
    expect(() => compileWithin(expression, work)).not.to.throw();
    expect(() => compileWithin(expression, work - 1)).to.throw(
      BpfError,
      `expression is too complex to compile (more than ${work - 1} steps of optimisation and code generation)`,
    );
  });

  it(`refuses an expression that needs more than ${MAX_COMPILE_WORK} steps, naming the limit`, () => {
    const ports = repeat(800, (i) => `port ${i + 1}`, " or ");
    expect(workOf(ports)).to.be.greaterThan(MAX_COMPILE_WORK);
    expect(refusal(ports)?.message).to.equal(
      `expression is too complex to compile (more than ${MAX_COMPILE_WORK} steps of optimisation and code generation)`,
    );
  });

  it("refuses the inputs that crashed or froze the compiler, or compiles them (issue 16)", () => {
    expect(refusal(`${"(".repeat(3000)}tcp${")".repeat(3000)}`)?.message).to.equal(NESTING);
    expect(refusal(`${"not ".repeat(7000)}tcp`)?.message).to.equal(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
    expect(refusal(`${"not ".repeat(4000)}tcp`)?.message).to.equal(NESTING);
    expect(refusal(repeat(30, (i) => `geneve ${i + 1}`, " or "))?.message).to.equal(GENEVE);
    for (const n of [100, 300, 600]) expect(accepted(repeat(n, host, " or ")), `${n} hosts`).to.equal(true);
    for (const n of [100, 600]) expect(accepted(repeat(n, () => "vlan", " and ")), `${n} vlans`).to.equal(true);
    for (const n of [30, 200]) expect(accepted(repeat(n, (i) => `portrange ${i + 1}-${i + 1000}`, " or ")), `${n} port ranges`).to.equal(true);
  });

  it("compiles the deepest and longest accepted expressions on half a megabyte of stack, half of Node's default (no recursion per term)", async function () {
    this.timeout(30_000);
    const expressions = [
      `${"(".repeat(MAX_NESTING)}tcp or udp${")".repeat(MAX_NESTING)}`,
      `${"not ".repeat(MAX_NESTING)}tcp`,
      `${"not (".repeat(MAX_NESTING / 2)}tcp port 80 or host 10.0.0.1${")".repeat(MAX_NESTING / 2)}`,
      `ip[${"(".repeat(MAX_NESTING - 1)}1${")".repeat(MAX_NESTING - 1)}] = 1`,
      `ip[0] = ${repeat(MAX_NESTING + 1, (i) => `ip[${i}]`, " + ")}`,
      `ip[0] = ${repeat(MAX_NESTING + 1, (i) => `${i + 1}`, " % ")}`,
      `${"ip[".repeat(MAX_NESTING)}0${"]".repeat(MAX_NESTING)} = 1`,
      `${repeat(MAX_GENEVE, (i) => `geneve ${i}`, " and ")} and tcp port 80`,
      `${repeat(MAX_GENEVE, () => "geneve", " or ")} or ip[${"(".repeat(40)}1${")".repeat(40)}] = 2`,
      repeat(880, host, " or "),
      repeat(900, (i) => `ip[${i % 40}] != ${i}`, " and "),
      repeat(1800, () => "vlan", " and "),
      `${"(".repeat(40)}${repeat(300, (i) => `port ${i}`, " or ")}${")".repeat(40)}`,
      repeat(1000, (i) => `port ${i}`, " or ").replace(/ or /g, (m, at: number) => (at % 2 === 0 ? " and " : m)),
      `${"(".repeat(MAX_NESTING + 1)}tcp${")".repeat(MAX_NESTING + 1)}`,
    ];
    const results = await new Promise<string[]>((resolve, reject) => {
      const worker = new Worker(new URL("../../support/bpf-compile-worker.js", import.meta.url), {
        workerData: expressions,
        resourceLimits: { stackSizeMb: 0.5 },
      });
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    expect(results).to.have.length(expressions.length);
    for (const [i, r] of results.entries()) {
      expect(r, expressions[i]).to.match(/^matched \d+$|^expression (nests deeper|is too complex|rejects all packets)/);
    }
    expect(results.filter((r) => r.startsWith("matched")).length).to.be.greaterThan(10);
  });
});

import { expect } from "chai";
import { WorkerCalls } from "../../../src/adapters/threads/worker-calls.js";

/** A thread as its client sees it: what was posted to it, and whether it is held. */
class FakeThread {
  readonly posted: unknown[] = [];
  held = false;
  refs = 0;
  ref(): void {
    this.held = true;
    this.refs++;
  }
  unref(): void {
    this.held = false;
  }
  postMessage(message: unknown): void {
    this.posted.push(message);
  }
}

const failure = (error: string, about: string): Error => new Error(`${about}: ${error}`);

describe("the calls a client posts to a worker thread (ADR 0078)", () => {
  it("numbers each call and settles it with the answer that carries its number, whatever the order", async () => {
    const thread = new FakeThread();
    const calls = new WorkerCalls<string>(thread, failure);
    const first = calls.call<string>("first", (id) => ({ id, op: "first" }));
    const second = calls.call<string>("second", (id) => ({ id, op: "second" }));
    expect(thread.posted).to.deep.equal([{ id: 1, op: "first" }, { id: 2, op: "second" }]);
    calls.answer({ id: 2, value: "two" });
    calls.answer({ id: 1, value: "one" });
    expect(await first).to.equal("one");
    expect(await second).to.equal("two");
  });

  it("fails a call the thread answers with an error, worded by the client", async () => {
    const calls = new WorkerCalls<string>(new FakeThread(), failure);
    const sync = calls.call("sync", (id) => ({ id }));
    calls.answer({ id: 1, error: "no such node" });
    try {
      await sync;
      expect.fail("the call should have failed");
    } catch (err) {
      expect((err as Error).message).to.equal("sync: no such node");
    }
  });

  it("drops an answer to no call owed, and a second answer to one already settled", async () => {
    const calls = new WorkerCalls<string>(new FakeThread(), failure);
    const counters = calls.call("counters", (id) => ({ id }));
    calls.answer({ id: 7, value: "stray" });
    calls.answer({ id: 1, value: "first answer" });
    calls.answer({ id: 1, value: "second answer" });
    expect(await counters).to.equal("first answer");
    expect(calls.takeOwed()).to.deep.equal([]);
  });

  it("holds the thread while it owes an answer and lets it go once it owes none", () => {
    const thread = new FakeThread();
    const calls = new WorkerCalls<string>(thread, failure);
    void calls.call("a", (id) => ({ id }));
    void calls.call("b", (id) => ({ id }));
    expect(thread.held).to.equal(true);
    expect(thread.refs).to.equal(1);
    calls.answer({ id: 1, value: undefined });
    expect(thread.held).to.equal(true);
    calls.answer({ id: 2, value: undefined });
    expect(thread.held).to.equal(false);
  });

  it("hands over what a thread that ended still owed, with what each call was about, to be settled by the client", async () => {
    const calls = new WorkerCalls<string>(new FakeThread(), failure);
    const answered = calls.call("answered", (id) => ({ id }));
    const owed = calls.call("owed", (id) => ({ id }));
    calls.answer({ id: 1, value: "done" });
    const left = calls.takeOwed();
    expect(left.map((c) => c.about)).to.deep.equal(["owed"]);
    for (const call of left) call.resolve(`settled by the client: ${call.about}`);
    expect(await answered).to.equal("done");
    expect(await owed).to.equal("settled by the client: owed");
    expect(calls.takeOwed()).to.deep.equal([]);
  });
});

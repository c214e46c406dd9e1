import { expect } from "chai";
import { MacTable } from "../../../src/domain/switching/mac-table.js";

const A = 0x005079666801;
const B = 0x005079666802;
const C = 0x005079666803;

describe("MAC table", () => {
  it("learns a (VLAN, MAC) pair and finds it only in that VLAN", () => {
    const t = new MacTable();
    t.learn(10, A, 3, 0);
    expect(t.lookup(10, A, 0)).to.equal(3);
    expect(t.lookup(20, A, 0)).to.equal(undefined);
    t.learn(20, A, 4, 0);
    expect(t.lookup(20, A, 0)).to.equal(4);
    expect(t.size).to.equal(2);
  });

  it("moves an address seen on a new port", () => {
    const t = new MacTable();
    t.learn(1, A, 1, 0);
    t.learn(1, A, 2, 10);
    expect(t.lookup(1, A, 10)).to.equal(2);
    expect(t.size).to.equal(1);
  });

  it("ages an entry out after the aging time (300 s by default) unless it is seen again", () => {
    const t = new MacTable();
    t.learn(1, A, 1, 0);
    t.learn(1, B, 2, 0);
    t.learn(1, B, 2, 200_000);
    expect(t.lookup(1, A, 299_999)).to.equal(1);
    expect(t.lookup(1, A, 300_000)).to.equal(undefined);
    expect(t.lookup(1, B, 300_000)).to.equal(2);
    expect(t.lookup(1, B, 500_000)).to.equal(undefined);
    expect(t.size).to.equal(0);
  });

  it("takes a configured aging time, and 0 disables aging", () => {
    const short = new MacTable({ agingTimeMs: 1000 });
    short.learn(1, A, 1, 0);
    expect(short.expire(1000)).to.equal(1);
    const never = new MacTable({ agingTimeMs: 0 });
    never.learn(1, A, 1, 0);
    expect(never.lookup(1, A, 10 ** 12)).to.equal(1);
  });

  it("evicts the least recently seen entry when full", () => {
    const t = new MacTable({ capacity: 2 });
    t.learn(1, A, 1, 0);
    t.learn(1, B, 2, 1);
    t.learn(1, A, 1, 2); // A refreshed: B is now the oldest
    t.learn(1, C, 3, 3);
    expect(t.size).to.equal(2);
    expect(t.lookup(1, B, 3)).to.equal(undefined);
    expect(t.lookup(1, A, 3)).to.equal(1);
    expect(t.lookup(1, C, 3)).to.equal(3);
  });

  it("holds 8,192 entries by default and evicts the oldest beyond that", () => {
    const t = new MacTable();
    for (let i = 0; i <= 8192; i++) t.learn(1, 0x020000000000 + i, i % 8, i);
    expect(t.size).to.equal(8192);
    expect(t.lookup(1, 0x020000000000, 9000)).to.equal(undefined);
    expect(t.lookup(1, 0x020000000001, 9000)).to.equal(1);
  });

  it("flushes a port's entries, entries matching a predicate, or everything", () => {
    const t = new MacTable();
    t.learn(1, A, 1, 0);
    t.learn(2, B, 1, 0);
    t.learn(1, C, 2, 0);
    expect(t.flushPort(1)).to.equal(2);
    expect(t.lookup(1, C, 0)).to.equal(2);
    t.learn(5, A, 4, 0);
    expect(t.flushWhere((vlan) => vlan === 5)).to.equal(1);
    t.flushAll();
    expect(t.size).to.equal(0);
    expect(t.lookup(1, C, 0)).to.equal(undefined);
  });

  it("lists the live entries sorted by VLAN and MAC with their age in seconds", () => {
    const t = new MacTable();
    t.learn(20, A, 2, 1_000);
    t.learn(10, B, 1, 5_500);
    t.learn(10, A, 3, 0);
    expect(t.rows(10_000)).to.deep.equal([
      { mac: "00:50:79:66:68:01", vlan: 10, port: 3, age: 10 },
      { mac: "00:50:79:66:68:02", vlan: 10, port: 1, age: 4 },
      { mac: "00:50:79:66:68:01", vlan: 20, port: 2, age: 9 },
    ]);
  });

  it("refuses a negative aging time or a capacity below 1", () => {
    expect(() => new MacTable({ agingTimeMs: -1 })).to.throw(RangeError);
    expect(() => new MacTable({ capacity: 0 })).to.throw(RangeError);
  });
});

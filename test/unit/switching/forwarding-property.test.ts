import { expect } from "chai";
import fc from "fast-check";
import { EthernetSwitchFabric } from "../../../src/domain/switching/forwarding.js";
import { countersBalance } from "../../../src/domain/switching/port-counters.js";
import type { PortMode } from "../../../src/domain/switching/port.js";
import { access, dot1q, qinq } from "./support.js";

const PORTS: readonly PortMode[] = [
  access(1),
  access(10),
  access(10),
  dot1q(1),
  dot1q(10),
  qinq(10, 0x88a8),
  qinq(20),
  qinq(1, 0x9200),
];

const MAX_UDP_PAYLOAD = 65507;

const macArb = fc.oneof(
  fc.constant(0xffffffffffff),
  fc.constantFrom(0x020000000001, 0x020000000002, 0x020000000003, 0x01005e000001),
  fc.integer({ min: 0, max: 2 ** 48 - 1 }),
);
const tagArb = fc.record({
  tpid: fc.oneof(fc.constantFrom(0x8100, 0x88a8, 0x9100, 0x9200, 0x0800), fc.integer({ min: 0, max: 0xffff })),
  tci: fc.oneof(fc.constantFrom(0, 1, 10, 20, 4095, 0xe00a), fc.integer({ min: 0, max: 0xffff })),
});
const frameArb = fc
  .record({
    dst: macArb,
    src: macArb,
    tags: fc.array(tagArb, { maxLength: 3 }),
    length: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0, max: 80 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: MAX_UDP_PAYLOAD }) },
    ),
  })
  .map(({ dst, src, tags, length }) => {
    const frame = new Uint8Array(length);
    const header: number[] = [];
    for (const mac of [dst, src]) for (let i = 5; i >= 0; i--) header.push(Math.floor(mac / 2 ** (8 * i)) % 256);
    for (const { tpid, tci } of tags) header.push(tpid >> 8, tpid & 0xff, tci >> 8, tci & 0xff);
    header.push(0x08, 0x00);
    frame.set(header.slice(0, length));
    return frame;
  });

describe("802.1Q learning switch: properties", () => {
  it("never throws on any frame into any port type, and every port's counters add up", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ port: fc.integer({ min: 0, max: PORTS.length - 1 }), frame: frameArb }), {
          minLength: 1,
          maxLength: 30,
        }),
        (inputs) => {
          const f = new EthernetSwitchFabric({ capacity: 4 });
          PORTS.forEach((mode, n) => f.setPort(n, mode));
          let offered = 0;
          inputs.forEach(({ port, frame }, t) => {
            const r = f.forward(port, frame, t * 1000);
            const seen = new Set<number>();
            for (let i = 0; i < r.count; i++) {
              const egress = r.ports[i]!;
              expect(egress).to.not.equal(port);
              expect(seen.has(egress)).to.equal(false);
              seen.add(egress);
              expect([-4, 0, 4]).to.include(r.frames[i]!.length - frame.length);
            }
            expect(r.count === 0).to.equal(r.drop !== undefined);
            offered += r.count;
          });
          let totalOffered = 0;
          let totalIn = 0;
          for (let n = 0; n < PORTS.length; n++) {
            const s = f.counters(n)!.snapshot();
            expect(countersBalance(s).ingress).to.equal(true);
            totalOffered += s.framesOffered;
            totalIn += s.framesIn;
          }
          expect(totalOffered).to.equal(offered);
          expect(totalIn).to.equal(inputs.length);
          expect(f.macTableSize).to.be.at.most(4);
        },
      ),
      { numRuns: 300 },
    );
  });
});

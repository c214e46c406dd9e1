import { expect } from "chai";
import fc from "fast-check";
import { ECN_CE, ECN_ECT_0, ECN_ECT_1, ECN_NOT_ECT, ecnOf, flowHash, ipv4HeaderChecksum, locateIp, markCongestionExperienced } from "../../../src/domain/queueing/ip-headers.js";
import { FC_SEED } from "../../support/hardening-kit.js";
import { flowFrame } from "../../support/ip-frames.js";

const RUNS = Number.parseInt(process.env["FC_RUNS"] ?? "500", 10);
const checksumField = (frame: Uint8Array, at: number): number => ((frame[at + 10] as number) << 8) | (frame[at + 11] as number);
const tagsArb = fc.array(fc.record({ tpid: fc.constantFrom(0x8100, 0x88a8, 0x9100), vid: fc.integer({ min: 0, max: 4095 }) }), { maxLength: 3 });

describe("ip-headers: the IP packet inside an Ethernet frame, its flow and its ECN field", () => {
  describe("locateIp", () => {
    it("finds IPv4 right after the EtherType of an untagged frame", () => {
      expect(locateIp(flowFrame())).to.deep.equal({ version: 4, offset: 14 });
    });
    it("finds IPv4 and IPv6 behind one 802.1Q tag and behind a QinQ pair", () => {
      expect(locateIp(flowFrame({ tags: [{ tpid: 0x8100, vid: 10 }] }))).to.deep.equal({ version: 4, offset: 18 });
      expect(locateIp(flowFrame({ version: 6, tags: [{ tpid: 0x88a8, vid: 100 }, { tpid: 0x8100, vid: 10 }] }))).to.deep.equal({ version: 6, offset: 22 });
    });
    it("finds nothing in an ARP frame, a truncated IPv4 header or an EtherType that lies about the version", () => {
      const arp = new Uint8Array(60);
      arp[12] = 0x08;
      arp[13] = 0x06;
      expect(locateIp(arp)).to.equal(undefined);
      expect(locateIp(flowFrame().subarray(0, 30))).to.equal(undefined);
      const lying = flowFrame();
      lying[14] = 0x65;
      expect(locateIp(lying)).to.equal(undefined);
      expect(locateIp(new Uint8Array(10))).to.equal(undefined);
    });
  });

  describe("markCongestionExperienced (RFC 3168, checksum by RFC 1624)", () => {
    for (const [name, ecn] of [["ECT(0)", ECN_ECT_0], ["ECT(1)", ECN_ECT_1]] as const) {
      it(`marks an IPv4 ${name} packet CE and leaves a header checksum equal to one computed from scratch`, () => {
        const frame = flowFrame({ ecn, dscp: 46, id: 0x1234 });
        expect(markCongestionExperienced(frame)).to.equal(true);
        expect(ecnOf(frame)).to.equal(ECN_CE);
        expect(frame[15]! >> 2).to.equal(46);
        expect(checksumField(frame, 14)).to.equal(ipv4HeaderChecksum(frame, 14));
      });
      it(`marks an IPv6 ${name} packet CE, keeping the DSCP, version and flow label`, () => {
        const frame = flowFrame({ version: 6, ecn, dscp: 10, flowLabel: 0xabcde });
        const before = Uint8Array.from(frame);
        expect(markCongestionExperienced(frame)).to.equal(true);
        expect(ecnOf(frame)).to.equal(ECN_CE);
        const expected = flowFrame({ version: 6, ecn: ECN_CE, dscp: 10, flowLabel: 0xabcde });
        expect([...frame]).to.deep.equal([...expected]);
        expect(before[14]).to.equal(frame[14]);
      });
    }
    it("refuses a Not-ECT packet (IPv4 and IPv6) and leaves every byte as it was: the caller drops it", () => {
      for (const version of [4, 6] as const) {
        const frame = flowFrame({ version, ecn: ECN_NOT_ECT });
        const before = [...frame];
        expect(markCongestionExperienced(frame)).to.equal(false);
        expect([...frame]).to.deep.equal(before);
      }
    });
    it("counts a packet already CE as marked, changing nothing", () => {
      const frame = flowFrame({ ecn: ECN_CE });
      const before = [...frame];
      expect(markCongestionExperienced(frame)).to.equal(true);
      expect([...frame]).to.deep.equal(before);
    });
    it("refuses a frame that is not IP", () => {
      const arp = new Uint8Array(60);
      arp[12] = 0x08;
      arp[13] = 0x06;
      expect(markCongestionExperienced(arp)).to.equal(false);
    });
    it("keeps any valid IPv4 header's checksum right, whatever its fields and tags (property)", () => {
      fc.assert(
        fc.property(
          fc.constantFrom(ECN_ECT_0, ECN_ECT_1),
          fc.integer({ min: 0, max: 63 }),
          fc.integer({ min: 0, max: 0xffff }),
          fc.integer({ min: 0, max: 255 }),
          fc.integer({ min: 0, max: 255 }),
          fc.integer({ min: 0, max: 0xffffffff }),
          fc.integer({ min: 0, max: 0xffffffff }),
          tagsArb,
          (ecn, dscp, id, ttl, protocol, src, dst, tags) => {
            const frame = flowFrame({ ecn, dscp, id, ttl, protocol, src, dst, tags });
            const at = 14 + tags.length * 4;
            expect(markCongestionExperienced(frame)).to.equal(true);
            expect(ecnOf(frame)).to.equal(ECN_CE);
            expect(checksumField(frame, at)).to.equal(ipv4HeaderChecksum(frame, at));
          },
        ),
        { numRuns: RUNS, seed: FC_SEED, endOnFailure: true },
      );
    });
  });

  describe("flowHash (the 5-tuple, as fq_codel keys its flows)", () => {
    it("gives every frame of one flow the same hash, whatever its length, payload, TTL, IP ID or DSCP/ECN", () => {
      const a = flowHash(flowFrame({ length: 1514, id: 1, ttl: 64, payloadByte: 1 }), 7);
      const b = flowHash(flowFrame({ length: 80, id: 999, ttl: 3, payloadByte: 2, ecn: 2, dscp: 8 }), 7);
      expect(a).to.equal(b);
    });
    it("tells flows apart by source port, destination port, protocol and addresses, on IPv4 and IPv6", () => {
      for (const version of [4, 6] as const) {
        const base = flowHash(flowFrame({ version }), 0);
        expect(flowHash(flowFrame({ version, sport: 40001 }), 0)).to.not.equal(base);
        expect(flowHash(flowFrame({ version, dport: 5202 }), 0)).to.not.equal(base);
        expect(flowHash(flowFrame({ version, protocol: 6 }), 0)).to.not.equal(base);
        expect(flowHash(flowFrame({ version, src: 9 }), 0)).to.not.equal(base);
        expect(flowHash(flowFrame({ version, dst: 9 }), 0)).to.not.equal(base);
      }
    });
    it("reads the 5-tuple behind 802.1Q and QinQ tags", () => {
      const tagged = (sport: number) => flowHash(flowFrame({ sport, tags: [{ tpid: 0x88a8, vid: 5 }, { tpid: 0x8100, vid: 6 }] }), 0);
      expect(tagged(1)).to.equal(tagged(1));
      expect(tagged(1)).to.not.equal(tagged(2));
    });
    it("ignores the ports of a non-first IPv4 fragment (its bytes there are payload) and of a protocol without ports", () => {
      expect(flowHash(flowFrame({ fragmentOffset: 100, sport: 1 }), 0)).to.equal(flowHash(flowFrame({ fragmentOffset: 100, sport: 2 }), 0));
      expect(flowHash(flowFrame({ protocol: 1, sport: 1 }), 0)).to.equal(flowHash(flowFrame({ protocol: 1, sport: 2 }), 0));
    });
    it("depends on the seed (the queue's perturbation)", () => {
      expect(flowHash(flowFrame(), 1)).to.not.equal(flowHash(flowFrame(), 2));
    });
    it("spreads 1,000 flows over 1,024 buckets about as a random function would (no bucket holds more than 8)", () => {
      const buckets = new Map<number, number>();
      for (let sport = 1; sport <= 1000; sport++) {
        const b = Math.floor((flowHash(flowFrame({ sport }), 0) * 1024) / 2 ** 32);
        buckets.set(b, (buckets.get(b) ?? 0) + 1);
      }
      // A random function: ~62.5 % of buckets used, the fullest holds ~5; 8 would mean a poor hash.
      expect(Math.max(...buckets.values())).to.be.at.most(8);
      expect(buckets.size).to.be.greaterThan(560);
    });
  });
});

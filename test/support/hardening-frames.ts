import fc from "fast-check";
import type { DataPlane } from "../../src/application/ports/data-plane.js";
import type { EthernetSwitchFabric } from "../../src/domain/switching/forwarding.js";
import type { PortCountersSnapshot } from "../../src/domain/switching/port-counters.js";
import type { Netemu } from "../../src/adapters/composition-root.js";
import { TOKENS } from "../../src/application/ports/tokens.js";

export const MAX_UDP_PAYLOAD = 65507;

const macArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(0xffffffffffff) },
  { weight: 4, arbitrary: fc.constantFrom(0x005079666801, 0x005079666802, 0x005079666803, 0x005079666804, 0x01005e000001, 0x333300000001) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 2 ** 48 - 1 }) },
);

const tagArb = fc.record({
  tpid: fc.oneof(fc.constantFrom(0x8100, 0x88a8, 0x9100, 0x9200), fc.integer({ min: 0, max: 0xffff })),
  tci: fc.oneof(fc.constantFrom(0, 1, 10, 20, 100, 4094, 4095, 0xe00a), fc.integer({ min: 0, max: 0xffff })),
});

/** Random and mutated Ethernet frames: random MACs, 0..3 tags, any ethertype, length 0..65,507. */
export const frameArb: fc.Arbitrary<Uint8Array> = fc
  .record({
    dst: macArb,
    src: macArb,
    tags: fc.array(tagArb, { maxLength: 3 }),
    ethertype: fc.oneof(fc.constantFrom(0x0800, 0x0806, 0x86dd, 0x8100, 0x88a8), fc.integer({ min: 0, max: 0xffff })),
    length: fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 128 }) },
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 1518 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: MAX_UDP_PAYLOAD }) },
      { weight: 1, arbitrary: fc.constantFrom(0, 1, 13, 14, 17, 18, MAX_UDP_PAYLOAD) },
    ),
    fill: fc.integer({ min: 0, max: 255 }),
  })
  .map(({ dst, src, tags, ethertype, length, fill }) => {
    const frame = new Uint8Array(length).fill(fill);
    const header: number[] = [];
    for (const mac of [dst, src]) for (let i = 5; i >= 0; i--) header.push(Math.floor(mac / 2 ** (8 * i)) % 256);
    for (const { tpid, tci } of tags) header.push(tpid >> 8, tpid & 0xff, tci >> 8, tci & 0xff);
    header.push(ethertype >> 8, ethertype & 0xff);
    frame.set(header.slice(0, length));
    // Counterexamples print as a summary, not 65,507 numbers.
    const head = Buffer.from(frame.subarray(0, 22)).toString("hex");
    Object.defineProperty(frame, fc.toStringMethod, { value: () => `frame(${length} bytes, fill ${fill}, head ${head})` });
    return frame;
  });

/** Valid filter settings of every kind (delay kept small so runs stay short). */
export const filtersArb = (withBpf: boolean): fc.Arbitrary<Record<string, unknown[]>> =>
  fc
    .record(
      {
        frequency_drop: fc.oneof(fc.constantFrom(-1, 0, 1, 2), fc.integer({ min: -1, max: 32767 })).map((n) => [n]),
        packet_loss: fc.oneof(fc.constantFrom(0, 1, 50, 99, 100), fc.integer({ min: 0, max: 100 })).map((n) => [n]),
        delay: fc.tuple(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 5 })).map(([l, j]) => [l, j]),
        corrupt: fc.oneof(fc.constantFrom(0, 50, 100), fc.integer({ min: 0, max: 100 })).map((n) => [n]),
        bpf: fc.constantFrom(["ip"], ["vlan"], ["arp", "ether broadcast"], ["ether src 00:50:79:66:68:01"]),
      },
      { requiredKeys: [] },
    )
    .map((f) => {
      if (!withBpf) delete (f as Record<string, unknown>)["bpf"];
      return f as Record<string, unknown[]>;
    });

/**
 * White-box: the live fabric counters of a switch's ports in the real SwitchDataPlane (framesIn,
 * framesForwarded, framesOffered, framesOut, ingress and egress drops), which the API shows only
 * in part. Fails loudly if the data plane's shape changed.
 */
export function liveSnapshots(netemu: Netemu, nodeId: string): Map<number, PortCountersSnapshot> {
  const dp = netemu.container.resolve<DataPlane>(TOKENS.DataPlane) as unknown as {
    nodes?: Map<string, { live: { fabric: EthernetSwitchFabric }; ports: Map<number, unknown> }>;
  };
  if (!(dp.nodes instanceof Map)) throw new Error("SwitchDataPlane has no nodes map any more: update test/support/hardening-frames.ts");
  const live = dp.nodes.get(nodeId);
  const out = new Map<number, PortCountersSnapshot>();
  if (live === undefined) return out;
  for (const port of live.ports.keys()) {
    const c = live.live.fabric.counters(port);
    if (c !== undefined) out.set(port, c.snapshot());
  }
  return out;
}

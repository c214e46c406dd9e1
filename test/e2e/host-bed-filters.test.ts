import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { HostBed, requireHostBed, type BedHost } from "../support/host-bed.js";
import { linkedHosts } from "../support/host-bed-link.js";

/**
 * GNS3's link filters as real TCP/IP hosts see them (docs/host-bed.md), and a template for the
 * impairment tests: A ─ SW1 ══ link (filters) ══ SW2 ─ B, one access VLAN.
 */
describe("end to end: GNS3's link filters on real TCP/IP hosts", function () {
  this.timeout(120_000);
  let s: TestServer | undefined;
  let bed: HostBed | undefined;
  let linkPath: string;
  let a: BedHost, b: BedHost;

  const setFilters = async (filters: Record<string, unknown>): Promise<void> => {
    const r = await s!.request("PUT", linkPath, { filters });
    expect(r.status, r.text).to.equal(201);
  };

  before(async function () {
    requireHostBed(this);
    bed = await HostBed.open();
    s = await startTestServer();
    ({ linkPath, a, b } = await linkedHosts(s, bed, "host-bed-filters"));
  });

  afterEach(async () => {
    if (s !== undefined && linkPath !== undefined) await setFilters({});
  });

  after(async () => {
    await bed?.close();
    await s?.close();
  });

  it("a 20 ms delay on the link (both directions) shows in every ping's RTT, and TCP still flows", async () => {
    await setFilters({ delay: [20, 0] });
    const ping = await a.ping(b.ip, { count: 10, intervalS: 0.05 });
    expect(ping.received, ping.output).to.equal(10);
    expect(Math.min(...ping.rttsMs), ping.output).to.be.at.least(40);
    expect([...ping.rttsMs].sort((x, y) => x - y)[5], `median RTT: ${ping.output}`).to.be.below(60);
    const tcp = await bed!.iperf3(a, b, { seconds: 2 });
    expect(tcp.receivedBps).to.be.above(1e6);
  });

  it("a 10 % packet loss shows in iperf3's UDP loss, each way", async () => {
    await setFilters({ packet_loss: [10] });
    for (const reverse of [false, true]) {
      // The loss can also strike iperf3's one-shot UDP handshake (two datagrams: ~20 % of tries fail, 3 in a
      // row in one CI run): the bed runs it again then, up to 8 times (0.2^8: never in practice).
      const { udp, attempts } = await bed!.iperf3(a, b, { seconds: 2, udpBitrate: 6e6, udpLength: 1000, reverse, attempts: 8 });
      // ~1,500 datagrams: 4 standard deviations of a 10 % share is about ±3 points.
      expect(udp!.lostPackets / udp!.sentPackets, `reverse: ${reverse}, attempts: ${attempts}, ${JSON.stringify(udp)}`).to.be.within(0.06, 0.14);
      expect(udp!.outOfOrder, "loss does not reorder").to.equal(0);
    }
  });

  it("a bpf filter on icmp drops the pings and lets TCP through", async () => {
    await setFilters({ bpf: ["icmp"] });
    expect((await a.ping(b.ip, { count: 3, waitS: 0.5 })).received).to.equal(0);
    const tcp = await bed!.iperf3(a, b, { seconds: 1 });
    expect(tcp.receivedBps).to.be.above(1e6);
    await setFilters({});
    expect((await a.ping(b.ip, { count: 3 })).received, "restored without the filter").to.equal(3);
  });
});

import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBpfCommand } from "../../../src/adapters/cli/bpf-command.js";
import { ethernet, icmpMessage, ipv4Packet, tcpSegment, writePcap } from "../../support/bpf-frames.js";

const icmp = ethernet("02:00:00:00:00:01", "02:00:00:00:00:02", 0x0800, ipv4Packet(1, "10.0.0.1", "10.0.0.2", icmpMessage(8)));
const tcp = ethernet("02:00:00:00:00:01", "02:00:00:00:00:02", 0x0800, ipv4Packet(6, "10.0.0.1", "10.0.0.2", tcpSegment(1, 80)));

async function run(args: string[]): Promise<{ status: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runBpfCommand(args, (l) => out.push(l), (l) => err.push(l));
  return { status, out, err };
}

/** The same capture in another byte order / timestamp precision / link type. */
function variant(pcap: Uint8Array, opts: { bigEndian?: boolean; nano?: boolean; linkType?: number }): Uint8Array {
  const copy = pcap.slice();
  const src = new DataView(pcap.buffer, pcap.byteOffset, pcap.byteLength);
  const dv = new DataView(copy.buffer);
  const be = opts.bigEndian === true;
  dv.setUint32(0, opts.nano === true ? 0xa1b23c4d : 0xa1b2c3d4, !be);
  dv.setUint16(4, 2, !be);
  dv.setUint16(6, 4, !be);
  dv.setUint32(16, 65535, !be);
  dv.setUint32(20, opts.linkType ?? 1, !be);
  let off = 24;
  while (off < copy.length) {
    for (let i = 0; i < 4; i++) dv.setUint32(off + 4 * i, src.getUint32(off + 4 * i, true), !be);
    off += 16 + src.getUint32(off + 8, true);
  }
  return copy;
}

describe("netemu bpf (CLI)", () => {
  let dir = "";
  let capture = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-bpf-cli-"));
    capture = join(dir, "c.pcap");
    writeFileSync(capture, writePcap([{ data: icmp, wireLength: icmp.length }, { data: tcp, wireLength: tcp.length }, { data: icmp, wireLength: icmp.length }]));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("prints the numbers of the frames an expression matches", async () => {
    expect(await run(["icmp", capture])).to.deep.equal({ status: 0, out: ["icmp\t1,3"], err: [] });
  });

  it("prints one line per expression of a file, errors included, and exits 2 if one is refused", async () => {
    const file = join(dir, "exprs.txt");
    writeFileSync(file, "icmp\n\ntcp port 80\nudp\nip and arp\n");
    const r = await run(["-f", file, capture]);
    expect(r.out).to.deep.equal(["icmp\t1,3", "tcp port 80\t2", "udp\t", "ip and arp\tERROR: expression rejects all packets"]);
    expect(r.status).to.equal(2);
  });

  it("prints an expression and the compiler's message with control characters escaped, backslashes as written", async () => {
    const file = join(dir, "hostile.txt");
    writeFileSync(file, "ether proto \\ip\nicmp \u001b]0;x\u0007\n");
    const r = await run(["-f", file, capture]);
    expect(r.out[0]).to.equal("ether proto \\ip\t1,2,3");
    expect(r.out[1]).to.match(/^icmp \\x1b\]0;x\\x07\tERROR: /);
    expect(r.out.join("")).not.to.match(/[\u0000-\u0008\u000a-\u001f]/);
  });

  it("prints its help on stdout and exits 0 with --help", async () => {
    for (const args of [["--help"], ["-h"], ["-f", "--help"]]) {
      const r = await run(args);
      expect(r.status, args.join(" ")).to.equal(0);
      expect(r.err).to.deep.equal([]);
      expect(r.out[0]).to.equal("usage: netemu bpf 'EXPRESSION' CAPTURE.pcap");
      expect(r.out.join("\n")).to.contain("'#' starts a comment");
    }
  });

  it("ignores blank lines and '#' comments, whole-line or trailing, in an expressions file, as tcpdump -F does", async () => {
    const file = join(dir, "commented.txt");
    writeFileSync(file, "# what matches\n\n   \nicmp   # echo requests\r\n  # indented comment\ntcp port 80#no space\n");
    const r = await run(["-f", file, capture]);
    expect(r).to.deep.equal({ status: 0, out: ["icmp\t1,3", "tcp port 80\t2"], err: [] });
  });

  it("reads big-endian and nanosecond captures", async () => {
    const raw = writePcap([{ data: icmp, wireLength: icmp.length }, { data: tcp, wireLength: tcp.length }]);
    for (const opts of [{ bigEndian: true }, { nano: true }, { bigEndian: true, nano: true }]) {
      const path = join(dir, "v.pcap");
      writeFileSync(path, variant(raw, opts));
      expect((await run(["tcp", path])).out, JSON.stringify(opts)).to.deep.equal(["tcp\t2"]);
    }
  });

  it("uses the original length for len when the capture is truncated", async () => {
    const path = join(dir, "t.pcap");
    writeFileSync(path, writePcap([{ data: icmp.slice(0, 20), wireLength: icmp.length }]));
    expect((await run([`len = ${icmp.length}`, path])).out).to.deep.equal([`len = ${icmp.length}\t1`]);
    expect((await run(["icmp", path])).out).to.deep.equal(["icmp\t"]);
  });

  it("refuses link types other than Ethernet", async () => {
    const path = join(dir, "l.pcap");
    writeFileSync(path, variant(writePcap([{ data: icmp, wireLength: icmp.length }]), { linkType: 101 }));
    const r = await run(["icmp", path]);
    expect(r.status).to.equal(2);
    expect(r.err.join("\n")).to.contain("link type 101 is not supported");
  });

  it("prints usage and exits 2 on bad arguments or an unreadable file", async () => {
    for (const args of [[], ["icmp"], ["-f", "x"], ["icmp", join(dir, "missing.pcap")]]) {
      const r = await run(args);
      expect(r.status, JSON.stringify(args)).to.equal(2);
      expect(r.err.join("\n")).to.contain("usage: netemu bpf");
    }
  });
});

import { expect } from "chai";
import type { ComputeNotification } from "../../../src/application/ports/notifications.js";
import type { Logger } from "../../../src/application/ports/system.js";
import { encodeNotification, type FeedClient, type FeedClientKind, NotificationBacklogs } from "../../../src/adapters/http/notification-feed.js";
import { presentNotification } from "../../../src/adapters/http/compute/presenters.js";
import { gns3Json, gns3JsonArrayPieces } from "../../../src/adapters/shared/gns3-json.js";
import type { NotificationClientFigures } from "../../../src/adapters/metrics/prometheus-metrics.js";

/** A client whose connection holds `unsent` bytes: what is admitted is queued, and stays until it reads. */
class FakeClient implements FeedClient {
  unsentBytes = 0;
  drops: { reason: string; graceMs: number }[] = [];
  constructor(readonly kind: FeedClientKind = "websocket") {}
  unsent(): number {
    return this.unsentBytes;
  }
  drop(reason: string, graceMs: number): void {
    this.drops.push({ reason, graceMs });
  }
  /** What the feed does: asks, and queues when admitted. */
  offer(backlogs: NotificationBacklogs, bytes: number): boolean {
    const admitted = backlogs.admit(this, bytes);
    if (admitted) this.unsentBytes += bytes;
    return admitted;
  }
}

class RecordingLogger implements Logger {
  readonly warnings: { msg: string; fields: Record<string, unknown> | undefined }[] = [];
  debug(): void {}
  info(): void {}
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.warnings.push({ msg, fields });
  }
  error(): void {}
}

const count = (b: NotificationBacklogs, kind: FeedClientKind, reason: string) => b.dropped().find((d) => d.kind === kind && d.reason === reason)?.count;

describe("the bound on notification clients that do not read (NotificationBacklogs)", () => {
  it("admits a client's messages while its unsent bytes stay within its own bound", () => {
    const b = new NotificationBacklogs({ perClientBytes: 1000, totalBytes: 1_000_000 });
    const c = new FakeClient();
    b.add(c);
    for (let i = 0; i < 10; i++) expect(c.offer(b, 100)).to.equal(true);
    expect(c.drops).to.deep.equal([]);
    expect(b.queuedBytes()).to.equal(1000);
  });

  it("drops a client whose next message would pass its bound, once, with a reason and the grace, and admits nothing more", () => {
    const logger = new RecordingLogger();
    const b = new NotificationBacklogs({ perClientBytes: 1000, totalBytes: 1_000_000, dropGraceMs: 1234 }, logger);
    const c = new FakeClient("stream");
    b.add(c);
    for (let i = 0; i < 10; i++) c.offer(b, 100);
    expect(c.offer(b, 1)).to.equal(false);
    expect(c.offer(b, 1)).to.equal(false);
    expect(c.drops).to.have.length(1);
    expect(c.drops[0]!.reason).to.match(/too slow/);
    expect(c.drops[0]!.graceMs).to.equal(1234);
    expect(count(b, "stream", "client_backlog")).to.equal(1);
    expect(b.droppedTotal()).to.equal(1);
    expect(b.clientCount("stream")).to.equal(0);
    expect(logger.warnings).to.have.length(1);
    expect(logger.warnings[0]!.fields).to.include({ kind: "stream", reason: "client_backlog", unsentBytes: 1000, limitBytes: 1000 });
  });

  it("keeps a client that reads: what it took no longer counts against it", () => {
    const b = new NotificationBacklogs({ perClientBytes: 1000, totalBytes: 1_000_000 });
    const c = new FakeClient();
    b.add(c);
    for (let i = 0; i < 100; i++) {
      expect(c.offer(b, 100)).to.equal(true);
      c.unsentBytes = 0;
    }
    expect(c.drops).to.deep.equal([]);
  });

  it("when the clients together pass the total, drops the most behind first until the rest hold at most 7/8 of it", () => {
    const b = new NotificationBacklogs({ perClientBytes: 1_000_000, totalBytes: 8000 });
    const clients = [1000, 4000, 500, 2000].map((unsent) => {
      const c = new FakeClient();
      b.add(c);
      expect(c.offer(b, unsent)).to.equal(true);
      return c;
    });
    const reader = new FakeClient();
    b.add(reader);
    // 7,500 held; 600 more passes 8,000: the 4,000 one goes, leaving 3,500 + 600 ≤ 7,000.
    expect(reader.offer(b, 600)).to.equal(true);
    expect(clients.map((c) => c.drops.length)).to.deep.equal([0, 1, 0, 0]);
    expect(count(b, "websocket", "total_backlog")).to.equal(1);
    expect(b.liveQueuedBytes()).to.equal(1000 + 500 + 2000 + 600);
  });

  it("counts what the offering client would hold, and drops it when that makes it the most behind", () => {
    const b = new NotificationBacklogs({ perClientBytes: 1_000_000, totalBytes: 8000 });
    const a = new FakeClient();
    const c = new FakeClient();
    const small = new FakeClient();
    for (const x of [a, c, small]) b.add(x);
    a.offer(b, 3000);
    c.offer(b, 3000);
    small.offer(b, 100);
    // a would hold 5,000: it is the most behind, counting what it offers.
    expect(a.offer(b, 2000)).to.equal(false);
    expect([a.drops.length, c.drops.length, small.drops.length]).to.deep.equal([1, 0, 0]);
    expect(b.liveQueuedBytes()).to.be.at.most(7000);
  });

  it("does not walk the clients for every message: none is dropped while the admitted bytes stay under the total", () => {
    const b = new NotificationBacklogs({ perClientBytes: 1_000_000, totalBytes: 10_000 });
    let walks = 0;
    const c = new FakeClient();
    const counting: FeedClient = { kind: "websocket", unsent: () => (walks++, 0), drop: () => undefined };
    b.add(c);
    b.add(counting);
    for (let i = 0; i < 99; i++) c.offer(b, 100);
    expect(walks).to.equal(0);
  });

  it("counts a dropped client's queued bytes in the gauge until its connection is gone, and a forgotten client not at all", () => {
    const b = new NotificationBacklogs({ perClientBytes: 1000, totalBytes: 1_000_000 });
    const c = new FakeClient();
    const forget = b.add(c);
    c.offer(b, 900);
    c.offer(b, 200);
    expect(c.drops).to.have.length(1);
    expect(b.queuedBytes()).to.equal(900);
    expect(b.liveQueuedBytes()).to.equal(0);
    forget();
    expect(b.queuedBytes()).to.equal(0);
    expect(c.offer(b, 1)).to.equal(false);
  });

  it("gives every door and reason a count, zeros included, as the metrics read them", () => {
    const b: NotificationClientFigures = new NotificationBacklogs();
    expect(b.dropped()).to.deep.equal([
      { kind: "websocket", reason: "client_backlog", count: 0 },
      { kind: "websocket", reason: "total_backlog", count: 0 },
      { kind: "stream", reason: "client_backlog", count: 0 },
      { kind: "stream", reason: "total_backlog", count: 0 },
    ]);
  });
});

describe("a notification's wire text, made once for every client", () => {
  const n: ComputeNotification = { kind: "log", severity: "warning", message: "Café ü" };

  it("is the same Buffer for every listener of one published notification", () => {
    expect(encodeNotification(n)).to.equal(encodeNotification(n));
  });

  it("is the compact JSON of the presented notification, as before", () => {
    expect(encodeNotification(n).toString("utf8")).to.equal(JSON.stringify(presentNotification(n)));
  });

  it("is made afresh for another notification with the same content (a later event)", () => {
    const again: ComputeNotification = { ...n };
    expect(encodeNotification(again)).to.not.equal(encodeNotification(n));
    expect(encodeNotification(again).equals(encodeNotification(n))).to.equal(true);
  });
});

describe("a JSON list in pieces (gns3JsonArrayPieces)", () => {
  const item = (i: number) => ({ name: `n${i}é`, ports: [{ port_number: i, vlan: 1 }], z: null, empty: {}, list: [] });
  for (const length of [0, 1, 2, 63, 64, 65, 200]) {
    for (const perPiece of [1, 7, 64, 1000]) {
      it(`joins to gns3Json's very bytes for ${length} items in pieces of ${perPiece}`, () => {
        const items = Array.from({ length }, (_, i) => i);
        const pieces = [...gns3JsonArrayPieces(items, item, perPiece)];
        expect(pieces.join("")).to.equal(gns3Json(items.map(item)));
        expect(pieces.length).to.equal(Math.max(1, Math.ceil(length / perPiece)));
      });
    }
  }

  it("presents an item only when its piece is asked for", () => {
    const presented: number[] = [];
    const pieces = gns3JsonArrayPieces([0, 1, 2, 3], (i) => (presented.push(i), i), 2);
    pieces.next();
    expect(presented).to.deep.equal([0, 1]);
  });
});

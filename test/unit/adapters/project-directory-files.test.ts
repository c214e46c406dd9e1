import { expect } from "chai";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { ProjectDirectoryFiles } from "../../../src/adapters/persistence/project-directory-files.js";

const P = "12121212-3434-4565-8787-909090909090";

/** A body the test feeds chunk by chunk, as a slow client would send it. */
class Feed implements AsyncIterable<Uint8Array> {
  private readonly queue: (Uint8Array | null)[] = [];
  private wake: (() => void) | undefined;
  /** Resolves once the reader has asked for a chunk the feed does not have yet. */
  waiting: Promise<void> = new Promise(() => undefined);
  private waited: () => void = () => undefined;

  constructor() {
    this.rearm();
  }
  private rearm(): void {
    this.waiting = new Promise((resolve) => (this.waited = resolve));
  }
  push(chunk: Uint8Array | null): void {
    this.queue.push(chunk);
    this.wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      while (this.queue.length === 0) {
        const next = new Promise<void>((resolve) => (this.wake = resolve));
        this.waited();
        await next;
        this.rearm();
      }
      const chunk = this.queue.shift() as Uint8Array | null;
      if (chunk === null) return;
      yield chunk;
    }
  }
}

async function* bytes(...chunks: string[]): AsyncIterable<Uint8Array> {
  for (const c of chunks) yield Buffer.from(c);
}

describe("ProjectDirectoryFiles: the compute role's uploads (ADR 0060)", () => {
  let root: string;
  let dir: string;
  let files: ProjectDirectoryFiles;
  const uploads = (): string[] => (existsSync(join(root, ".uploads")) ? readdirSync(join(root, ".uploads")) : []);

  beforeEach(async () => {
    root = join(mkdtempSync(join(tmpdir(), "netemu-files-")), "compute");
    files = new ProjectDirectoryFiles(root, { maxUploadBytes: 100, maxProjectFilesBytes: 150 });
    await files.create(P);
    dir = join(root, P);
  });
  afterEach(async () => {
    await files.close();
    rmSync(join(root, ".."), { recursive: true, force: true });
  });

  it("stops an upload in flight on close, answers that the server is shutting down, and removes its temporary", async () => {
    const feed = new Feed();
    const writing = files.write(P, "a/slow.bin", feed);
    feed.push(Buffer.from("first part"));
    await feed.waiting;
    expect(uploads(), "being received").to.have.length(1);
    await files.close();
    expect(await writing).to.deep.equal(E.left({ _tag: "failed", reason: "the server is shutting down" }));
    expect(uploads()).to.deep.equal([]);
    expect(readdirSync(dir), "nor its directory").to.deep.equal([]);
  });

  it("refuses an upload after close", async () => {
    await files.close();
    expect(await files.write(P, "late.bin", bytes("x"))).to.deep.equal(E.left({ _tag: "failed", reason: "the server is shutting down" }));
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it("refuses a symbolic link leading out that was planted while the content arrived, and writes nothing", async () => {
    const outside = mkdtempSync(join(tmpdir(), "netemu-outside-"));
    try {
      const feed = new Feed();
      const writing = files.write(P, "sub/x.txt", feed);
      feed.push(Buffer.from("abc"));
      await feed.waiting;
      symlinkSync(outside, join(dir, "sub"));
      feed.push(null);
      expect(await writing).to.deep.equal(E.left({ _tag: "outside" }));
      expect(readdirSync(outside)).to.deep.equal([]);
      expect(uploads()).to.deep.equal([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("refuses a dangling symbolic link on the way as leading out", async () => {
    symlinkSync(join(root, "..", "nowhere"), join(dir, "gone"));
    expect(await files.write(P, "gone/x.txt", bytes("x"))).to.deep.equal(E.left({ _tag: "outside" }));
    expect(existsSync(join(root, "..", "nowhere"))).to.equal(false);
  });

  it("says which part is in the way when a file stands where a directory is needed, or a directory where the file goes", async () => {
    writeFileSync(join(dir, "plain"), "p");
    mkdirSync(join(dir, "adir"));
    expect(await files.write(P, "plain/x.txt", bytes("x"))).to.deep.equal(E.left({ _tag: "failed", reason: "plain is not a directory" }));
    expect(await files.write(P, "adir", bytes("x"))).to.deep.equal(E.left({ _tag: "failed", reason: "it is a directory" }));
    expect(readFileSync(join(dir, "plain"), "utf8")).to.equal("p");
    expect(uploads()).to.deep.equal([]);
  });

  it("counts uploads in flight to one project together against its cap", async () => {
    const first = new Feed();
    const writing = files.write(P, "one.bin", first);
    first.push(Buffer.alloc(90));
    await first.waiting;
    const second = await files.write(P, "two.bin", bytes("x".repeat(70)));
    expect(second).to.deep.equal(E.left({ _tag: "too-large", what: "project", limit: 150 }));
    first.push(null);
    expect(await writing).to.deep.equal(E.right(undefined));
    expect(readdirSync(dir)).to.deep.equal(["one.bin"]);
  });

  it("refuses an upload over its cap as it streams, keeping the file it would have replaced", async () => {
    writeFileSync(join(dir, "kept.bin"), "old");
    expect(await files.write(P, "kept.bin", bytes("x".repeat(60), "y".repeat(60)))).to.deep.equal(E.left({ _tag: "too-large", what: "upload", limit: 100 }));
    expect(readFileSync(join(dir, "kept.bin"), "utf8")).to.equal("old");
    expect(uploads()).to.deep.equal([]);
  });

  it("answers the reason, not the server's paths, when the content fails to arrive", async () => {
    async function* broken(): AsyncIterable<Uint8Array> {
      yield Buffer.from("a");
      throw new Error(`aborted at ${root}`);
    }
    expect(await files.write(P, "b.bin", broken())).to.deep.equal(E.left({ _tag: "failed", reason: "the upload was interrupted" }));
    expect(readdirSync(dir)).to.deep.equal([]);
    expect(uploads()).to.deep.equal([]);
  });

  it("empties the uploads directory a killed run left, at construction, before any upload", async () => {
    mkdirSync(join(root, ".uploads"), { recursive: true });
    writeFileSync(join(root, ".uploads", "left-by-kill-9"), "half");
    const again = new ProjectDirectoryFiles(root, { maxUploadBytes: 100, maxProjectFilesBytes: 150 });
    await again.ready;
    expect(uploads()).to.deep.equal([]);
    await again.close();
  });
});

import { expect } from "chai";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NODE_FILE_SYSTEM, removeStaleTemporaries, writeFileAtomic, type DurableFileSystem } from "../../../src/adapters/shared/atomic-file.js";

/** The real file system, noting each step an atomic write takes (file names relative to the directory). */
function recordingFileSystem(dir: string): DurableFileSystem & { steps: string[] } {
  const steps: string[] = [];
  const name = (path: string) => (path === dir ? "<dir>" : path.slice(dir.length + 1));
  return {
    steps,
    async open(path, flags, mode) {
      const file = await NODE_FILE_SYSTEM.open(path, flags, mode);
      steps.push(`open ${name(path)} ${flags}`);
      return {
        writeFile: async (data, encoding) => (await file.writeFile(data, encoding), void steps.push(`write ${name(path)}`)),
        sync: async () => (await file.sync(), void steps.push(`fsync ${name(path)}`)),
        close: async () => (await file.close(), void steps.push(`close ${name(path)}`)),
      };
    },
    rename: async (from, to) => (await NODE_FILE_SYSTEM.rename(from, to), void steps.push(`rename ${name(from)} ${name(to)}`)),
    remove: async (path) => (await NODE_FILE_SYSTEM.remove(path), void steps.push(`remove ${name(path)}`)),
  };
}

describe("atomic settings writes", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "netemu-atomic-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes a temporary file in the same directory, fsyncs it, renames it over the file, then fsyncs the directory", async () => {
    const fs = recordingFileSystem(dir);
    const file = join(dir, "gns3_controller.conf");
    writeFileSync(file, "old");
    await writeFileAtomic(file, "new", 0o600, fs);
    const temporary = (fs.steps[0] as string).split(" ")[1] as string;
    expect(temporary).to.match(new RegExp(`^gns3_controller\\.conf\\.${process.pid}\\.\\d+\\.tmp$`));
    expect(fs.steps).to.deep.equal([
      `open ${temporary} w`,
      `write ${temporary}`,
      `fsync ${temporary}`,
      `close ${temporary}`,
      `rename ${temporary} gns3_controller.conf`,
      "open <dir> r",
      "fsync <dir>",
      "close <dir>",
    ]);
    expect(readFileSync(file, "utf8")).to.equal("new");
    expect(readdirSync(dir)).to.deep.equal(["gns3_controller.conf"]);
  });

  it("leaves the old file whole when the write fails", async () => {
    const file = join(dir, "gns3_controller.conf");
    writeFileSync(file, "old");
    const fs: DurableFileSystem = { ...NODE_FILE_SYSTEM, rename: async () => Promise.reject(Object.assign(new Error("EIO: i/o error"), { code: "EIO" })) };
    let failure: unknown;
    await writeFileAtomic(file, "new", 0o600, fs).catch((err: unknown) => (failure = err));
    expect((failure as NodeJS.ErrnoException).code).to.equal("EIO");
    expect(readFileSync(file, "utf8")).to.equal("old");
    expect(readdirSync(dir), "the temporary is removed").to.deep.equal(["gns3_controller.conf"]);
  });

  it("removes the temporaries writers killed mid-write left (empty, half or whole), in today's and the old naming, and nothing else", async () => {
    const file = join(dir, "gns3_controller.conf");
    writeFileSync(file, '{"iou_license": {}}\n');
    writeFileSync(`${file}.4101.1.tmp`, "");
    writeFileSync(`${file}.4102.7.tmp`, '{"iou_lic');
    writeFileSync(`${file}.4103.tmp`, '{"iou_license": {}}\n'); // named as before ADR 0047
    writeFileSync(join(dir, "other.conf.1.2.tmp"), "not ours");
    writeFileSync(join(dir, "gns3_controller.conf.bak"), "not a temporary");
    mkdirSync(join(dir, "projects"));
    const removed = await removeStaleTemporaries(dir, (name) => name === "gns3_controller.conf");
    expect([...removed].sort()).to.deep.equal(["gns3_controller.conf.4101.1.tmp", "gns3_controller.conf.4102.7.tmp", "gns3_controller.conf.4103.tmp"]);
    expect(readdirSync(dir).sort()).to.deep.equal(["gns3_controller.conf", "gns3_controller.conf.bak", "other.conf.1.2.tmp", "projects"]);
  });
});

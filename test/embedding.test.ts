import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { createNetemu, InMemoryProjectRepository, type Project } from "../src/index.js";
import { freeUdpPort } from "./support/udp-peer.js";

/** The README's embedding example, run as written (with a scratch config dir and a free UDP range). */
describe("embedding netemu as a library", () => {
  it("runs the README example: use cases without HTTP, then the Koa app on a port", async () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    expect(readme).to.include("const sw = await uc.createSwitch.execute({ projectId: project.right.projectId, name: \"SW1\" });");

    const configDir = mkdtempSync(join(tmpdir(), "netemu-embed-"));
    // A port the OS handed out a moment ago, not a fixed one: other test processes on the host bind
    // UDP ranges from 40000 up, and a port of theirs made addNio refuse with port-in-use.
    const start = await freeUdpPort();
    const netemu = createNetemu({ logLevel: "silent", settings: { configDir, udpPortRange: { start, end: start + 9 } } });
    const uc = netemu.useCases;
    try {
      const project = await uc.createComputeProject.execute({ name: "lab" });
      if (E.isLeft(project)) throw new Error(project.left._tag);
      const sw = await uc.createSwitch.execute({ projectId: project.right.projectId, name: "SW1" });
      if (E.isLeft(sw)) throw new Error(sw.left._tag);
      const port = { projectId: project.right.projectId, nodeId: sw.right.nodeId, adapterNumber: 0, portNumber: 0 };
      const nio = await uc.addNio.execute({ port, nio: { type: "nio_udp", lport: start, rhost: "127.0.0.1", rport: start + 1, filters: { delay: [20, 0] } } });
      expect(E.isRight(nio), E.isLeft(nio) ? JSON.stringify(nio.left) : "").to.equal(true);

      const { url } = await netemu.listen(0, "127.0.0.1");
      const view = await fetch(`${url}/v2/compute/projects/${project.right.projectId}/ethernet_switch/nodes/${sw.right.nodeId}`);
      expect(view.status).to.equal(200);
      expect(((await view.json()) as { name: string }).name).to.equal("SW1");
    } finally {
      await netemu.shutdown();
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it("lets the host plug its own repository through the ports", async () => {
    const saved: string[] = [];
    class RecordingProjects extends InMemoryProjectRepository {
      override save = async (p: Project) => {
        saved.push(p.name);
        await this.put(p.projectId, p);
      };
    }
    const configDir = mkdtempSync(join(tmpdir(), "netemu-embed-"));
    const netemu = createNetemu({ logLevel: "silent", settings: { configDir }, overrides: { projectRepository: new RecordingProjects() } });
    try {
      await netemu.useCases.createProject.execute({ name: "mine" });
      expect(saved).to.deep.equal(["mine"]);
    } finally {
      await netemu.shutdown();
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});

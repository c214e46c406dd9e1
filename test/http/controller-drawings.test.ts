import { expect } from "chai";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import type { ProjectRepository } from "../../src/application/ports/repositories.js";
import { createDrawing } from "../../src/domain/topology/drawing.js";
import { CONFIGURATION_LIMITS } from "../../src/domain/configuration/limits.js";

const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const GIVEN_ID = "c2ac3d69-cd6d-4f45-bbb4-bf5122f2790d";

describe("HTTP: the controller's drawings (GNS3 2.2's DrawingHandler)", function () {
  this.timeout(30_000);
  let s: TestServer;
  let projectId: string;
  const D = () => `/v2/projects/${projectId}/drawings`;

  describe("in memory", () => {
    beforeEach(async () => {
      s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() } });
      projectId = (await s.request("POST", "/v2/projects", { name: "lab" })).json.project_id;
    });
    afterEach(async () => s.close());

    it("makes a drawing with GNS3's defaults (z 2, unlocked, no rotation, an empty SVG) and answers 201 with GNS3's fields", async () => {
      const r = await s.request("POST", D(), {});
      expect(r.status).to.equal(201);
      expect(Object.keys(r.json).sort()).to.deep.equal(["drawing_id", "locked", "project_id", "rotation", "svg", "x", "y", "z"]);
      expect(r.json).to.deep.include({ project_id: projectId, x: 0, y: 0, z: 2, locked: false, rotation: 0, svg: "<svg></svg>" });
    });

    it("keeps what the client gives, its drawing_id included, and answers the same drawing to GET, to the list and to stats", async () => {
      const body = { drawing_id: GIVEN_ID, x: 10, y: -20, z: 3, locked: true, rotation: -90, svg: "<svg width=\"10\"><text>hi</text></svg>" };
      const made = await s.request("POST", D(), body);
      expect(made.json).to.deep.equal({ ...body, project_id: projectId });
      expect((await s.request("GET", `${D()}/${GIVEN_ID}`)).json).to.deep.equal(made.json);
      expect((await s.request("GET", D())).json).to.deep.equal([made.json]);
      expect((await s.request("GET", `/v2/projects/${projectId}/stats`)).json).to.deep.include({ drawings: 1 });
    });

    it("answers a POST of a drawing_id the project has with that drawing, unchanged (GNS3's add_drawing)", async () => {
      const first = await s.request("POST", D(), { drawing_id: GIVEN_ID, x: 1 });
      const again = await s.request("POST", D(), { drawing_id: GIVEN_ID, x: 99 });
      expect(again.status).to.equal(201);
      expect(again.json).to.deep.equal(first.json);
      expect((await s.request("GET", D())).json).to.have.length(1);
    });

    it("updates only the fields a PUT gives, answering 201 as GNS3 does, and ignores a drawing_id in the body", async () => {
      const d = (await s.request("POST", D(), { x: 1, y: 2, svg: "<svg></svg>" })).json;
      const r = await s.request("PUT", `${D()}/${d.drawing_id}`, { x: 50, rotation: 45, drawing_id: UNKNOWN });
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.equal({ ...d, x: 50, rotation: 45 });
      expect((await s.request("GET", `${D()}/${d.drawing_id}`)).json).to.deep.equal(r.json);
    });

    it("deletes a drawing (204), after which GET answers 404 and stats counts none", async () => {
      const d = (await s.request("POST", D(), {})).json;
      expect((await s.request("DELETE", `${D()}/${d.drawing_id}`)).status).to.equal(204);
      expect((await s.request("GET", `${D()}/${d.drawing_id}`)).status).to.equal(404);
      expect((await s.request("GET", `/v2/projects/${projectId}/stats`)).json).to.deep.include({ drawings: 0 });
    });

    it("refuses to delete a locked drawing with GNS3's 409, and keeps it", async () => {
      const d = (await s.request("POST", D(), { locked: true })).json;
      const r = await s.request("DELETE", `${D()}/${d.drawing_id}`);
      expect(r.status).to.equal(409);
      expect(r.json).to.deep.equal({ message: `Drawing ID ${d.drawing_id} cannot be deleted because it is locked`, status: 409 });
      expect((await s.request("GET", D())).json).to.have.length(1);
    });

    it("answers GNS3's 404 for a drawing the project does not have, to GET, PUT and DELETE", async () => {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const r = await s.request(method, `${D()}/${UNKNOWN}`, method === "PUT" ? { x: 1 } : undefined);
        expect(r.status, method).to.equal(404);
        expect(r.json, method).to.deep.equal({ message: `Drawing ID ${UNKNOWN} doesn't exist`, status: 404 });
      }
    });

    it("answers 404 for every drawing route of a project that does not exist", async () => {
      const base = `/v2/projects/${UNKNOWN}/drawings`;
      for (const [method, path, body] of [["GET", base], ["POST", base, {}], ["GET", `${base}/${GIVEN_ID}`], ["PUT", `${base}/${GIVEN_ID}`, {}], ["DELETE", `${base}/${GIVEN_ID}`]] as const) {
        const r = await s.request(method, path, body);
        expect(r.status, `${method} ${path}`).to.equal(404);
        expect(r.json.message).to.equal(`Project ID ${UNKNOWN} doesn't exist`);
      }
    });

    it("refuses what GNS3's schema refuses with its 400: a rotation out of -359..360, a non-integer coordinate, a non-string svg, an unknown field, a malformed drawing_id", async () => {
      const d = (await s.request("POST", D(), {})).json;
      for (const body of [{ rotation: 361 }, { rotation: -360 }, { x: 1.5 }, { svg: 3 }, { locked: "yes" }, { colour: "red" }]) {
        for (const [method, path] of [["POST", D()], ["PUT", `${D()}/${d.drawing_id}`]] as const) {
          const r = await s.request(method, path, body);
          expect(r.status, `${method} ${JSON.stringify(body)}`).to.equal(400);
          expect(r.json.path).to.be.a("string");
        }
      }
      expect((await s.request("POST", D(), { drawing_id: "not-a-uuid" })).status).to.equal(400);
      expect((await s.request("GET", D())).json).to.deep.equal([d]);
    });

    it("refuses a coordinate beyond a billion with a 400 naming the field (netemu's bound; GNS3 sets none)", async () => {
      const r = await s.request("POST", D(), { x: 2_000_000_000 });
      expect(r.status).to.equal(400);
      expect(r.json.message).to.match(/\bx\b/);
    });

    it("refuses a drawing beyond the project's limit with 409, making nothing", async () => {
      const projects = s.netemu.container.resolve<ProjectRepository>(TOKENS.ProjectRepository);
      const project = await projects.get(projectId);
      const full = Array.from({ length: CONFIGURATION_LIMITS.drawingsPerProject }, (_, i) => createDrawing(projectId, `d-${i}`, {}));
      await projects.save({ ...project!, drawings: full });
      const r = await s.request("POST", D(), {});
      expect(r.status).to.equal(409);
      expect(r.json.message).to.equal(`The project already has ${CONFIGURATION_LIMITS.drawingsPerProject} drawings, the most netemu allows in one project`);
      expect((await projects.get(projectId))?.drawings).to.have.length(CONFIGURATION_LIMITS.drawingsPerProject);
    });

    it("of a closed project: lists the drawings (as GNS3 answers them from the file), refuses the others with GNS3's 403, and counts none in stats", async () => {
      const d = (await s.request("POST", D(), { x: 7 })).json;
      await s.request("POST", `/v2/projects/${projectId}/close`, {});
      expect((await s.request("GET", D())).json).to.deep.equal([d]);
      for (const [method, path, body] of [["POST", D(), {}], ["GET", `${D()}/${d.drawing_id}`], ["PUT", `${D()}/${d.drawing_id}`, { x: 1 }], ["DELETE", `${D()}/${d.drawing_id}`]] as const) {
        const r = await s.request(method, path, body);
        expect(r.status, `${method} ${path}`).to.equal(403);
        expect(r.json).to.deep.equal({ message: "The project is not opened", status: 403 });
      }
      expect((await s.request("GET", `/v2/projects/${projectId}/stats`)).json).to.deep.include({ drawings: 0 });
      await s.request("POST", `/v2/projects/${projectId}/open`, {});
      expect((await s.request("GET", `${D()}/${d.drawing_id}`)).json).to.deep.equal(d);
    });
  });

  describe("in the project's .gns3 file", () => {
    let configDir: string;
    let projectsPath: string;
    const start = async () =>
      (s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() }, persistProjects: true, settings: { configDir, projectsPath } }));
    beforeEach(() => {
      configDir = mkdtempSync(join(tmpdir(), "netemu-drawings-"));
      projectsPath = join(configDir, "projects");
    });
    afterEach(async () => {
      await s?.netemu.shutdown();
      rmSync(configDir, { recursive: true, force: true });
    });

    it("writes the drawings in topology.drawings as GNS3 does (no project_id), and reads them back after a restart", async () => {
      await start();
      projectId = (await s.request("POST", "/v2/projects", { name: "drawn" })).json.project_id;
      const a = (await s.request("POST", D(), { x: 10, y: 20, svg: "<svg width=\"5\"></svg>" })).json;
      const b = (await s.request("POST", D(), { locked: true, rotation: 90 })).json;
      await s.request("POST", `/v2/projects/${projectId}/close`, {});
      await s.netemu.shutdown();
      const file = JSON.parse(readFileSync(join(projectsPath, projectId, "drawn.gns3"), "utf8"));
      expect(file.topology.drawings).to.deep.equal([
        { drawing_id: a.drawing_id, locked: false, rotation: 0, svg: "<svg width=\"5\"></svg>", x: 10, y: 20, z: 2 },
        { drawing_id: b.drawing_id, locked: true, rotation: 90, svg: "<svg></svg>", x: 0, y: 0, z: 2 },
      ]);
      await start();
      expect((await s.request("GET", D())).json).to.deep.equal([a, b]);
      await s.request("POST", `/v2/projects/${projectId}/open`, {});
      expect((await s.request("GET", `/v2/projects/${projectId}/stats`)).json).to.deep.include({ drawings: 2 });
    });

    it("opens a .gns3 file GNS3 2.2.59 wrote with drawings, with those drawings", async () => {
      const id = "5f3f0dac-d1fe-4497-8e27-3c99eaf93f7b";
      mkdirSync(join(projectsPath, id), { recursive: true });
      writeFileSync(join(projectsPath, id, "frames.gns3"), GNS3_FILE_WITH_DRAWINGS);
      await start();
      projectId = id;
      expect((await s.request("POST", `/v2/projects/${id}/open`, {})).status).to.equal(201);
      expect((await s.request("GET", D())).json).to.deep.equal([
        { drawing_id: "c2ac3d69-cd6d-4f45-bbb4-bf5122f2790d", locked: false, project_id: id, rotation: 0, svg: "<svg height=\"20\" width=\"20\"></svg>", x: 50, y: 6, z: 2 },
        { drawing_id: "6c6548a3-5406-40e9-8bf9-13e3858a984b", locked: true, project_id: id, rotation: 0, svg: "<svg></svg>", x: 0, y: 0, z: 2 },
      ]);
    });

    it("reads a drawing GNS3 kept as a picture file (project-files/images/<md5>.svg) from that file, and keeps the name of one it cannot read", async () => {
      const id = "5f3f0dac-d1fe-4497-8e27-3c99eaf93f7b";
      const big = `<svg height="300" width="300">${"<rect/>".repeat(200)}</svg>`;
      mkdirSync(join(projectsPath, id, "project-files", "images"), { recursive: true });
      writeFileSync(join(projectsPath, id, "project-files", "images", "0f8f.svg"), big);
      const file = JSON.parse(GNS3_FILE_WITH_DRAWINGS);
      file.topology.drawings[0].svg = "0f8f.svg";
      file.topology.drawings[1].svg = "missing.png";
      writeFileSync(join(projectsPath, id, "frames.gns3"), JSON.stringify(file, null, 4));
      await start();
      projectId = id;
      const listed = (await s.request("GET", D())).json;
      expect(listed.map((d: { svg: string }) => d.svg)).to.deep.equal([big, "missing.png"]);
    });

    it("leaves out a .gns3 file whose drawing breaks GNS3's schema (a rotation of 400), saying which field", async () => {
      const id = "5f3f0dac-d1fe-4497-8e27-3c99eaf93f7b";
      mkdirSync(join(projectsPath, id), { recursive: true });
      writeFileSync(join(projectsPath, id, "frames.gns3"), GNS3_FILE_WITH_DRAWINGS.replace('"rotation": 0', '"rotation": 400'));
      await start();
      expect((await s.request("GET", `/v2/projects/${id}`)).status).to.equal(404);
      const skipped = (await s.request("GET", "/v2/netemu/projects/skipped")).json;
      expect(skipped.map((k: { reason: string }) => k.reason).join("\n")).to.match(/topology\.drawings\[0\]\.rotation/);
      expect(readdirSync(join(projectsPath, id))).to.deep.equal(["frames.gns3"]);
    });
  });
});

/** A .gns3 file as GNS3 2.2.59 wrote it (two VPCS removed: the topology's drawings are what counts here). */
const GNS3_FILE_WITH_DRAWINGS = JSON.stringify(
  {
    auto_close: true,
    auto_open: false,
    auto_start: false,
    drawing_grid_size: 25,
    grid_size: 75,
    name: "frames",
    project_id: "5f3f0dac-d1fe-4497-8e27-3c99eaf93f7b",
    revision: 9,
    scene_height: 1000,
    scene_width: 2000,
    show_grid: false,
    show_interface_labels: false,
    show_layers: false,
    snap_to_grid: false,
    supplier: null,
    topology: {
      computes: [],
      drawings: [
        { drawing_id: "c2ac3d69-cd6d-4f45-bbb4-bf5122f2790d", locked: false, rotation: 0, svg: "<svg height=\"20\" width=\"20\"></svg>", x: 50, y: 6, z: 2 },
        { drawing_id: "6c6548a3-5406-40e9-8bf9-13e3858a984b", locked: true, rotation: 0, svg: "<svg></svg>", x: 0, y: 0, z: 2 },
      ],
      links: [],
      nodes: [],
    },
    type: "topology",
    variables: null,
    version: "2.2.59",
    zoom: 100,
  },
  null,
  4,
);

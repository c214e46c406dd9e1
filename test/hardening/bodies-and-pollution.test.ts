import { expect } from "chai";
import { closeRawHttpAgent, errorBodyProblem, rawHttp } from "../support/hardening-kit.js";
import { World } from "../support/hardening-world.js";

const protoKeys = (o: object): string => Object.getOwnPropertyNames(o).sort().join(",");

/** JSON text with own `__proto__`, `constructor.prototype` and `prototype` keys, top level and nested. */
function pollutingJson(valid: Record<string, unknown>): string {
  const inner = JSON.stringify(valid).slice(1, -1);
  const payload = '{"polluted":"yes","isAdmin":true,"toString":"x"}';
  const nasty = `"__proto__":${payload},"constructor":{"prototype":${payload}},"prototype":${payload}`;
  return `{${inner}${inner === "" ? "" : ","}${nasty},"nested":{${nasty}}}`;
}

describe("Request bodies: prototype pollution, size limit and nesting depth", function () {
  this.timeout(30_000);
  let w: World;
  beforeEach(async () => {
    w = await World.create();
  });
  afterEach(async () => {
    await w.close();
  });
  after(() => closeRawHttpAgent());

  it("never lets __proto__, constructor or prototype keys reach Object.prototype, whatever the route", async () => {
    const before = { object: protoKeys(Object.prototype), array: protoKeys(Array.prototype) };
    const sw = `/v2/compute/projects/${w.P}/ethernet_switch/nodes/${w.SW}`;
    const targets: [string, string, Record<string, unknown>][] = [
      ["POST", "/v2/version", { version: "2.2.59" }],
      ["PUT", "/v2/iou_license", { iourc_content: "x" }],
      ["POST", "/v2/compute/projects", { name: "p" }],
      ["POST", `/v2/compute/projects/${w.P}/ethernet_switch/nodes`, { name: "S" }],
      ["PUT", sw, { name: "S" }],
      ["POST", `${sw}/duplicate`, { destination_node_id: "x" }],
      ["POST", `${sw}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: w.spareLport, rhost: "127.0.0.1", rport: 9 }],
      ["PUT", `${sw}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: w.nioLport, rhost: "127.0.0.1", rport: 9 }],
      ["POST", `${sw}/adapters/0/ports/0/start_capture`, { capture_file_name: "a.pcap", data_link_type: "DLT_EN10MB" }],
      ["POST", "/v2/projects", { name: "q" }],
      ["POST", `/v2/projects/${w.CP}/nodes`, { name: "N9", node_type: "ethernet_switch", compute_id: "local" }],
      ["PUT", `/v2/projects/${w.CP}/nodes/${w.N1}`, { name: "N1" }],
      ["POST", `/v2/projects/${w.CP}/links`, { nodes: [] }],
      ["PUT", `/v2/projects/${w.CP}/links/${w.LINK}`, {}],
    ];
    for (const [method, path, valid] of targets) {
      for (const text of [pollutingJson(valid), pollutingJson({}), '{"__proto__":{"polluted":1}}', '[{"__proto__":{"polluted":1}}]']) {
        for (const query of ["", "?__proto__[polluted]=1", "?constructor[prototype][polluted]=1", "?__proto__=polluted"]) {
          const reply = await rawHttp(w.url, method, path + query, text);
          const where = `${method} ${path}${query} ${text.slice(0, 120)} → ${reply.status} ${reply.text.slice(0, 200)}`;
          expect(reply.status, where).to.be.below(500);
          expect(errorBodyProblem(method, reply), where).to.equal(undefined);
        }
      }
    }
    // Free-form fields (link_style, variables, supplier) are stored: check what they hold afterwards.
    const styled = await rawHttp(w.url, "PUT", `/v2/projects/${w.CP}/links/${w.LINK}`, '{"link_style":{"__proto__":{"polluted":1},"width":2}}');
    expect(styled.status).to.be.below(500);
    const link = JSON.parse((await rawHttp(w.url, "GET", `/v2/projects/${w.CP}/links/${w.LINK}`)).text) as Record<string, unknown>;
    expect(Object.getPrototypeOf(link["link_style"])).to.equal(Object.prototype);
    const plain: Record<string, unknown> = {};
    expect(plain["polluted"]).to.equal(undefined);
    expect(plain["isAdmin"]).to.equal(undefined);
    expect(typeof plain.toString).to.equal("function");
    expect(([] as unknown as Record<string, unknown>)["polluted"]).to.equal(undefined);
    expect(protoKeys(Object.prototype)).to.equal(before.object);
    expect(protoKeys(Array.prototype)).to.equal(before.array);
    // And the server still answers normally.
    expect((await rawHttp(w.url, "GET", "/v2/version")).status).to.equal(200);
  });

  it("answers a body one byte over the default 1 MiB limit with a JSON 413, and takes one at the limit", async () => {
    const limit = 1024 * 1024;
    const make = (size: number): string => {
      const head = '{"iourc_content":"';
      const tail = '"}';
      return head + "a".repeat(size - head.length - tail.length) + tail;
    };
    const over = await rawHttp(w.url, "PUT", "/v2/iou_license", make(limit + 1));
    expect(over.status).to.equal(413);
    expect(errorBodyProblem("PUT", over)).to.equal(undefined);
    expect(JSON.parse((await rawHttp(w.url, "GET", "/v2/iou_license")).text).iourc_content).to.equal("");
    const at = await rawHttp(w.url, "PUT", "/v2/iou_license", make(limit));
    expect(at.status).to.equal(201);
  });

  it("applies createNetemu's bodyLimitBytes: 1,000 bytes pass, 1,001 get a JSON 413 that changes nothing", async () => {
    const small = await World.create({ bodyLimitBytes: 1000 });
    try {
      const before = await small.fingerprint();
      const body = (n: number): string => `{"name":"${"x".repeat(n - 11)}"}`;
      expect(body(1001)).to.have.length(1001);
      const over = await rawHttp(small.url, "POST", "/v2/projects", body(1001));
      expect(over.status).to.equal(413);
      expect(errorBodyProblem("POST", over)).to.equal(undefined);
      expect(JSON.parse(over.text).message).to.be.a("string");
      expect(await small.fingerprint()).to.equal(before);
      expect((await rawHttp(small.url, "POST", "/v2/projects", body(1000))).status).to.equal(201);
    } finally {
      await small.close();
    }
  });

  for (const [what, open, close] of [
    ["array", "[", "]"],
    ["object", '{"a":', "}"],
  ] as const) {
    for (const depth of [10_000, 100_000]) {
      it(`answers a ${depth.toLocaleString("en")}-deep nested ${what} body with a JSON 400 or 413 and keeps serving`, async () => {
        const deep = open.repeat(depth) + "1" + close.repeat(depth);
        const routes: [string, string][] = [
          ["POST", "/v2/version"],
          ["PUT", "/v2/iou_license"],
          ["POST", `/v2/projects/${w.CP}/links`],
          ["PUT", `/v2/projects/${w.CP}/links/${w.LINK}`],
        ];
        const before = await w.fingerprint();
        for (const [method, path] of routes) {
          for (const text of [deep, `{"filters":${deep}}`, `{"version":${deep}}`]) {
            const reply = await rawHttp(w.url, method, path, text);
            const where = `${method} ${path} with a ${depth}-deep ${what} (${text.length} bytes) → ${reply.status} ${reply.text.slice(0, 200)}`;
            expect([400, 413], where).to.include(reply.status);
            expect(errorBodyProblem(method, reply), where).to.equal(undefined);
          }
        }
        expect(await w.fingerprint()).to.equal(before);
        expect((await rawHttp(w.url, "GET", "/v2/version")).status).to.equal(200);
      });
    }
  }
});

import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { impairedNio, impairedNode, type Impairment } from "../../../src/domain/switching/impairment-overlay.js";
import { type Nio, filtersOf, parseNio } from "../../../src/domain/switching/nio.js";
import { NO_FILTERS } from "../../../src/domain/filters/filter-settings.js";

function udp(raw: Record<string, unknown> = {}): Nio {
  const nio = parseNio({ type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001, ...raw });
  if (E.isLeft(nio)) throw new Error(JSON.stringify(nio.left));
  return nio.right;
}

const at = { projectId: "p", nodeId: "n", portNumber: 1, projectName: "lab", nodeName: "Switch1", portName: "Ethernet1" };

describe("the impairment overlay on a port's NIO", () => {
  it("puts an impairment's direction on that direction only", () => {
    const nio = impairedNio(udp(), { in: NO_FILTERS, out: { delay: [50] } });
    if (nio.type !== "nio_udp") throw new Error("udp");
    expect(filtersOf(nio, "out")).to.deep.equal({ delay: [50] });
    expect(filtersOf(nio, "in")).to.deep.equal({});
  });

  it("replaces the NIO's own filter of a kind it sets and keeps the NIO's other kinds, in catalogue order", () => {
    const nio = impairedNio(udp({ filters: { packet_loss: [5] }, filtersOut: { delay: [10] } }), { in: NO_FILTERS, out: { bandwidth: [1000], delay: [50] } });
    if (nio.type !== "nio_udp") throw new Error("udp");
    expect(filtersOf(nio, "out")).to.deep.equal({ packet_loss: [5], delay: [50], bandwidth: [1000] });
    expect(Object.keys(nio.filtersOut ?? {})).to.deep.equal(["delay", "bandwidth"]);
    expect(filtersOf(nio, "in")).to.deep.equal({ packet_loss: [5] });
  });

  it("leaves a nio_null and the ports and nodes it does not name alone", () => {
    expect(impairedNio({ type: "nio_null" }, { in: { delay: [1] }, out: NO_FILTERS })).to.deep.equal({ type: "nio_null" });
    const node = { nodeId: "n", projectId: "p", nios: new Map<number, Nio>([[0, udp()]]) } as unknown as Parameters<typeof impairedNode>[0];
    const other: Impairment = { ...at, in: { delay: [1] }, out: NO_FILTERS };
    expect(impairedNode(node, [other]), "port 1 has no NIO").to.equal(node);
    expect(impairedNode(node, [{ ...other, portNumber: 0, nodeId: "m" }]), "another node").to.equal(node);
    const impaired = impairedNode(node, [{ ...other, portNumber: 0 }]);
    expect(impaired).not.to.equal(node);
    expect(node.nios.get(0)).to.deep.equal(udp(), "the record is not changed");
  });
});

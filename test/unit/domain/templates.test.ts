import { expect } from "chai";
import { GNS3_BUILTIN_TEMPLATES, NETEMU_TEMPLATES, allocateNodeName } from "../../../src/domain/topology/templates.js";

describe("node templates", () => {
  it("has GNS3 2.2.59's seven built-ins, and lists for use only the Cloud, VPCS, the Ethernet switch and hub, then netemu's own Linux host", () => {
    expect(GNS3_BUILTIN_TEMPLATES.map((t) => t.templateType)).to.deep.equal(["cloud", "nat", "vpcs", "ethernet_switch", "ethernet_hub", "frame_relay_switch", "atm_switch"]);
    expect(NETEMU_TEMPLATES.map((t) => [t.name, t.templateId])).to.deep.equal([
      ["Cloud", "39e257dc-8412-3174-b6b3-0ee3ed6a43e9"],
      ["VPCS", "19021f99-e36f-394d-b4a1-8aaa902ab9cc"],
      ["Ethernet switch", "1966b864-93e7-32d5-965f-001384eec461"],
      ["Ethernet hub", "b4503ea9-d6b6-3695-9fe4-1db3b39290b0"],
      // uuid3(NAMESPACE_DNS, "netemu_host"), derived as GNS3 derives its built-ins' ids (ADR 0087).
      ["Linux host", "49c9e132-ed0b-3d47-99ef-9c6b462e1c42"],
    ]);
  });

  describe("a node name from a template's format, as GNS3 allocates it", () => {
    it("numbers {0} with the first number no node of the project has", () => {
      expect(allocateNodeName("Switch{0}", new Set())).to.equal("Switch1");
      expect(allocateNodeName("Switch{0}", new Set(["Switch1", "Switch3"]))).to.equal("Switch2");
      expect(allocateNodeName("R-{id}", new Set(["R-1"]))).to.equal("R-2");
    });

    it("removes spaces, and numbers a format without a placeholder only when it is taken", () => {
      expect(allocateNodeName("Core Switch{0}", new Set())).to.equal("CoreSwitch1");
      expect(allocateNodeName("core", new Set())).to.equal("core");
      expect(allocateNodeName("core", new Set(["core", "core1"]))).to.equal("core2");
    });
  });
});

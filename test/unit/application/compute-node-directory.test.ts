import { expect } from "chai";
import { computeNodeDirectory } from "../../../src/application/use-cases/compute/capture-path.js";

describe("a host's working directory made by the compute API", () => {
  it("is under the compute's projects, in project-files/<node type>/<node id>, for a VPCS and a Linux host, as GNS3 lays them out", () => {
    expect(computeNodeDirectory("/p", "proj", "vpcs", "n1")).to.equal("/p/.netemu-compute/proj/project-files/vpcs/n1");
    expect(computeNodeDirectory("/p", "proj", "netemu_host", "n2")).to.equal("/p/.netemu-compute/proj/project-files/netemu_host/n2");
  });

  it("is under project-files/builtin for a cloud, as GNS3 keeps its built-in nodes' files", () => {
    expect(computeNodeDirectory("/p", "proj", "cloud", "n3")).to.equal("/p/.netemu-compute/proj/project-files/builtin/n3");
  });
});

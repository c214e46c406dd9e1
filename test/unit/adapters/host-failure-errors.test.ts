import { expect } from "chai";
import { toHttpError } from "../../../src/adapters/http/error-mapping.js";

describe("HTTP answers to failures of the host (toHttpError)", () => {
  it("answers an exhausted file-descriptor table while reserving a UDP port as a 500 naming the cause", () => {
    expect(toHttpError({ _tag: "UdpPortCheckFailed", port: 20000, address: "127.0.0.1", code: "EMFILE", detail: "bind EMFILE 127.0.0.1:20000" })).to.deep.equal({
      status: 500,
      message:
        "Could not reserve a UDP port: binding 127.0.0.1:20000 failed with EMFILE (too many open files: netemu reached its file-descriptor limit (raise ulimit -n)); no other port was tried, they would all fail alike",
    });
  });

  it("keeps Node's words for an OS code it has no plain words for", () => {
    expect(toHttpError({ _tag: "SettingsFileFailed", path: "/c/gns3_controller.conf", operation: "write", code: "EXDEV", detail: "cross-device link" }).message).to.equal(
      "Could not write the settings file /c/gns3_controller.conf: EXDEV (cross-device link)",
    );
  });

  it("answers an unwritable debug bundle as a 500 naming the directory", () => {
    expect(toHttpError({ _tag: "DebugBundleUnwritable", path: "/c/debug", code: "EROFS", detail: "x" })).to.deep.equal({
      status: 500,
      message: "Could not write the debug bundle in /c/debug: EROFS (read-only file system)",
    });
  });
});

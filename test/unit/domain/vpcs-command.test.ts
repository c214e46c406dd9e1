import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { parseVpcsVersion, vpcsCommand } from "../../../src/domain/switching/vpcs-command.js";
import { renamedScript } from "../../../src/application/use-cases/compute/update-vpcs.js";

const version = (text: string) => parseVpcsVersion(`\nWelcome to Virtual PC Simulator, version ${text}\nDedicated to Daling.\n`);

describe("VPCS command line, as GNS3's compute builds it", () => {
  it("takes Debian's VPCS 0.5b2 and later, and refuses an older one (never seen: its options unknown), saying why", () => {
    expect(E.isRight(version("0.8.3"))).to.equal(true);
    expect(E.isRight(version("0.6.1"))).to.equal(true);
    expect(E.isRight(version("0.5b2"))).to.equal(true);
    const old = version("0.4.2");
    expect(E.isLeft(old) && old.left).to.match(/0\.4\.2 is too old.*0\.5b2/);
    expect(E.isLeft(parseVpcsVersion("bash: vpcs: command not found"))).to.equal(true);
  });

  it("runs one instance in the foreground on its console port, with -R from 0.8 and the startup script last", () => {
    const v = version("0.8.3");
    if (E.isLeft(v)) throw new Error(v.left);
    expect(vpcsCommand(v.right, { consolePort: 5000, macId: 3, localPort: 20001, remotePort: 20002, remoteHost: "127.0.0.1", script: "startup.vpc" })).to.deep.equal({
      args: ["-p", "5000", "-m", "3", "-i", "1", "-F", "-R", "-s", "20001", "-c", "20002", "-t", "127.0.0.1", "startup.vpc"],
      daemonizes: false,
    });
    const older = version("0.6.1");
    if (E.isLeft(older)) throw new Error(older.left);
    expect(vpcsCommand(older.right, { consolePort: 5000, macId: 0, localPort: 1, remotePort: 2, remoteHost: "127.0.0.1" }).args).to.not.include("-R");
  });

  it("runs Debian's 0.5b2 as the daemon it always becomes with -p: no -F, no -R (it has neither), GNS3's other options", () => {
    const v = version("0.5b2");
    if (E.isLeft(v)) throw new Error(v.left);
    expect(vpcsCommand(v.right, { consolePort: 5000, macId: 1, localPort: 20001, remotePort: 20002, remoteHost: "127.0.0.1", script: "startup.vpc" })).to.deep.equal({
      args: ["-p", "5000", "-m", "1", "-i", "1", "-s", "20001", "-c", "20002", "-t", "127.0.0.1", "startup.vpc"],
      daemonizes: true,
    });
  });

  it("renames a node in its script as GNS3 does: the old name replaced and set pcname set", () => {
    expect(renamedScript("# config for PC1\nset pcname PC1\nip 10.0.0.1/24\n", "PC1", "Web")).to.equal("# config for Web\nset pcname Web\nip 10.0.0.1/24\n");
  });
});

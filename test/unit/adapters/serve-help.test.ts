import { expect } from "chai";
import { SERVE_OPTIONS, SETTINGS, USAGE } from "../../../src/adapters/config/server-config.js";
import { NETEMU_FILTER_CATALOGUE } from "../../../src/domain/filters/catalogue.js";

describe("netemu serve --help", () => {
  it("names every flag the command accepts", () => {
    const missing = Object.keys(SERVE_OPTIONS).filter((flag) => !new RegExp(`--${flag}\\b(?!-)`).test(USAGE));
    expect(missing).to.deep.equal([]);
  });

  it("names the environment variable of every setting", () => {
    const missing = Object.values(SETTINGS).map((s) => s.env).filter((env) => !new RegExp(`\\b${env}\\b`).test(USAGE));
    expect(missing).to.deep.equal([]);
  });

  it("names every impairment --extended-filters adds to available_filters", () => {
    const missing = NETEMU_FILTER_CATALOGUE.map((d) => d.type).filter((kind) => !new RegExp(`\\b${kind}\\b`).test(USAGE));
    expect(missing).to.deep.equal([]);
  });

  it("keeps each line within 140 characters", () => {
    expect(USAGE.split("\n").filter((l) => l.length > 140)).to.deep.equal([]);
  });
});

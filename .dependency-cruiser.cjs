/** The hexagon's dependency rule, checked on the compiled ESM in dist/ (TypeScript 7 has no
 * classic compiler API for dependency-cruiser to parse .ts with; the JS keeps every import). */
module.exports = {
  forbidden: [
    {
      name: "domain-is-pure",
      comment: "src/domain depends on nothing but itself and fp-ts",
      severity: "error",
      from: { path: "^dist/domain/" },
      to: { pathNot: ["^dist/domain/", "node_modules/fp-ts/"] },
    },
    {
      name: "application-depends-inward",
      comment: "use cases and the data plane depend on the domain and their own ports only",
      severity: "error",
      from: { path: "^dist/application/" },
      to: { pathNot: ["^dist/application/", "^dist/domain/", "node_modules/fp-ts/", "node_modules/tsyringe/", "node_modules/reflect-metadata/"] },
    },
    {
      name: "no-circular",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    moduleSystems: ["es6"],
  },
};

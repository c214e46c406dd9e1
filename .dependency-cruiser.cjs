/** The hexagon's dependency rules, checked on the compiled ESM in dist/ (TypeScript 7 has no
 * classic compiler API for dependency-cruiser to parse .ts with; the JS keeps every runtime import,
 * so type-only imports are not seen). */
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
      name: "ethernet-frames-at-the-bottom",
      comment: "frame parsing (domain/ethernet) is below switching and filters: it imports nothing of the domain",
      severity: "error",
      from: { path: "^dist/domain/ethernet/" },
      to: { path: "^dist/domain/", pathNot: "^dist/domain/ethernet/" },
    },
    {
      name: "filters-below-switching",
      comment: "the filters act on frames, not on switches: domain/filters never imports domain/switching",
      severity: "error",
      from: { path: "^dist/domain/filters/" },
      to: { path: "^dist/domain/switching/" },
    },
    {
      name: "pcap-filter-is-a-leaf",
      comment: "the pcap-filter compiler (domain/bpf) stands alone, so netemu/pcap-filter can be used on its own",
      severity: "error",
      from: { path: "^dist/domain/bpf/" },
      to: { pathNot: ["^dist/domain/bpf/", "node_modules/fp-ts/"] },
    },
    {
      name: "application-depends-inward",
      comment: "use cases and the data plane depend on the domain and their own ports only",
      severity: "error",
      from: { path: "^dist/application/", pathNot: "^dist/application/labs/" },
      to: { pathNot: ["^dist/application/", "^dist/domain/", "node_modules/fp-ts/", "node_modules/tsyringe/", "node_modules/reflect-metadata/"] },
    },
    {
      name: "lab-files-are-parsed-without-io",
      comment: "a lab file is parsed, checked and planned in the application (ADR 0084): with yaml and io-ts, which do no I/O, and nothing of the adapters",
      severity: "error",
      from: { path: "^dist/application/labs/" },
      to: { pathNot: ["^dist/application/labs/", "^dist/domain/", "node_modules/fp-ts/", "node_modules/io-ts/", "node_modules/yaml/"] },
    },
    {
      name: "use-cases-reach-the-data-plane-through-its-port",
      comment: "a use case knows the DataPlane port, never its implementation",
      severity: "error",
      from: { path: "^dist/application/use-cases/" },
      to: { path: "^dist/application/dataplane/" },
    },
    {
      name: "adapters-do-not-import-each-other",
      comment: "each adapter (http, persistence, transport, ...) stands on the ports; only the composition roots join them (createNetemu's, and a data-plane worker thread's own, threads/data-plane/data-plane-worker, ADR 0078); adapters/shared holds what several of them say alike (GNS3's JSON layout, the wording of a refusal)",
      severity: "error",
      from: { path: "^dist/adapters/([^/]+)/", pathNot: "^dist/adapters/threads/data-plane/data-plane-worker\\.js$" },
      to: { path: "^dist/adapters/[^/]+/", pathNot: ["^dist/adapters/$1/", "^dist/adapters/shared/", "^dist/adapters/http/"] },
    },
    {
      name: "only-the-cli-is-a-client-of-the-http-routes",
      comment: "the CLI calls the API through its route values (ADR 0080: route-client.ts), so it may import the HTTP adapter's route declarations; no other adapter imports the HTTP adapter",
      severity: "error",
      from: { path: "^dist/adapters/", pathNot: ["^dist/adapters/http/", "^dist/adapters/cli/", "^dist/adapters/composition-root\\.js$"] },
      to: { path: "^dist/adapters/http/" },
    },
    {
      name: "the-cli-never-runs-the-http-server",
      comment: "a client of the routes needs their values, not the server that serves them (Koa app, router, exchange)",
      severity: "error",
      from: { path: "^dist/adapters/cli/" },
      to: { path: "^dist/adapters/http/(app|api-router|http-server|exchange|upgrade-dispatch)\\.js$" },
    },
    {
      name: "shared-adapter-code-is-a-leaf",
      comment: "adapters/shared imports no other adapter, so any adapter may use it",
      severity: "error",
      from: { path: "^dist/adapters/shared/" },
      to: { path: "^dist/adapters/", pathNot: "^dist/adapters/shared/" },
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

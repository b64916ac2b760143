/**
 * The boundary rule of `npm run boundaries` (.dependency-cruiser.cjs) fails when it should: each forbidden import is
 * planted in a scratch tree laid out like this repository, and dependency-cruiser, with this repository's config,
 * must name its rule; the same tree without it passes.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = new URL("../..", import.meta.url).pathname
const scratch = mkdtempSync(join(tmpdir(), "fils-boundaries-"))
symlinkSync(join(root, "node_modules"), join(scratch, "node_modules"))
writeFileSync(join(scratch, "tsconfig.json"), JSON.stringify({
  compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true }
}))
writeFileSync(join(scratch, "package.json"), JSON.stringify({ type: "module" }))
// The repository's rules; node_modules is a link here, so module paths must stay as they look (node_modules/…).
writeFileSync(join(scratch, "rules.cjs"), `const base = require(${JSON.stringify(join(root, ".dependency-cruiser.cjs"))})
module.exports = { ...base, options: { ...base.options, preserveSymlinks: true } }\n`)

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const write = (path: string, text: string) => {
  mkdirSync(join(scratch, dirname(path)), { recursive: true })
  writeFileSync(join(scratch, path), text)
}

/** Runs the repository's rule over the scratch tree; its exit status and output. */
const cruise = () => {
  const r = spawnSync(
    process.execPath,
    [join(root, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs"), "src", "adapters", "--config",
      "rules.cjs"],
    { cwd: scratch, encoding: "utf8" }
  )
  return { status: r.status, output: `${r.stdout}${r.stderr}` }
}

// A clean engine and adapter to start from.
write("src/domain/Money.ts", `export const fils = (n: number) => n\n`)
write("src/ports/Store.ts", `import { Context } from "effect"\nexport class Store extends Context.Tag("Store")<Store, {}>() {}\n`)
write("adapters/http/App.ts", `import * as HttpApp from "@effect/platform/HttpApp"\nexport const app = HttpApp\n`)

describe("npm run boundaries", () => {
  it("passes a tree that keeps the rules", () => {
    const r = cruise()
    expect(r.output).toContain("no dependency violations")
    expect(r.status).toBe(0)
  })

  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["src/domain/Clock.ts", `import { readFileSync } from "node:fs"\nexport const f = readFileSync\n`, "engine-imports-only-effect"],
    ["src/application/Http.ts", `import * as HttpApp from "@effect/platform/HttpApp"\nexport const a = HttpApp\n`, "engine-imports-only-effect"],
    ["src/application/Sql.ts", `import * as SqlClient from "@effect/sql/SqlClient"\nexport const s = SqlClient\n`, "engine-imports-only-effect"],
    ["src/application/Uses.ts", `import { app } from "../../adapters/http/App.js"\nexport const u = app\n`, "engine-imports-only-effect"],
    ["src/domain/Reaches.ts", `import { Store } from "../ports/Store.js"\nexport const r = Store\n`, "domain-is-pure"],
    ["src/application/Whole.ts", `import { Store } from "../ports/Store.js"\nexport const w = Store\n`, "use-cases-name-their-repositories"],
    ["adapters/http/Barrel.ts", `import { HttpApp } from "@effect/platform"\nexport const b = HttpApp\n`, "no-effect-barrels"]
  ]
  for (const [path, text, rule] of cases) {
    it(`refuses ${path}: ${rule}`, () => {
      write(path, text)
      try {
        const r = cruise()
        expect(r.status).not.toBe(0)
        expect(r.output).toContain(rule)
      } finally {
        rmSync(join(scratch, path))
      }
    })
  }
})

describe("the configuration boundary (scripts/config-boundary.mjs)", () => {
  const check = () => {
    const r = spawnSync(process.execPath, [join(root, "scripts", "config-boundary.mjs"), scratch], { encoding: "utf8" })
    return { status: r.status, output: `${r.stdout}${r.stderr}` }
  }

  it("passes a tree whose core reads no configuration", () => {
    const r = check()
    expect(r.output).toContain("configuration read only at the edge")
    expect(r.status).toBe(0)
  })

  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["src/application/Env.ts", `export const port = process.env["PORT"]\n`, "reads process.env"],
    ["src/application/Conf.ts", `import { Config } from "effect"\nexport const c = Config.string("FILS_X")\n`, "reads Effect's Config"],
    ["adapters/http/Env.ts", `export const host = process.env.HOST\n`, "reads process.env"]
  ]
  for (const [path, text, breach] of cases) {
    it(`refuses ${path}: ${breach}`, () => {
      write(path, text)
      try {
        const r = check()
        expect(r.status).toBe(1)
        expect(r.output).toContain(`${path}: ${breach}`)
      } finally {
        rmSync(join(scratch, path))
      }
    })
  }
})

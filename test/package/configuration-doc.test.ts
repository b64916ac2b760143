/**
 * One table of settings: `settings` in adapters/cli/config.ts. docs/configuration.md's table is written from it by
 * `npm run docs:config` (scripts/configuration-doc.ts), so a setting added or changed without its docs fails here, and
 * a variable an adapter reads through `Config` but that is not in `settings` (neither documented nor shown by
 * `fils config`) fails too.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { settings } from "../../adapters/cli/config.js"
import { settingsTable, withSettingsTable } from "../../scripts/configuration-doc.js"

const root = new URL("../..", import.meta.url).pathname
const page = join(root, "docs", "configuration.md")
const scratch = mkdtempSync(join(tmpdir(), "fils-configdoc-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** Variables read by the processes Fils starts from but that are not Fils' own settings. */
const notSettings = new Map([
  ["XDG_CONFIG_HOME", "the desktop's config folder (where `fils listen` keeps its secret), a platform convention"]
])

const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : []
  })

describe("the settings table", () => {
  it("docs/configuration.md's table is the one `npm run docs:config` writes from adapters/cli/config.ts", () => {
    const text = readFileSync(page, "utf8")
    expect(text, "docs/configuration.md is out of date: run `npm run docs:config`").toBe(withSettingsTable(text))
  })

  it("every setting has a default and a meaning, each on one line, and a name of its own", () => {
    for (const s of settings) {
      expect(s.default.trim(), s.name).not.toBe("")
      expect(s.meaning.trim(), s.name).not.toBe("")
      expect(`${s.default}${s.meaning}`, s.name).not.toMatch(/\n/)
    }
    expect(new Set(settings.map((s) => s.name)).size).toBe(settings.length)
  })

  it("every variable the adapters read is a setting", () => {
    const named = new Set(settings.map((s) => s.name))
    // What `Config.string("NAME")` and the like read, and any string that is a whole FILS_ or OTEL_ name.
    const reads = /Config\.\w+\(\s*"([A-Z][A-Z0-9_]*)"|"((?:FILS|OTEL)_[A-Z0-9_]+)"/g
    const read = new Map<string, string>()
    for (const path of sources(join(root, "adapters"))) {
      for (const [, viaConfig, literal] of readFileSync(path, "utf8").matchAll(reads)) {
        read.set((viaConfig ?? literal)!, path.slice(root.length))
      }
    }
    expect(read.size).toBeGreaterThan(20)
    const missing = [...read].filter(([name]) => !named.has(name) && !notSettings.has(name))
    expect(missing, "read but not in adapters/cli/config.ts's settings").toEqual([])
  })
})

describe("scripts/configuration-doc.ts", () => {
  const run = (...args: Array<string>) => {
    const r = spawnSync(process.execPath, ["--import", "tsx", join(root, "scripts", "configuration-doc.ts"), ...args], {
      cwd: root,
      encoding: "utf8"
    })
    return { status: r.status, output: `${r.stdout}${r.stderr}` }
  }

  it("rewrites the table between its markers and leaves the prose alone; --check only reports", () => {
    const text = readFileSync(page, "utf8")
    const copy = join(scratch, "configuration.md")
    // A hand edit to a row, a stale row, and prose around the markers the script must keep as written.
    const edited = text
      .replace("| `FILS_FEE_BPS` |", "| `FILS_FEE_BPS` | a hand-written default |")
      .replace(settingsTable(settings).split("\n").at(-1)!, "| `FILS_GONE` | `1` | A setting that no longer exists. |")
      .replace("# Configuration", "# Configuration\n\nA line of prose added by hand.")
    expect(edited).not.toBe(text)
    writeFileSync(copy, edited)

    const checked = run("--check", copy)
    expect(checked.status).toBe(1)
    expect(checked.output).toContain("npm run docs:config")
    expect(readFileSync(copy, "utf8")).toBe(edited)

    const written = run(copy)
    expect(written.status, written.output).toBe(0)
    expect(readFileSync(copy, "utf8")).toBe(text.replace("# Configuration", "# Configuration\n\nA line of prose added by hand."))
    expect(run("--check", copy).status).toBe(0)
  }, 120_000)

  it("refuses a page without exactly one pair of markers, writing nothing", () => {
    const copy = join(scratch, "unmarked.md")
    writeFileSync(copy, "# Configuration\n\n| variable | default | meaning |\n|---|---|---|\n")
    const r = run(copy)
    expect(r.status).toBe(1)
    expect(r.output).toContain("marker")
    expect(readFileSync(copy, "utf8")).toBe("# Configuration\n\n| variable | default | meaning |\n|---|---|---|\n")
  }, 60_000)
})

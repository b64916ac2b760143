/**
 * `npm ci` on the Node the README names installs without an engine warning: every package in the lock file, dev
 * tools included, accepts the lowest Node version that package.json's `engines` allows.
 */
import { readFileSync } from "node:fs"
import semver from "semver"
import { describe, expect, it } from "vitest"

const root = new URL("../..", import.meta.url).pathname
const read = (file: string) => JSON.parse(readFileSync(root + file, "utf8"))

const manifest = read("package.json") as { engines: { node: string } }
const lock = read("package-lock.json") as {
  packages: Record<string, { engines?: { node?: string } | ReadonlyArray<string>; optional?: boolean }>
}
const lowest = semver.minVersion(manifest.engines.node)

/** The packages whose `engines.node` refuses `version`, as `path (range)`. */
const refusing = (version: string) =>
  Object.entries(lock.packages).flatMap(([path, entry]) => {
    const range = Array.isArray(entry.engines) ? undefined : (entry.engines as { node?: string } | undefined)?.node
    return range !== undefined && !semver.satisfies(version, range) ? [`${path} (${range})`] : []
  })

describe("engines", () => {
  it("names a lowest Node version, and the README names the same one", () => {
    expect(lowest).not.toBeNull()
    const readme = readFileSync(root + "README.md", "utf8")
    expect(readme).toContain(`Node.js ${lowest!.major}.${lowest!.minor}`)
  })

  it("every locked package accepts the lowest Node that engines allows", () => {
    expect(refusing(lowest!.version)).toEqual([])
  })

  it("would name a package that needs a newer Node", () => {
    // The check itself can fail: Node 18 is refused by packages in the lock.
    expect(refusing("18.0.0").length).toBeGreaterThan(0)
  })
})

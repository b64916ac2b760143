/**
 * The `fils` launcher (scripts/bundle-bin.mjs): it runs the bundle beside it through V8's code cache, which the first
 * run writes beside the bundle and later runs take as it is. A cache made for something else (another bundle, another
 * Node, other flags) or damaged is replaced, and a place the cache cannot be written is no reason to fail. Each test
 * runs its own copy of this run's bundled bin, in a folder under the repository (so the externals resolve from its
 * node_modules).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { spawn } from "node:child_process"
import { once } from "node:events"
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { basename, join } from "node:path"
import { freePort, root, serveWith } from "../support/cli.js"

const built = inject("filsBin")
const folder = join(root, ".tmp", `launcher-${process.pid}`)
let copies = 0

/** A fresh copy of the launcher and its bundle, without a cache. */
const copy = async () => {
  const dir = join(folder, String(copies++))
  await mkdir(dir, { recursive: true })
  const launcher = join(dir, basename(built))
  const bundle = launcher.replace(/\.js$/, ".cjs")
  await copyFile(built, launcher)
  await copyFile(built.replace(/\.js$/, ".cjs"), bundle)
  return { dir, launcher, cache: `${bundle}.cache` }
}

const run = async (launcher: string, args: ReadonlyArray<string>, nodeFlags: ReadonlyArray<string> = []) => {
  const child = spawn(process.execPath, [...nodeFlags, launcher, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (chunk) => (stdout += chunk))
  child.stderr.on("data", (chunk) => (stderr += chunk))
  const [code] = await once(child, "exit")
  return { code, stdout, stderr }
}

/** The cache's first line: what it was made for. */
const keyOf = async (cache: string) => {
  const bytes = await readFile(cache)
  return bytes.subarray(0, bytes.indexOf(10)).toString("latin1")
}

/** The file's identity: a rename puts another in its place. */
const identity = async (file: string) => {
  const s = await stat(file)
  return `${s.ino}:${s.mtimeMs}`
}

const version = JSON.parse(await readFile(join(root, "package.json"), "utf8")).version as string

beforeAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

describe("the fils launcher's code cache", () => {
  it("is written by the first run, for this bundle, Node and flags, and taken as it is by the next", async () => {
    const { cache, launcher } = await copy()
    const first = await run(launcher, ["--version"])
    expect(first).toMatchObject({ code: 0, stderr: "" })
    expect(first.stdout.trim()).toBe(version)
    const key = await keyOf(cache)
    const bundle = await stat(cache.replace(/\.cache$/, ""))
    const made = `${bundle.size} ${bundle.mtimeMs} ${process.version} ${process.arch}`
    expect(key).toMatch(/^[0-9a-f]{16} /)
    expect(key.slice(17)).toBe(`${made} ${process.env["NODE_OPTIONS"] ?? ""}`)
    expect((await stat(cache)).size).toBeGreaterThan(100_000)
    const written = await identity(cache)

    // V8 accepted it: had it refused, the launcher would have written a new one.
    const second = await run(launcher, ["--version"])
    expect(second).toMatchObject({ code: 0, stderr: "" })
    expect(second.stdout.trim()).toBe(version)
    expect(await identity(cache)).toBe(written)

    // Other node flags, another cache.
    const flagged = await run(launcher, ["--version"], ["--max-old-space-size=256"])
    expect(flagged).toMatchObject({ code: 0, stderr: "" })
    expect(await keyOf(cache)).toBe(`${key.slice(0, 16)} ${made} --max-old-space-size=256 ${process.env["NODE_OPTIONS"] ?? ""}`)

    // A bundle changed on disk, even to the same length: another cache.
    const bundleFile = cache.replace(/\.cache$/, "")
    const source = await readFile(bundleFile)
    await writeFile(bundleFile, source)
    const rewritten = await run(launcher, ["--version"])
    expect(rewritten).toMatchObject({ code: 0, stderr: "" })
    expect(await keyOf(cache)).not.toBe(key)
    expect((await keyOf(cache)).startsWith(`${key.slice(0, 16)} ${source.length} `)).toBe(true)
  })

  it("replaces a cache made for another bundle, and one damaged past its first line; the command runs either way", async () => {
    const { cache, launcher } = await copy()
    expect((await run(launcher, ["--version"])).code).toBe(0)
    const good = await readFile(cache)
    const newline = good.indexOf(10)

    // The same cache under another bundle's hash: not taken (another bundle's code would run), written anew.
    const foreign = Buffer.concat([Buffer.from("0123456789abcdef"), good.subarray(16)])
    await writeFile(cache, foreign)
    const afterForeign = await run(launcher, ["--version"])
    expect(afterForeign).toMatchObject({ code: 0, stderr: "" })
    expect(afterForeign.stdout.trim()).toBe(version)
    expect(await keyOf(cache)).toBe(good.subarray(0, newline).toString("latin1"))
    expect((await readFile(cache)).equals(foreign)).toBe(false)

    // The right first line over bytes V8 cannot use: V8 refuses them, the launcher writes a good cache.
    await writeFile(cache, Buffer.concat([good.subarray(0, newline + 1), Buffer.alloc(4_096, 7)]))
    const afterDamage = await run(launcher, ["--version"])
    expect(afterDamage).toMatchObject({ code: 0, stderr: "" })
    expect(afterDamage.stdout.trim()).toBe(version)
    expect((await stat(cache)).size).toBeGreaterThan(100_000)
  })

  it("runs without a cache where it cannot write one, and leaves no temporary file", async () => {
    const { cache, dir, launcher } = await copy()
    // A folder where the cache would go: neither read nor replaced by a file.
    await mkdir(cache)
    const result = await run(launcher, ["--version"])
    expect(result).toMatchObject({ code: 0, stderr: "" })
    expect(result.stdout.trim()).toBe(version)
    expect((await stat(cache)).isDirectory()).toBe(true)
    expect((await readdir(dir)).sort()).toEqual([basename(launcher).replace(/\.js$/, ".cjs"), basename(cache), basename(launcher)])
  })

  it("serves on the embedded PostgreSQL from the cache: the bundle's one dynamic import goes through the launcher", async () => {
    const { cache, dir, launcher } = await copy()
    expect((await run(launcher, ["--version"])).code).toBe(0)
    const written = await identity(cache)
    const port = await freePort()
    const served = await serveWith(process.execPath, [launcher, "serve", "--port", String(port)], port, {
      DATABASE_URL: undefined,
      FILS_DATA_DIR: join(dir, "data")
    }, 60_000)
    try {
      expect(served.stdout()).toContain("Fils is running")
      expect((await fetch(`${served.baseUrl}/ready`)).status).toBe(200)
    } finally {
      expect(await served.stop("SIGTERM")).toBe(0)
    }
    expect(served.stderr()).not.toContain("dynamic import")
    expect(await identity(cache)).toBe(written)
  }, 90_000)
})

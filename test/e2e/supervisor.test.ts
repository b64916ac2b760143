/**
 * A supervisor (systemd, a container runtime, a process manager) sends SIGTERM to the pid it started, not to the
 * process group as a terminal's Ctrl-C does. Whether it started `npm start`, `npm run fils -- serve` or
 * `npx fils serve`, the server drains and stops, its embedded PostgreSQL with it: afterwards neither the node server
 * nor the postmaster named in the data folder's `postmaster.pid` runs, and PostgreSQL shut down cleanly (it removes
 * `postmaster.pid` then; a killed one leaves it). Started any of those ways, the server runs with the bin's Node
 * flags and environment (package.json's `config`).
 *
 * `npx fils serve` runs the built bin, installed in a scratch project beside this repository's packages.
 */
import { execFile } from "node:child_process"
import { once } from "node:events"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, root, serveWith, stopOrphanedPostgres } from "../support/cli.js"

const scratch = mkdtempSync(join(tmpdir(), "fils-supervisor-"))
const dataDirs: Array<string> = []
const leftRunning: Array<number> = []

/** A project with `fils` installed: its bundled bin, and the two packages the bin leaves outside the bundle. */
beforeAll(async () => {
  const pkg = join(scratch, "node_modules", "fils")
  mkdirSync(join(pkg, "dist", "bin"), { recursive: true })
  mkdirSync(join(scratch, "node_modules", ".bin"))
  writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "shop", private: true }))
  const { bin } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { bin: { fils: string } }
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "fils", type: "module", bin }))
  await promisify(execFile)(process.execPath, [join(root, "scripts", "bundle-bin.mjs"), join(pkg, bin.fils)], { cwd: root })
  symlinkSync(join("..", "fils", bin.fils), join(scratch, "node_modules", ".bin", "fils"))
  // The packages installed beside it (the bin's externals and peers), as this repository has them.
  for (const dep of readdirSync(join(root, "node_modules"))) {
    if (!dep.startsWith(".")) symlinkSync(join(root, "node_modules", dep), join(scratch, "node_modules", dep))
  }
}, 120_000)

afterAll(async () => {
  for (const pid of leftRunning) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone
    }
  }
  for (const dir of dataDirs) {
    await stopOrphanedPostgres(dir)
    rmSync(dir, { recursive: true, force: true })
  }
  rmSync(scratch, { recursive: true, force: true })
}, 60_000)

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The parent pid of `pid`, from /proc. */
const parentOf = (pid: number): number => Number(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")[1])

const nodeConfig = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  config: { nodeFlags: string; nodeEnv: string }
}).config

const commands = [
  { name: "npm start", command: "npm", args: (port: string) => ["start", "--", "--port", port], cwd: root },
  {
    name: "npm run fils -- serve",
    command: "npm",
    args: (port: string) => ["run", "fils", "--", "serve", "--port", port],
    cwd: root
  },
  { name: "npx fils serve", command: "npx", args: (port: string) => ["--no", "fils", "serve", "--port", port], cwd: scratch }
] as const

describe("SIGTERM to the pid a supervisor started", () => {
  it.each(commands)("$name: the node server and its PostgreSQL stop, cleanly", async ({ args, command, cwd }) => {
    const dataDir = mkdtempSync(join(tmpdir(), "fils-supervisor-data-"))
    dataDirs.push(dataDir)
    const port = await freePort()
    // Without npm's own variables (set when the suite runs under `npm test`): each command is a fresh npm's.
    const npmVariables = Object.keys(process.env).filter((k) => k.toLowerCase().startsWith("npm_"))
    const env = { ...Object.fromEntries(npmVariables.map((k) => [k, undefined])), FILS_DATA_DIR: dataDir, DATABASE_URL: undefined }
    const served = await serveWith(command, args(String(port)), port, env, 120_000, cwd)
    const exited = once(served.child, "exit")
    const postmasterPid = join(dataDir, "pg", "postmaster.pid")
    const postmaster = Number(readFileSync(postmasterPid, "utf8").split("\n")[0])
    // The server started its PostgreSQL: the postmaster's parent is the node server.
    const server = parentOf(postmaster)
    leftRunning.push(server, postmaster)
    const cmdline = readFileSync(`/proc/${server}/cmdline`, "utf8")
    expect(cmdline).toMatch(/node.*\0serve\0/)
    // However started, the server runs with the bin's Node flags and environment (docs/operations.md, "Memory").
    expect(cmdline.split("\0")).toEqual(expect.arrayContaining(nodeConfig.nodeFlags.split(" ")))
    const environment = readFileSync(`/proc/${server}/environ`, "utf8").split("\0")
    expect(environment).toEqual(expect.arrayContaining(nodeConfig.nodeEnv.split(" ")))

    served.child.kill("SIGTERM")
    const [code, signal] = await exited
    for (let i = 0; i < 300 && (isAlive(server) || isAlive(postmaster)); i++) await new Promise((r) => setTimeout(r, 100))
    expect(isAlive(server), "the node server is gone").toBe(false)
    expect(isAlive(postmaster), "the embedded PostgreSQL is gone").toBe(false)
    expect(existsSync(postmasterPid), "PostgreSQL shut down cleanly").toBe(false)
    expect(served.stderr()).not.toMatch(/error/i)
    expect(served.stdout()).not.toMatch(/"level":"(ERROR|FATAL)"/)
    // npm exits as its child did: 0 when it ran node itself (which exited 0); npx runs the bin through a shell,
    // which SIGTERM ends, and npm then ends itself with the same signal.
    expect({ code, signal }).toEqual(command === "npx" ? { code: null, signal: "SIGTERM" } : { code: 0, signal: null })
  }, 180_000)
})

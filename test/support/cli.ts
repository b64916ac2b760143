/** Runs the `fils` command as a real process, the way an operator does. */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"

export const root = fileURLToPath(new URL("../..", import.meta.url))

/**
 * The environment of a spawned command: `env` over the test's own environment, or with `bare` over PATH and HOME only
 * (no inherited FILS_ settings); a variable set to `undefined` is left out.
 */
export const commandEnv = (env: Record<string, string | undefined>, bare = false): Record<string, string> => {
  const merged: Record<string, string> = {}
  const base = bare ? { PATH: process.env.PATH, HOME: process.env.HOME } : process.env
  for (const [k, v] of Object.entries({ ...base, ...env })) if (v !== undefined) merged[k] = v
  return merged
}

/**
 * Node's arguments for `fils <args>`, from any working directory: the command bundled from the sources for this run
 * (`globalSetup.ts`), as it ships.
 */
export const filsArgs = (...args: ReadonlyArray<string>): Array<string> => [inject("filsBin"), ...args]

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface RunOptions {
  /** The working directory (default: the repository). */
  readonly cwd?: string | undefined
  /** Only `env` with PATH and HOME, nothing inherited from the test's environment (default: inherit). */
  readonly bare?: boolean | undefined
  /** Killed after this long (default: never). */
  readonly timeoutMs?: number | undefined
}

/** `fils <args>` to completion. */
export const runFils = async (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined> = {},
  options: RunOptions = {}
): Promise<CliResult> => {
  const child = spawn(process.execPath, filsArgs(...args), {
    cwd: options.cwd ?? root,
    env: commandEnv(env, options.bare),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (chunk) => (stdout += chunk))
  child.stderr.on("data", (chunk) => (stderr += chunk))
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), options.timeoutMs)
  const [code] = await once(child, "exit")
  clearTimeout(timer)
  return { code: code as number | null, stdout, stderr }
}

export const freePort = async (): Promise<number> => {
  const server = createServer()
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  server.close()
  await once(server, "close")
  return port
}

export interface Served {
  readonly child: ChildProcess
  readonly baseUrl: string
  /** Everything printed on stdout so far. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** Sends `signal` and waits for the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/**
 * `fils serve` on a free port; resolves once `/ready` answers 200. From the sources (bundled for the run), or from
 * `bin`, a built `fils` (the packed bin).
 */
export const serveFils = async (
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
  bin?: string
): Promise<Served> => {
  const port = await freePort()
  const serve = ["serve", "--port", String(port)]
  return serveWith(process.execPath, bin === undefined ? filsArgs(...serve) : [bin, ...serve], port, env, timeoutMs)
}

/**
 * `command args` (which must start `fils serve` on `port`), from `cwd` (default: the repository); resolves once
 * `/ready` answers 200 and the server has announced itself.
 */
export const serveWith = async (
  command: string,
  args: ReadonlyArray<string>,
  port: number,
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
  cwd = root
): Promise<Served> => {
  const child = spawn(command, args, {
    cwd,
    env: commandEnv(env),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk) => (stdout += chunk))
  child.stderr!.on("data", (chunk) => (stderr += chunk))
  const baseUrl = `http://127.0.0.1:${port}`
  const exited = once(child, "exit")
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`fils serve exited early (${child.exitCode}):\n${stderr}`)
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`fils serve not ready within ${timeoutMs} ms:\n${stdout}\n${stderr}`)
    }
    const ready = await fetch(`${baseUrl}/ready`).then((r) => r.status === 200, () => false)
    if (ready && stdout.includes("Fils is running")) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    child,
    baseUrl,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode !== null) return child.exitCode
      child.kill(signal)
      const [code] = await exited
      return code as number | null
    }
  }
}

/** Stops a PostgreSQL left running in a data folder (e.g. after `kill -9` of `fils serve`), and waits for it. */
export const stopOrphanedPostgres = async (dataDir: string): Promise<void> => {
  const { readFileSync, existsSync } = await import("node:fs")
  const pidFile = `${dataDir}/pg/postmaster.pid`
  if (!existsSync(pidFile)) return
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0])
  if (!Number.isInteger(pid) || pid <= 0) return
  try {
    process.kill(pid, "SIGINT") // fast shutdown
  } catch {
    return
  }
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0)
    } catch {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Child processes of the benchmark: `fils serve`, `fils <command>`, the baseline, and their memory. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as delay } from "node:timers/promises"

export const root = new URL("..", import.meta.url).pathname

const config = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).config as Record<string, string>

/** The Node flags the bin, `npm start` and `npm run fils` run with: package.json's `config.nodeFlags`. */
export const binNodeFlags: ReadonlyArray<string> = config["nodeFlags"]!.split(/\s+/)

/** And the environment they set (`config.nodeEnv`, `NAME=value` pairs); a process's own `extraEnv` comes after. */
const binNodeEnv: Record<string, string> = Object.fromEntries(
  config["nodeEnv"]!.split(/\s+/).filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)])
)

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** The first 64 kB of a log file (the announcement and any early failure). */
const head = (file: string): string => {
  try {
    const fd = openSync(file, "r")
    const buffer = Buffer.alloc(64 * 1024)
    const n = readSync(fd, buffer, 0, buffer.length, 0)
    closeSync(fd)
    return buffer.subarray(0, n).toString("utf8")
  } catch {
    return ""
  }
}

export interface Running {
  readonly child: ChildProcess
  readonly port: number
  readonly url: string
  readonly output: () => string
  readonly stop: () => Promise<void>
}

const env = (extra: Record<string, string>) => {
  const merged: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) merged[k] = v
  return { ...merged, ...extra }
}

/**
 * Fils as it ships: the `fils` bin of `npm run build`, one bundled file (scripts/bundle-bin.mjs), built by
 * `buildFils` into bench/.build. Without a build (BENCH_TSX=1), or for the baseline, TypeScript through tsx as
 * `npm start` runs it.
 */
const built = join(root, "bench", ".build")
let filsEntry = "adapters/cli/main.ts"

/** Bundles the `fils` bin into bench/.build as `npm run build` does; returns false when it could not. */
export const buildFils = (): boolean => {
  if (process.env["BENCH_TSX"] === "1") return false
  const bin = join(built, "bin", "fils.js")
  const result = spawnSync(process.execPath, [join(root, "scripts", "bundle-bin.mjs"), bin], { cwd: root, encoding: "utf8" })
  if (result.status !== 0 || !existsSync(bin)) {
    process.stderr.write(`[bench] build failed, running through tsx:\n${result.stdout}${result.stderr}\n`)
    return false
  }
  filsEntry = bin
  return true
}

/**
 * `--cpu-prof` when a profile folder is given; tsx for TypeScript entry points; the bin's own flags (run by node
 * directly, it gets them as its first line would give them); then
 * `BENCH_NODE_FLAGS` (space-separated), which come last and so override the bin's, to try a flag without a rebuild.
 */
const nodeArgs = (script: string, args: ReadonlyArray<string>, profile: string | undefined) => [
  ...(profile !== undefined ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []),
  ...(script.endsWith(".ts") ? ["--import", "tsx"] : binNodeFlags),
  ...(process.env["BENCH_NODE_FLAGS"]?.split(" ").filter(Boolean) ?? []),
  script,
  ...args
]

export const start = (
  script: string,
  args: ReadonlyArray<string>,
  port: number,
  extraEnv: Record<string, string>,
  profile?: string
): Running => {
  // Output goes to a file, not a pipe: a pipe the busy benchmark does not drain at once would block the server's
  // (synchronous) log writes and measure the benchmark instead of the server.
  const logFile = join(tmpdir(), `fils-bench-${process.pid}-${port}-${Date.now()}.log`)
  const fd = openSync(logFile, "w")
  const child = spawn(process.execPath, nodeArgs(script, args, profile), {
    cwd: root,
    env: env(extraEnv),
    stdio: ["ignore", fd, fd]
  })
  closeSync(fd)
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => head(logFile),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      const timedOut = await Promise.race([exited.then(() => false), delay(20_000).then(() => true)])
      if (timedOut) {
        child.kill("SIGKILL")
        await exited
      }
      rmSync(logFile, { force: true })
    }
  }
}

/** Polls `GET <url>/ready` until 200; returns the milliseconds it took from `since`. */
export const waitReady = async (running: Running, since: number, timeoutMs = 60_000): Promise<number> => {
  for (;;) {
    if (running.child.exitCode !== null) throw new Error(`server exited early:\n${running.output()}`)
    try {
      const res = await fetch(`${running.url}/ready`)
      await res.arrayBuffer()
      if (res.status === 200) return performance.now() - since
    } catch {
      // not listening yet
    }
    if (performance.now() - since > timeoutMs) throw new Error(`not ready after ${timeoutMs} ms:\n${running.output()}`)
    await delay(10)
  }
}

export const startFils = (port: number, extraEnv: Record<string, string>, profile?: string) =>
  start(filsEntry, ["serve", "--port", String(port)], port, { ...binNodeEnv, ...extraEnv }, profile)

/** Runs `fils <args>` to the end; its stdout, and the wall time. */
export const runFils = async (args: ReadonlyArray<string>, extraEnv: Record<string, string>, profile?: string) => {
  const began = performance.now()
  const child = spawn(process.execPath, nodeArgs(filsEntry, args, profile), {
    cwd: root,
    env: env({ ...binNodeEnv, ...extraEnv }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  let err = ""
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)))
  const millis = performance.now() - began
  if (code !== 0) throw new Error(`fils ${args.join(" ")} failed (${code}):\n${out}\n${err}`)
  return { stdout: out, millis }
}

/** Resident memory of a process, from /proc: now (VmRSS) and the peak so far (VmHWM), in MB. */
export const memory = (pid: number): { readonly rssMb: number; readonly peakMb: number } => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0)
    return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 }
  } catch {
    return { rssMb: 0, peakMb: 0 }
  }
}

/** Waits for `pattern` in the process's output (the test key is printed around the time /ready answers). */
export const waitForOutput = async (running: Running, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> => {
  const began = performance.now()
  for (;;) {
    const match = pattern.exec(running.output())
    if (match !== null) return match
    if (running.child.exitCode !== null || performance.now() - began > timeoutMs) {
      throw new Error(`never printed ${pattern}:\n${running.output()}`)
    }
    await delay(20)
  }
}

/**
 * The CPU time of every PostgreSQL process on this machine (the embedded server, its backends, and those that
 * ended), in ms: with the database on the same cores as Fils, work Fils gives it (a request log line's insert) slows
 * Fils down too. Meaningful on a machine running nothing else, as benchmarks want anyway.
 */
export const databaseCpuMillis = (): number => {
  let total = 0
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      if (!stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).startsWith("postgres")) continue
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      // Its own time, and its ended children's (the postmaster reaps each backend that ends).
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10
    } catch {
      // The process ended meanwhile.
    }
  }
  return total
}

/** CPU time (user + system) a process has used so far, in milliseconds, from /proc/<pid>/stat. */
export const cpuMillis = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // utime and stime are fields 14 and 15 (1-based) of the whole line, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

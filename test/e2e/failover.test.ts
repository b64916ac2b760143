/**
 * Fils on a PostgreSQL high-availability cluster (docs/cluster.md), built from examples/ha by test/support/cluster.ts:
 * etcd, three Patroni nodes with strict synchronous replication, HAProxy following the primary, and in the second run
 * PgBouncer in transaction mode in front of it. Two `fils serve` processes take a bounded load of idempotent API
 * writes and hosted-form payments while the primary's postmaster is killed and whole primary nodes are killed. Then,
 * through the API: every acknowledged request exists exactly once and replays with its key, no answer was a 500 (503
 * is allowed while there is no primary), every payment taken is recorded once, `fils check` and `fils reconcile` are
 * clean, a key revoked right after each failover is refused by both servers within 1 s, and every event reached the
 * webhook receiver. It prints the counts and the measured windows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { join } from "node:path"
import { ensureOutputDir, type LoggedServer, serveFilsLogged } from "../support/browser.js"
import { runFils } from "../support/cli.js"
import { type Cluster, type ClusterNode, missingClusterBinaries, querySql, startCluster } from "../support/cluster.js"
import { acceptedIds, cards, delay, mapLimit, type Receiver, reconcile, startReceiver, waitFor } from "../support/load.js"
import { declineMessage } from "../../src/domain/Payment.js"

type FaultKind = "postmaster" | "node"

/** One HTTP answer the load got. */
interface Answer {
  readonly at: number
  readonly status: number
  readonly what: string
  readonly body: string
}

/** One logical request of the load, retried with its key until acknowledged. */
interface Op {
  readonly kind: "product" | "session" | "payment"
  readonly key: string
  readonly path: string
  readonly body: unknown
  /** The acknowledged (200) answer's body, as text, and the session paid for a payment. */
  acked?: { readonly text: string; readonly json: any }
  sessionId?: string
  paid?: boolean
  /** What went wrong with it, for the failure message. */
  note?: string
  attempts: number
  /** When it was first sent, and when it was acknowledged (the client's whole wait, retries included). */
  startedAt?: number
  ackedAt?: number
}

interface FaultReport {
  readonly kind: FaultKind
  readonly node: string
  readonly newPrimary: string
  readonly killedAt: number
  /** Kill → Patroni's REST API names a (new) primary. */
  readonly patroniMillis: number
  /** Kill → a write commits through HAProxy. */
  readonly writableMillis: number
  /** 503s the load got after this kill and before the next fault, and the last one's distance from the kill. */
  unavailable: number
  lastUnavailableMillis: number
  /** The longest a request begun after this kill (and before the next) waited for its 200, retries included. */
  longestWaitMillis: number
  /** After the failover: how long each server still accepted a revoked key. */
  revokedRefusedMillis: Array<number>
}

const output = ensureOutputDir()
/** Both runs must finish within this; the load itself stops at `loadCap` requests. */
const loadCap = 3_000
const concurrency = 6
const cardOk = cards.visa

const missing = missingClusterBinaries()
if (missing.length > 0 && process.env["CI"] === "true") {
  throw new Error(`the failover test needs ${missing.join(", ")} (.ci/run installs them)`)
}

/** What the running scenario started, stopped at its end (or here, should the test itself fail). */
const toStop: Array<() => Promise<unknown>> = []
const stopAll = async () => {
  for (const stop of toStop.splice(0).reverse()) await stop().catch(() => undefined)
}
/** One cluster for both runs (each on its own database): starting one takes a while on a busy machine. */
let sharedCluster: Cluster | undefined
let clusterMillis = 0
beforeAll(async () => {
  if (missing.length > 0) return
  const started = Date.now()
  sharedCluster = await startCluster({ pgbouncer: true, logDir: join(output, "cluster") })
  clusterMillis = Date.now() - started
}, 180_000)
afterAll(async () => {
  await stopAll()
  await sharedCluster?.stop()
}, 60_000)

/** A request that never hangs and keeps the answer's text and headers; status 0 when no answer came. */
const send = async (url: string, init: RequestInit, timeoutMs = 20_000) => {
  try {
    const res = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) })
    return { status: res.status, text: await res.text(), headers: res.headers }
  } catch (e) {
    return { status: 0, text: String(e), headers: new Headers() }
  }
}

const json = (text: string): any => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const runScenario = async (options: {
  readonly tag: string
  readonly pgbouncer: boolean
  readonly faults: ReadonlyArray<FaultKind>
  /** No fault starts after this many ms of load, so the checks still run within the test's timeout. */
  readonly faultsWithinMs: number
}) => {
  try {
    return await scenario(options)
  } finally {
    await stopAll()
  }
}

const scenario = async (options: Parameters<typeof runScenario>[0]) => {
  const started = Date.now()
  const cluster = sharedCluster
  if (cluster === undefined) throw new Error("the cluster did not start")
  // The cluster is whole again after the previous run's faults.
  await cluster.waitForHealthy(90_000)
  const urls = await cluster.createDatabase(`fils_${options.tag}`)
  const env: Record<string, string | undefined> = {
    DATABASE_URL: options.pgbouncer ? urls.bouncerUrl! : urls.haproxyUrl,
    // LISTEN needs a session of its own, which a transaction-mode pool cannot give: straight to HAProxy.
    FILS_LISTEN_DATABASE_URL: urls.haproxyUrl,
    FILS_DATA_DIR: undefined,
    FILS_PUBLIC_URL: undefined,
    FILS_SIMULATED_LIVE: undefined,
    FILS_KEY_CACHE_TTL: undefined,
    FILS_RATE_LIMIT_PER_MIN: "1000000"
  }
  /**
   * `fils <args>` as an operator runs it: on a 503 (a 2 s connect timeout on a machine this busy, or a failover
   * still settling) they run it again. Anything else fails the test.
   */
  const cli = async (args: ReadonlyArray<string>) => {
    for (let attempt = 1; ; attempt++) {
      const r = await runFils(args, env, { timeoutMs: 60_000 })
      if (r.code === 0) return JSON.parse(r.stdout)
      if (attempt >= 4 || !r.stderr.includes("SERVICE_UNAVAILABLE")) throw new Error(`fils ${args.join(" ")}: ${r.code}\n${r.stderr}`)
      cliRetries++
      await delay(500)
    }
  }
  let cliRetries = 0

  // The first server migrates the new database; the second starts beside the account's creation.
  const servers: Array<LoggedServer> = []
  const serve = async (i: number) => {
    const s = await serveFilsLogged({ env, logFile: join(output, `failover-${options.tag}-${i}.log`), timeoutMs: 120_000 })
    toStop.push(() => s.stop("SIGKILL", 5_000))
    servers[i] = s
  }
  await serve(0)
  const [account] = await Promise.all([cli(["accounts", "create", "--name", `Failover ${options.tag}`]), serve(1)])
  const accountId: string = account.account_id
  const key: string = account.keys.test.secret
  expect(accountId).toEqual(expect.any(String))
  expect(key).toMatch(/^sk_test_/)

  const receiver: Receiver = await startReceiver()
  toStop.push(() => receiver.close())
  const apiOn = (server: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, apiKey = key) =>
    send(`${servers[server % servers.length]!.baseUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  const hook = await apiOn(0, "POST", "/webhooks", { url: receiver.url })
  expect(hook.status, hook.text).toBe(200)
  const product = await apiOn(1, "POST", "/products", { name: "Karak", price: 1_500, currency: "AED" })
  expect(product.status, product.text).toBe(200)
  const productId: string = json(product.text).product_id
  // One key per fault, revoked right after it (issued now: the CLI is slow to start on a busy machine).
  const doomedKeys: Array<{ readonly key_id: string; readonly secret: string }> = []
  for (const _ of options.faults) doomedKeys.push(await cli(["keys", "create", "--account", accountId, "--mode", "test"]))
  for (const k of doomedKeys) expect(k.secret).toMatch(/^sk_test_/)

  const setupMillis = Date.now() - started

  /** The hosted page's refusal of a charge the processor never took (`processing_error`): the customer may try again. */
  const processingError = (said: string) => said.includes(declineMessage("processing_error"))

  // The load ------------------------------------------------------------------------------------------------------
  const answers: Array<Answer> = []
  const ops: Array<Op> = []
  let stopLoad = false
  const retryFor = 40_000

  /** Sends one idempotent POST until it is answered 200 (or retrying is pointless); every answer is recorded. */
  const perform = async (op: Op, first: number) => {
    op.startedAt ??= Date.now()
    const deadline = Date.now() + retryFor
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      op.attempts++
      const r = await apiOn(first + attempt, "POST", op.path, op.body, { "idempotency-key": op.key })
      answers.push({ at: Date.now(), status: r.status, what: `POST ${op.path}`, body: r.text.slice(0, 300) })
      if (r.status === 200) {
        op.acked = { text: r.text, json: json(r.text) }
        op.ackedAt = Date.now()
        return true
      }
      // 503, 409 (the first attempt is still held) and no answer are retried with the same key, as a client would;
      // any other answer is a verdict. Every answer but 200 and 503 fails the run (checked below).
      if (r.status !== 503 && r.status !== 409 && r.status !== 0) return false
      await delay(250)
    }
    return false
  }

  /** Pays the session on its hosted page as a browser would, submitting again after a 503 unless it is paid. */
  const payOnPage = async (op: Op, first: number) => {
    const deadline = Date.now() + retryFor
    const pageUrl = (attempt: number) => `${servers[(first + attempt) % servers.length]!.baseUrl}/checkout/${op.sessionId}`
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const page = await send(pageUrl(attempt), { method: "GET" })
      answers.push({ at: Date.now(), status: page.status, what: "GET /checkout/{id}", body: page.text.slice(0, 300) })
      if (page.status === 503 || page.status === 0) {
        await delay(250)
        continue
      }
      const token = /name="form_token" value="([^"]*)"/.exec(page.text)?.[1]
      if (token === undefined) {
        // No form: paid already (a submission whose answer was lost went through), still being processed (looked at
        // again, as the customer would), or something is wrong.
        if (page.status === 200 && /being processed/.test(page.text)) {
          await delay(500)
          continue
        }
        op.paid = page.status === 200 && /Payment received/.test(page.text)
        op.ackedAt = Date.now()
        return op.paid
      }
      op.attempts++
      const posted = await send(pageUrl(attempt), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          name: "Layla Haddad",
          email: "layla@example.ae",
          phone_number: "+971501234567",
          card_number: cardOk,
          exp_month: "12",
          exp_year: "2040",
          cvc: "123",
          form_token: token
        }).toString()
      })
      // The page's message, not its head, when it is a refusal.
      const said = /<div class="alert"[^>]*>([^<]*)</.exec(posted.text)?.[1] ?? posted.text.slice(0, 300)
      answers.push({ at: Date.now(), status: posted.status, what: "POST /checkout/{id}", body: said })
      if (posted.status === 200) {
        // The success page (no return_url). A charge whose answer a failover lost is "being processed" until the
        // processor is asked about it: the page is looked at again until it says how it ended. Anything else answered
        // 200 is not a payment.
        if (/Payment processing/.test(posted.text)) {
          op.note = "answered \"Payment processing\"; the page did not say how it ended"
          await delay(500)
          continue
        }
        op.paid = /Payment received/.test(posted.text)
        op.ackedAt = Date.now()
        if (!op.paid) op.note = `answered 200 without "Payment received": ${posted.text.replace(/\s+/g, " ").slice(0, 300)}`
        return op.paid
      }
      // A charge whose answer the failover lost, and which the processor says it never took, is refused as a
      // processing error ("please try again"): nothing moved, and the customer submits again.
      if (posted.status === 402 && processingError(said)) {
        await delay(250)
        continue
      }
      if (posted.status !== 503 && posted.status !== 409 && posted.status !== 0) return false
      await delay(250)
    }
    return false
  }

  let nextOp = 0
  const worker = async (w: number) => {
    while (!stopLoad && nextOp < loadCap) {
      const i = nextOp++
      const tag = `${options.tag}-${i}`
      if (i % 3 === 0) {
        const op: Op = { kind: "product", key: `prd-${tag}`, path: "/products", body: { name: `Load ${tag}`, price: 100 + i, currency: "AED" }, attempts: 0 }
        ops.push(op)
        await perform(op, w)
      } else {
        const op: Op = {
          kind: i % 3 === 1 ? "session" : "payment",
          key: `cks-${tag}`,
          path: "/checkout_sessions",
          body: { product_cart: [{ product_id: productId, quantity: 1 + (i % 4) }], metadata: { load: tag } },
          attempts: 0
        }
        ops.push(op)
        if (await perform(op, w)) {
          op.sessionId = op.acked?.json?.session_id
          if (op.kind === "payment") await payOnPage(op, w + 1)
        }
      }
    }
  }
  const loadStarted = Date.now()
  const load = Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)))

  // The faults ----------------------------------------------------------------------------------------------------
  const faults: Array<FaultReport> = []
  try {
    await delay(3_000)
    for (const [f, kind] of options.faults.entries()) {
      if (stopLoad || nextOp >= loadCap || Date.now() - loadStarted > options.faultsWithinMs) break
      // A key both servers have just used (so it sits in their caches), to be revoked once the new primary is up.
      const issued = doomedKeys[f]!
      for (let s = 0; s < servers.length; s++) {
        const r = await apiOn(s, "GET", "/account", undefined, {}, issued.secret)
        expect(r.status, r.text).toBe(200)
      }
      const old = await cluster.primary()
      expect(old, "a primary before the fault").toBeDefined()
      const killedAt = Date.now()
      if (kind === "postmaster") cluster.killPostmaster(old!)
      else cluster.killNode(old!)
      const up = await cluster.waitForWritablePrimary({
        accept: (n: ClusterNode) => kind === "postmaster" || n.name !== old!.name,
        timeoutMs: 60_000
      })
      // The lost node comes back (as a replica) while the revocation is checked.
      if (kind === "node") cluster.startNode(old!)
      // Revoked right after the failover: both servers must refuse it within 1 s, whatever their LISTEN went through.
      await cli(["keys", "revoke", issued.key_id])
      const revokedAt = Date.now()
      const refusedMillis = await Promise.all(servers.map(async (_, s) => {
        for (;;) {
          const r = await apiOn(s, "GET", "/account", undefined, {}, issued.secret)
          if (r.status === 401) return Date.now() - revokedAt
          // Past the cache's own TTL (5 s): a server that still accepts it has not heard of the revocation at all.
          if (Date.now() - revokedAt > 6_000) return Infinity
          await delay(50)
        }
      }))
      faults.push({
        kind,
        node: old!.name,
        newPrimary: up.node.name,
        patroniMillis: up.patroniMillis,
        killedAt,
        writableMillis: up.millis,
        unavailable: 0,
        lastUnavailableMillis: 0,
        longestWaitMillis: 0,
        revokedRefusedMillis: refusedMillis
      })
      // Strict synchronous mode needs a standby: the next fault waits for the cluster to be whole again.
      await cluster.waitForHealthy(90_000)
      await delay(1_000)
    }
  } finally {
    stopLoad = true
    await load
  }
  const loadEnded = Date.now()

  // Per fault: the 503s answered between its kill and the next one.
  const kills = faults.map((f) => f.killedAt)
  faults.forEach((f, i) => {
    const from = kills[i]!
    const to = kills[i + 1] ?? loadEnded
    const window = answers.filter((a) => a.status === 503 && a.at >= from && a.at < to)
    f.unavailable = window.length
    f.lastUnavailableMillis = window.length === 0 ? 0 : Math.max(...window.map((a) => a.at)) - from
    const begun = ops.filter((o) => o.startedAt !== undefined && o.ackedAt !== undefined && o.startedAt >= from && o.startedAt < to)
    f.longestWaitMillis = Math.max(0, ...begun.map((o) => o.ackedAt! - o.startedAt!))
  })

  // Checks --------------------------------------------------------------------------------------------------------
  const byStatus = new Map<number, number>()
  for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1)
  const report = {
    run: options.tag,
    cluster_start_ms: clusterMillis,
    run_setup_ms: setupMillis,
    cli_retries: 0,
    requests: answers.length,
    logical: ops.length,
    by_status: Object.fromEntries(byStatus),
    faults: faults.map((f) => ({
      kind: f.kind,
      killed: f.node,
      new_primary: f.newPrimary,
      patroni_ms: f.patroniMillis,
      writable_ms: f.writableMillis,
      "503s": f.unavailable,
      last_503_ms: f.lastUnavailableMillis,
      longest_wait_ms: f.longestWaitMillis,
      revoked_key_refused_ms: f.revokedRefusedMillis
    })),
    retry_later_409s: 0,
    replays_verified: 0,
    events: 0,
    duplicate_deliveries: 0
  }
  const failures: Array<string> = []
  const softExpect = (ok: boolean, what: string) => {
    if (!ok) failures.push(what)
  }

  softExpect(faults.length === options.faults.length, `ran ${faults.length} of ${options.faults.length} faults (load cap reached first?)`)
  // No 500, no other status: 503 (no primary yet) is the only failure allowed, besides the documented "retry later"
  // answers of a retry that meets its first attempt still held: 409 IDEMPOTENCY_KEY_IN_USE, and the checkout page's
  // 409 "already being processed" for a payment reserved less than a few seconds before (the processor is asked about
  // it after that). Every request must still be answered in the end.
  const inUse = answers.filter((a) =>
    (a.status === 409 && (a.body.includes("IDEMPOTENCY_KEY_IN_USE") || a.body.includes("already being processed"))) ||
    (a.status === 402 && a.what === "POST /checkout/{id}" && processingError(a.body))
  )
  report.retry_later_409s = inUse.length
  const bad = answers.filter((a) => a.status !== 200 && a.status !== 503 && !inUse.includes(a))
  softExpect(bad.length === 0, `answers other than 200/503: ${JSON.stringify(bad.slice(0, 8))}`)
  const unacked = ops.filter((o) => o.acked === undefined || (o.kind === "payment" && o.paid !== true))
  softExpect(unacked.length === 0, `${unacked.length} requests never acknowledged within ${retryFor} ms: ` +
    JSON.stringify(unacked.slice(0, 5).map((o) => ({ kind: o.kind, key: o.key, attempts: o.attempts, note: o.note }))))
  for (const f of faults) {
    softExpect(f.revokedRefusedMillis.every((ms) => ms <= 1_000),
      `a key revoked after the ${f.kind} failover was accepted for ${JSON.stringify(f.revokedRefusedMillis)} ms`)
  }

  // Everything the load was told exists, exactly once: products by their unique names, sessions by their tag.
  const products: Array<any> = []
  for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
    const page = await apiOn(0, "GET", `/products?limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
    expect(page.status, page.text).toBe(200)
    const body = json(page.text)
    products.push(...body.items)
    cursor = body.has_more ? body.next_cursor : null
  }
  const named = new Map<string, Array<string>>()
  for (const p of products) named.set(p.name, [...(named.get(p.name) ?? []), p.product_id])
  const productOps = ops.filter((o) => o.kind === "product")
  for (const o of productOps) {
    const ids = named.get((o.body as { name: string }).name) ?? []
    if (o.acked !== undefined) softExpect(ids.length === 1 && ids[0] === o.acked.json.product_id, `product ${o.key}: ${JSON.stringify(ids)}`)
    else softExpect(ids.length <= 1, `product ${o.key} made ${ids.length} times`)
  }
  const sessionRows = await clusterRows(urls.haproxyUrl, `SELECT metadata->>'load' AS tag, array_agg(session_id) AS ids
    FROM checkout_sessions WHERE metadata ? 'load' GROUP BY 1`)
  const sessionsByTag = new Map(sessionRows.map((r) => [r.tag as string, r.ids as Array<string>]))
  for (const o of ops.filter((o) => o.kind !== "product")) {
    const ids = sessionsByTag.get((o.body as { metadata: { load: string } }).metadata.load) ?? []
    if (o.acked !== undefined) softExpect(ids.length === 1 && ids[0] === o.sessionId, `session ${o.key}: ${JSON.stringify(ids)}`)
    else softExpect(ids.length <= 1, `session ${o.key} made ${ids.length} times`)
  }
  await mapLimit(ops.filter((o) => o.sessionId !== undefined), 4, async (o, i) => {
    const got = await apiOn(i, "GET", `/checkout_sessions/${o.sessionId}`)
    softExpect(got.status === 200, `GET session ${o.sessionId}: ${got.status}`)
    const payments = await apiOn(i, "GET", `/payments?checkout_session_id=${o.sessionId}&limit=100`)
    const succeeded = (json(payments.text)?.items ?? []).filter((p: any) => p.status === "succeeded")
    if (o.kind === "payment" && o.paid === true) {
      softExpect(succeeded.length === 1 && json(got.text)?.status === "complete",
        `paid session ${o.sessionId}: ${succeeded.length} succeeded payments, status ${json(got.text)?.status}`)
    } else {
      softExpect(succeeded.length <= (o.kind === "payment" ? 1 : 0), `session ${o.sessionId}: ${succeeded.length} succeeded payments`)
    }
  })

  // Each acknowledged request, sent again with its key (to the other server), replays the first answer.
  await mapLimit(ops.filter((o) => o.acked !== undefined), 6, async (o, i) => {
    const again = await apiOn(i + 1, "POST", o.path, o.body, { "idempotency-key": o.key })
    const same = again.status === 200 && again.headers.get("idempotent-replayed") === "true" &&
      JSON.stringify(json(again.text)) === JSON.stringify(o.acked!.json)
    softExpect(same, `replay of ${o.key}: ${again.status} replayed=${again.headers.get("idempotent-replayed")} ` +
      `${again.text.slice(0, 200)} vs ${o.acked!.text.slice(0, 200)}`)
    if (same) report.replays_verified++
  })

  // Every event of the account reached the receiver.
  const events: Array<string> = []
  for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
    const page = await apiOn(0, "GET", `/events?limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
    expect(page.status, page.text).toBe(200)
    const body = json(page.text)
    events.push(...body.items.map((e: any) => e.event_id as string))
    cursor = body.has_more ? body.next_cursor : null
  }
  report.events = events.length
  softExpect(events.length >= ops.filter((o) => o.paid === true).length, `${events.length} events for the paid sessions`)
  try {
    await waitFor("every event delivered", () => events.every((id) => acceptedIds(receiver).has(id)), 60_000,
      () => ({ events: events.length, delivered: acceptedIds(receiver).size }))
  } catch (e) {
    softExpect(false, String(e).slice(0, 500))
  }
  report.duplicate_deliveries = [...acceptedIds(receiver).values()].filter((n) => n > 1).length

  report.cli_retries = cliRetries
  const checked = await runFils(["check"], env, { timeoutMs: 90_000 })
  softExpect(checked.code === 0 && json(checked.stdout)?.ok === true, `fils check: ${checked.code} ${checked.stdout.slice(0, 1_000)} ${checked.stderr.slice(0, 500)}`)
  const reconciled = await reconcile(env)
  softExpect(reconciled.code === 0 && reconciled.report?.ok === true,
    `fils reconcile: ${reconciled.code} ${JSON.stringify(reconciled.report).slice(0, 1_000)} ${reconciled.stderr.slice(0, 500)}`)

  const logs = servers.map((s) => s.stdout() + s.stderr())
  console.info(`cluster run ${options.tag}: ${JSON.stringify(report, null, 1)}\nfailures: ${failures.length}\n${failures.slice(0, 30).join("\n")}`)
  if (failures.length > 0) {
    console.info(`server log tails:\n${logs.map((l) => l.split("\n").slice(-15).join("\n")).join("\n---\n")}`)
  }
  expect(failures).toEqual([])
  return report
}

/** Rows read through HAProxy (the database's own view, for what the API cannot list). */
const clusterRows = (url: string, text: string) => querySql(url, text, 10_000)

describe.skipIf(missing.length > 0)("fils serve on a Patroni cluster", () => {
  it("through HAProxy: loses nothing acknowledged across postmaster crashes and node losses", async () => {
    await runScenario({ tag: "haproxy", pgbouncer: false, faults: ["postmaster", "node", "postmaster", "node"], faultsWithinMs: 150_000 })
  }, 300_000)

  it("through PgBouncer in transaction mode (LISTEN straight to HAProxy): the same", async () => {
    await runScenario({ tag: "pgbouncer", pgbouncer: true, faults: ["postmaster", "node"], faultsWithinMs: 70_000 })
  }, 200_000)
})

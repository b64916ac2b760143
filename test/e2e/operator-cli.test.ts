/**
 * Operator commands against a running `fils serve` (docs/decisions.md §5, §6, §8, §9): one server on a fresh database of
 * the suite's PostgreSQL (`DATABASE_URL`), the operator commands run as real processes on the same database, and
 * what they did checked through the API (and, for the scheduler, the stored rows).
 *
 *  - `fils refunds create PAYMENT_ID [--amount FILS]`: a partial refund, then the rest; `refund.succeeded` events
 *    with each refund's amount and the running total; refusals print `{ code, message }` on stderr and change nothing.
 *  - `fils migrate` on a database already migrated (by the running server): a no-op that exits 0.
 *  - `fils accounts update --name --support-email`: what `GET /account` shows; a bad e-mail is refused.
 *  - Session expiry by the server's own billing worker, with no CLI call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliResult, runFils, type Served } from "../support/cli.js"
import { api, cards, ok, payThroughForm, type TestDatabase, waitFor } from "../support/load.js"
import { serveOnFreshDatabase } from "../support/operator.js"

let db: TestDatabase | undefined
let served: Served | undefined
let env: Record<string, string | undefined> = {}

beforeAll(async () => {
  ;({ db, env, served } = await serveOnFreshDatabase())
}, 90_000)

afterAll(async () => {
  await served?.stop("SIGTERM")
  await db?.close()
}, 60_000)

const base = () => served!.baseUrl

/** The last line of stderr as the `{ code, message }` JSON every refused operator command prints. */
const errorOf = (result: CliResult) => JSON.parse(result.stderr.trim().split("\n").pop()!)

/** A refused command: exit 1, nothing on stdout, `{ code, message }` (exactly those two fields) on stderr. */
const expectRefused = (result: CliResult, code: string) => {
  expect(result.code, result.stderr).toBe(1)
  expect(result.stdout).toBe("")
  expect(errorOf(result)).toStrictEqual({ code, message: expect.any(String) })
  return errorOf(result) as { code: string; message: string }
}

describe("operator commands against fils serve on one database", () => {
  let accountId = ""
  let key = ""
  let product: any

  it("an account made with the CLI is served by the running server", async () => {
    const created = await runFils(["accounts", "create", "--name", "Souq Dates"], env)
    expect(created.code, created.stderr).toBe(0)
    const account = JSON.parse(created.stdout)
    accountId = account.account_id
    key = account.keys.test.secret
    expect(await ok(base(), key, "GET", "/account")).toMatchObject({
      object: "account",
      business_name: "Souq Dates",
      support_email: null,
      livemode: false
    })
    product = await ok(base(), key, "POST", "/products", { name: "Medjool dates", price: 5_000, currency: "AED" })
  }, 60_000)

  describe("fils refunds create", () => {
    let paymentId = ""
    let failedPaymentId = ""
    /** The refund.succeeded events, oldest first. */
    const refundEvents = async () =>
      ((await ok(base(), key, "GET", "/events?type=refund.succeeded&limit=100")).items as Array<any>).slice().reverse()
    const allEvents = async () => (await ok(base(), key, "GET", "/events?limit=100")).items as Array<any>
    const paymentNow = (id: string) => ok(base(), key, "GET", `/payments/${id}`)

    /** Runs a refusing refund command and checks that neither payment nor any event changed. */
    const refusedWithoutChange = async (args: ReadonlyArray<string>, code: string, watched: string) => {
      const paymentBefore = await paymentNow(watched)
      const eventsBefore = await allEvents()
      const result = await runFils(["refunds", "create", ...args], env)
      const error = expectRefused(result, code)
      expect(await paymentNow(watched)).toStrictEqual(paymentBefore)
      expect(await allEvents()).toStrictEqual(eventsBefore)
      return error
    }

    it("a checkout paid on the hosted page (4242) and one declined (0002) give a succeeded and a failed payment", async () => {
      const paid = await payThroughForm(base(), key, product.product_id, cards.visa)
      expect(paid.status).toBe(200)
      const session = await ok(base(), key, "GET", `/checkout_sessions/${paid.sessionId}`)
      expect(session.status).toBe("complete")
      paymentId = session.payment_id
      expect(await paymentNow(paymentId)).toMatchObject({
        status: "succeeded",
        total_amount: 5_000,
        refunded_amount: 0,
        // round(5000 × 290 / 10000) + 100
        fee_amount: 245,
        net_amount: 4_755
      })

      const declined = await payThroughForm(base(), key, product.product_id, cards.declined)
      expect(declined.status).toBe(402)
      const payments = (await ok(base(), key, "GET", "/payments?limit=100")).items as Array<any>
      const failed = payments.filter((p) => p.checkout_session_id === declined.sessionId)
      expect(failed).toHaveLength(1)
      expect(failed[0]).toMatchObject({ status: "failed", refunded_amount: 0 })
      failedPaymentId = failed[0].payment_id
      expect(await refundEvents()).toEqual([])
    }, 60_000)

    it("--amount refunds part: JSON on stdout, the payment partially_refunded, one refund.succeeded", async () => {
      const result = await runFils(["refunds", "create", paymentId, "--amount", "2000"], env)
      expect(result.code, result.stderr).toBe(0)
      const printed = JSON.parse(result.stdout)
      expect(printed).toMatchObject({
        object: "payment",
        payment_id: paymentId,
        status: "partially_refunded",
        total_amount: 5_000,
        refunded_amount: 2_000,
        fee_amount: 245,
        net_amount: 2_755,
        refund_amount: 2_000
      })
      // The refund, made at the processor and confirmed, beside the payment as refund.succeeded carries it.
      const { refund, ...data } = printed
      expect(refund).toMatchObject({ status: "succeeded", amount: 2_000 })
      expect(refund.refund_id).toMatch(/^ref_[0-9a-f]{32}$/)
      const { refund_amount: _, ...payment } = data
      expect(await paymentNow(paymentId)).toStrictEqual(payment)

      const events = await refundEvents()
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({ type: "refund.succeeded", livemode: false })
      expect(events[0].data).toStrictEqual(data)
    }, 60_000)

    it("refusing more than remains changes nothing", async () => {
      const error = await refusedWithoutChange([paymentId, "--amount", "3001"], "INVALID_REQUEST", paymentId)
      expect(error.message).toContain("3000")
    }, 60_000)

    it("refuses an unknown --reason, a --note without one, and a note the e-invoice cannot carry, changing nothing", async () => {
      const unknown = await refusedWithoutChange([paymentId, "--reason", "changed_mind"], "INVALID_REQUEST", paymentId)
      expect(unknown.message).toContain("requested_by_customer, duplicate, fraudulent")
      const alone = await refusedWithoutChange([paymentId, "--note", "wrong size"], "INVALID_REQUEST", paymentId)
      expect(alone.message).toContain("--note needs --reason")
      const control = await refusedWithoutChange([paymentId, "--reason", "duplicate", "--note", "wrong\u000Bsize"], "INVALID_REQUEST", paymentId)
      expect(control.message).toContain("--note must not contain control characters such as a vertical tab")
    }, 60_000)

    it("without --amount it refunds the rest: refunded, and a second refund.succeeded with the running total", async () => {
      const result = await runFils(["refunds", "create", paymentId, "--reason", "duplicate", "--note", "charged twice"], env)
      expect(result.code, result.stderr).toBe(0)
      const printed = JSON.parse(result.stdout)
      expect(printed).toMatchObject({
        payment_id: paymentId,
        status: "refunded",
        refunded_amount: 5_000,
        // Fees are not returned (docs/decisions.md §5).
        net_amount: -245,
        refund_amount: 3_000
      })
      const { refund, ...data } = printed
      expect(refund).toMatchObject({ status: "succeeded", amount: 3_000, reason: "duplicate", note: "charged twice" })
      const { refund_amount: _, ...payment } = data
      expect(await paymentNow(paymentId)).toStrictEqual(payment)

      const events = await refundEvents()
      expect(events.map((e) => [e.data.payment_id, e.data.refund_amount, e.data.refunded_amount, e.data.status]))
        .toEqual([
          [paymentId, 2_000, 2_000, "partially_refunded"],
          [paymentId, 3_000, 5_000, "refunded"]
        ])
      expect(events[1].data).toStrictEqual(data)
    }, 60_000)

    it("refuses the fully refunded payment (nothing left), changing nothing", async () => {
      const error = await refusedWithoutChange([paymentId], "INVALID_REQUEST", paymentId)
      expect(error.message).toContain("nothing left")
    }, 60_000)

    it("refuses the failed payment (INVALID_STATE), changing nothing", async () => {
      const error = await refusedWithoutChange([failedPaymentId], "INVALID_STATE", failedPaymentId)
      expect(error.message).toContain("failed")
    }, 60_000)

    it("refuses an unknown payment id (NOT_FOUND), changing nothing", async () => {
      const unknown = "pay_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f"
      const error = await refusedWithoutChange([unknown, "--amount", "100"], "NOT_FOUND", paymentId)
      expect(error.message).toContain(unknown)
    }, 60_000)

    it("refuses a malformed payment id, changing nothing", async () => {
      const error = await refusedWithoutChange(["pay_nope"], "INVALID_REQUEST", paymentId)
      expect(error.message).toContain("pay_nope")
    }, 60_000)

    /** A second paid payment, untouched by refunds so far. */
    let fresh = ""

    it("refuses a zero amount on a succeeded payment, changing nothing", async () => {
      const paid = await payThroughForm(base(), key, product.product_id, cards.visa)
      expect(paid.status).toBe(200)
      fresh = (await ok(base(), key, "GET", `/checkout_sessions/${paid.sessionId}`)).payment_id as string
      const error = await refusedWithoutChange([fresh, "--amount", "0"], "INVALID_REQUEST", fresh)
      expect(error.message).toContain("from 1 to 5000")
    }, 60_000)

    /** `refunds create <succeeded payment> --amount abc`, kept for the JSON check below. */
    let malformed: CliResult | undefined

    it("refuses a non-integer --amount with a non-zero exit, changing nothing", async () => {
      expect(fresh).not.toBe("")
      const before = await paymentNow(fresh)
      const eventsBefore = await allEvents()
      // A value @effect/cli cannot read as an integer never reaches the refund.
      malformed = await runFils(["refunds", "create", fresh, "--amount", "abc"], env)
      expect(malformed.code).not.toBe(0)
      expect(malformed.stdout).toBe("")
      expect(malformed.stderr).toContain("abc")
      expect(await paymentNow(fresh)).toStrictEqual(before)
      expect(await allEvents()).toStrictEqual(eventsBefore)
    }, 60_000)

    it("a malformed --amount is reported as { code, message } JSON on stderr", () => {
      expect(malformed).toBeDefined()
      expectRefused(malformed!, "INVALID_REQUEST")
    })
  })

  describe("fils migrate and fils accounts update", () => {
    it("fils migrate on the migrated database the server runs on exits 0 and applies nothing", async () => {
      const before = await db!.sql("SELECT migration_id, name, created_at FROM effect_sql_migrations ORDER BY migration_id")
      expect(before.length).toBeGreaterThan(0)
      const result = await runFils(["migrate"], env)
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toStrictEqual({ migrated: true })
      expect(await db!.sql("SELECT migration_id, name, created_at FROM effect_sql_migrations ORDER BY migration_id"))
        .toStrictEqual(before)
      expect((await fetch(`${base()}/ready`)).status).toBe(200)
      expect(await ok(base(), key, "GET", "/account")).toMatchObject({ business_name: "Souq Dates" })
    }, 60_000)

    it("--name and --support-email change what GET /account shows", async () => {
      const result = await runFils(
        ["accounts", "update", "--account", accountId, "--name", "Souq Dates & Spices", "--support-email", "help@souq.ae"],
        env
      )
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toStrictEqual({
        account_id: accountId,
        business_name: "Souq Dates & Spices",
        support_email: "help@souq.ae",
        live_payments_enabled: false
      })
      expect(await ok(base(), key, "GET", "/account")).toMatchObject({
        business_name: "Souq Dates & Spices",
        support_email: "help@souq.ae",
        livemode: false
      })
    }, 60_000)

    it("a bad e-mail is refused with JSON on stderr, and the account keeps its name and e-mail", async () => {
      const before = await ok(base(), key, "GET", "/account")
      const result = await runFils(
        ["accounts", "update", "--account", accountId, "--name", "Renamed", "--support-email", "not an email"],
        env
      )
      const error = expectRefused(result, "INVALID_REQUEST")
      expect(error.message).toContain("e-mail")
      expect(await ok(base(), key, "GET", "/account")).toStrictEqual(before)
    }, 60_000)
  })

  describe("session expiry by the server's own scheduler", () => {
    it("an open session made due in the database is stored as expired within seconds, with no CLI call", async () => {
      const due = await ok(base(), key, "POST", "/checkout_sessions", { product_cart: [{ product_id: product.product_id }] })
      const notDue = await ok(base(), key, "POST", "/checkout_sessions", { product_cart: [{ product_id: product.product_id }] })
      const statusOf = async (id: string) =>
        (await db!.sql<{ status: string }>(`SELECT status FROM checkout_sessions WHERE session_id = '${id}'`))[0]?.status
      expect(await statusOf(due.session_id)).toBe("open")

      // 25 hours old, due an hour ago (the table requires expires_at > created_at).
      await db!.sql(`UPDATE checkout_sessions
        SET created_at = now() - interval '25 hours', expires_at = now() - interval '1 hour'
        WHERE session_id = '${due.session_id}'`)
      await waitFor("the billing worker to expire the session", async () => (await statusOf(due.session_id)) === "expired", 10_000,
        async () => db!.sql(`SELECT session_id, status, expires_at FROM checkout_sessions`))
      expect(await statusOf(notDue.session_id)).toBe("open")

      expect(await ok(base(), key, "GET", `/checkout_sessions/${due.session_id}`)).toMatchObject({
        status: "expired",
        payment_id: null
      })
      expect((await fetch(`${base()}/checkout/${due.session_id}`)).status).toBe(410)
      expect((await ok(base(), key, "GET", `/checkout_sessions/${notDue.session_id}`)).status).toBe("open")
    }, 60_000)
  })

  describe("a lost first banner: fils accounts list and fils users sign-in-link", () => {
    /** A form POST as the dashboard's own page sends it; the status and the session cookie it set, if any. */
    const post = async (path: string, form: Record<string, string>) => {
      const res = await fetch(new URL(path, base()), {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: base() },
        body: new URLSearchParams(form).toString()
      })
      await res.arrayBuffer()
      return { status: res.status, cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]! }
    }
    const signIn = (password: string) => post("/dashboard/login", { email: "owner@fils.local", password })

    it("the account id is listed, the owner gets a new one-time link, and the old password works until the new one is set", async () => {
      const banner = served!.stdout()
      const defaultId = /default account (acct_[0-9a-f]{32})/.exec(banner)![1]!
      const firstLink = new URL(/Sign in\s+(http\S+)/.exec(banner)![1]!).pathname
      expect((await post(firstLink, { password: "the first password" })).status).toBe(303)

      const listed = await runFils(["accounts", "list"], env)
      expect(listed.code, listed.stderr).toBe(0)
      const accounts = JSON.parse(listed.stdout) as Array<any>
      expect(accounts[0]).toMatchObject({ account_id: defaultId, business_name: "Fils Demo Store", live_payments_enabled: false })
      expect(accounts.map((a) => a.account_id)).toContain(accountId)
      // GET /account names the id too.
      expect((await ok(base(), key, "GET", "/account")).account_id).toBe(accountId)

      expect(errorOf(await runFils(["users", "create", "--account", defaultId, "--email", "owner@fils.local", "--role", "owner"], env)).message)
        .toContain("already on this account's team")
      const made = await runFils(["users", "sign-in-link", "--email", "Owner@fils.local"], env)
      expect(made.code, made.stderr).toBe(0)
      const link = JSON.parse(made.stdout)
      expect(link).toMatchObject({ account_id: defaultId, email: "owner@fils.local", role: "owner" })
      const expires = Date.parse(link.sign_in_url_expires_at) - Date.now()
      expect(expires).toBeGreaterThan(23.9 * 3600_000)
      expect(expires).toBeLessThanOrEqual(24 * 3600_000)
      const path = new URL(link.sign_in_url).pathname
      expect(path).not.toBe(firstLink)
      // Without FILS_PUBLIC_URL the link is on the server FILS_PORT names, as `fils serve` would listen.
      const port = new URL(base()).port
      const onPort = await runFils(["users", "sign-in-link", "--email", "owner@fils.local"], { ...env, FILS_PORT: port })
      expect(onPort.code, onPort.stderr).toBe(0)
      expect(new URL(JSON.parse(onPort.stdout).sign_in_url).origin).toBe(new URL(base()).origin)

      // Until the link is used, nothing changed.
      const before = await signIn("the first password")
      expect(before.status).toBe(303)
      expect((await post(path, { password: "the second password" })).status).toBe(303)
      expect((await signIn("the first password")).status).toBe(401)
      expect((await signIn("the second password")).status).toBe(303)
      expect((await fetch(new URL(path, base()), { redirect: "manual" })).status, "the link works once").toBe(410)
      expect((await post(path, { password: "a third password!" })).status).toBe(410)

      expectRefused(await runFils(["users", "sign-in-link", "--email", "nobody@fils.local"], env), "NOT_FOUND")
    }, 180_000)
  })

  it("the server is still up and stops cleanly on SIGTERM", async () => {
    expect((await api(base(), key, "GET", "/account")).status).toBe(200)
    expect(await served!.stop("SIGTERM")).toBe(0)
    served = undefined
  }, 60_000)
})

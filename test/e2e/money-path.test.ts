/**
 * The money path on `fils serve`: the fault cards paid through the hosted form over HTTP, refunds with
 * `fils refunds create`, renewals with `fils billing run --at`, and `fils reconcile` afterwards.
 *
 *   - 1000: the charge is taken and its answer lost: one succeeded payment, found by lookup, one charge;
 *   - 1018: the processor is unreachable and takes nothing: a failed payment (processing_error); the session stays
 *     open and a good card then pays it;
 *   - 5126: refunds refused by the processor: REFUND_REFUSED, nothing changed;
 *   - 1034: the first refund's answer is lost after the money went back: it ends once, succeeded;
 *   - a subscription on 1000 renews once, its renewal's lost answer found by lookup;
 *   - `fils reconcile` finds nothing, then finds what a planted error breaks (exit 2), by kind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { ok, postCheckoutForm, reconcile, type TestDatabase, testDatabase } from "../support/load.js"

const cards = {
  visa: "4242424242424242",
  answerLost: "4000000000001000",
  unreachable: "4000000000001018",
  refundsRefused: "4000000000005126",
  firstRefundAnswerLost: "4000000000001034"
}

let db: TestDatabase
let server: Served
let env: Record<string, string | undefined>
let key = ""

beforeAll(async () => {
  db = await testDatabase()
  env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_SIMULATED_LIVE: undefined }
  server = await serveFils(env, 60_000)
  key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!
}, 90_000)

afterAll(async () => {
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

const get = (path: string) => ok(server.baseUrl, key, "GET", path)

/** Posts the hosted page's form of `sessionId` with `card`, as a browser without JavaScript would. */
const payForm = (sessionId: string, card: string) => postCheckoutForm(server.baseUrl, sessionId, { card_number: card })

const sessionFor = async (productId: string) =>
  (await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: productId }] })).session_id as string
const paymentsOf = async (sessionId: string) =>
  (await get(`/payments?checkout_session_id=${sessionId}`)).items as Array<any>
const simCharges = (reference: string) =>
  db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM fils_sim.charges WHERE reference = '${reference}' AND outcome <> 'void'`)
const refund = async (paymentId: string, amount?: number) => {
  const result = await runFils(["refunds", "create", paymentId, ...(amount === undefined ? [] : ["--amount", String(amount)])], env)
  return { code: result.code, out: result.stdout === "" ? undefined : JSON.parse(result.stdout), err: result.stderr }
}

describe("the fault cards on fils serve", () => {
  let product = ""
  beforeAll(async () => {
    product = (await ok(server.baseUrl, key, "POST", "/products", { name: "Oud", price: 12_000, currency: "AED" })).product_id
  })

  it("1000: the answer is lost after the charge; the payment succeeds once, found by lookup", async () => {
    const session = await sessionFor(product)
    const paid = await payForm(session, cards.answerLost)
    expect(paid.status).toBe(200)
    const [payment, ...more] = await paymentsOf(session)
    expect(more).toEqual([])
    expect(payment).toMatchObject({ status: "succeeded", total_amount: 12_000 })
    expect((await get(`/checkout_sessions/${session}`)).status).toBe("complete")
    expect((await simCharges(payment.payment_id))[0]!.n).toBe(1)
  }, 60_000)

  it("1018: unreachable, nothing taken; the payment fails with processing_error and the customer pays again", async () => {
    const session = await sessionFor(product)
    const failed = await payForm(session, cards.unreachable)
    expect(failed.status).toBe(402)
    const [payment] = await paymentsOf(session)
    expect(payment).toMatchObject({ status: "failed" })
    const [row] = await db.sql<{ failure_code: string }>(`SELECT failure_code FROM payments WHERE payment_id = '${payment.payment_id}'`)
    expect(row!.failure_code).toBe("processing_error")
    expect((await simCharges(payment.payment_id))[0]!.n).toBe(0)
    expect((await payForm(session, cards.visa)).status).toBe(200)
    expect((await paymentsOf(session)).map((p) => p.status).sort()).toEqual(["failed", "succeeded"])
  }, 60_000)

  it("5126: the processor refuses the refund; REFUND_REFUSED and nothing changes", async () => {
    const session = await sessionFor(product)
    expect((await payForm(session, cards.refundsRefused)).status).toBe(200)
    const [payment] = await paymentsOf(session)
    const refused = await refund(payment.payment_id, 1_000)
    expect(refused.code).toBe(1)
    expect(JSON.parse(refused.err)).toMatchObject({ code: "REFUND_REFUSED" })
    expect(await get(`/payments/${payment.payment_id}`)).toStrictEqual(payment)
    const events = (await get("/events?type=refund.succeeded&limit=100")).items as Array<any>
    expect(events.filter((e) => e.data.payment_id === payment.payment_id)).toEqual([])
  }, 60_000)

  it("1034: the first refund's answer is lost after the money went back; it ends once, succeeded", async () => {
    const session = await sessionFor(product)
    expect((await payForm(session, cards.firstRefundAnswerLost)).status).toBe(200)
    const [payment] = await paymentsOf(session)
    const first = await refund(payment.payment_id, 2_000)
    expect(first.code, first.err).toBe(0)
    expect(first.out).toMatchObject({ status: "partially_refunded", refunded_amount: 2_000, refund: { status: "succeeded" } })
    const rest = await refund(payment.payment_id)
    expect(rest.out).toMatchObject({ status: "refunded", refunded_amount: 12_000, refund_amount: 10_000 })
    const events = (await get("/events?type=refund.succeeded&limit=100")).items as Array<any>
    expect(events.filter((e) => e.data.payment_id === payment.payment_id).map((e) => e.data.refund_amount).sort())
      .toEqual([10_000, 2_000])
    const [moved] = await db.sql<{ n: number; total: number }>(`SELECT count(*)::int AS n, sum(r.amount)::int AS total
      FROM fils_sim.refunds r JOIN fils_sim.charges c ON c.charge_id = r.charge_id
      WHERE c.reference = '${payment.payment_id}' AND r.outcome = 'succeeded'`)
    expect(moved).toEqual({ n: 2, total: 12_000 })
  }, 60_000)

  it("a subscription paid with 1000 renews once: the renewal's lost answer is found by lookup", async () => {
    const plan = await ok(server.baseUrl, key, "POST", "/products", {
      name: "Oud club", price: 3_000, currency: "AED", billing: "recurring", billing_interval: "month"
    })
    const session = await sessionFor(plan.product_id)
    expect((await payForm(session, cards.answerLost)).status).toBe(200)
    const sub = (await get("/subscriptions?limit=100")).items.find((s: any) => s.payment_method.last4 === "1000")
    expect(sub).toBeDefined()
    const at = new Date(Date.parse(sub.next_billing_date) + 60_000).toISOString()
    const run = await runFils(["billing", "run", "--at", at], env)
    expect(run.code, run.stderr).toBe(0)
    const after = await get(`/subscriptions/${sub.subscription_id}`)
    expect(after).toMatchObject({ status: "active", failed_payment_attempts: 0 })
    expect(Date.parse(after.current_period_start)).toBe(Date.parse(sub.next_billing_date))
    const renewals = ((await get("/payments?limit=100")).items as Array<any>)
      .filter((p) => p.subscription_id === sub.subscription_id && p.billing_reason === "subscription_renewal")
    expect(renewals.map((p) => p.status)).toEqual(["succeeded"])
    expect((await simCharges(renewals[0].payment_id))[0]!.n).toBe(1)
  }, 60_000)

  it("fils reconcile finds nothing amiss, then names what a planted error breaks (exit 2)", async () => {
    const clean = await reconcile(env)
    expect(clean.report, clean.stderr).toMatchObject({ ok: true, mismatches: [] })
    expect(clean.code).toBe(0)
    expect(clean.report.checked).toBeGreaterThanOrEqual(10)

    // A refund the processor never made.
    const [paid] = await db.sql<{ payment_id: string }>(`SELECT payment_id FROM payments
      WHERE status = 'succeeded' AND billing_reason = 'payment' ORDER BY created_at LIMIT 1`)
    await db.sql(`UPDATE payments SET refunded_amount = 1, net_amount = net_amount - 1, status = 'partially_refunded'
      WHERE payment_id = '${paid!.payment_id}'`)
    const broken = await reconcile(env)
    expect(broken.code).toBe(2)
    expect(broken.report.ok).toBe(false)
    expect(broken.report.mismatches).toEqual([
      expect.objectContaining({ kind: "refund_total_differs", reference: paid!.payment_id })
    ])
    await db.sql(`UPDATE payments SET refunded_amount = 0, net_amount = net_amount + 1, status = 'succeeded'
      WHERE payment_id = '${paid!.payment_id}'`)
    expect((await reconcile(env)).code).toBe(0)

    const bad = await runFils(["reconcile", "--since", "yesterday"], env)
    expect(bad.code).toBe(1)
    expect(JSON.parse(bad.stderr)).toMatchObject({ code: "INVALID_REQUEST" })
  }, 90_000)
})

describe("fils reconcile --since", () => {
  it("compares only what moved and was recorded since then", async () => {
    // Past everything, the renewal charged as of next month (`billing run --at`) included.
    const result = await runFils(["reconcile", "--since", new Date(Date.now() + 10 * 366 * 86_400_000).toISOString()], env)
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ ok: true, checked: 0, mismatches: [] })
  }, 30_000)
})

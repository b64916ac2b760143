/**
 * Objects of every kind for one principal, made the way a merchant and a customer make them: products, a customer,
 * webhook endpoints, sessions and a customer portal session through the API, sessions paid on the hosted page (so payments, a subscription and
 * events exist), and, the account charging VAT, a refund of part of a payment (so tax invoices and a credit note
 * exist). Used by the fuzzer and the isolation property.
 */
import { Effect } from "effect"
import { expect } from "vitest"
import { Accounts } from "../../src/application/Accounts.js"
import { Payments } from "../../src/application/Payments.js"
import type { PaymentId } from "../../src/domain/Ids.js"
import { cards, formWith } from "./checkout.js"
import { type Principal, rawFor, type TestServer } from "./server.js"
import { vatProfile } from "./taxProfile.js"

/** Pays a session on its hosted page, as a browser without JavaScript would: answers the page's status. */
export const payOnPage = async (server: TestServer, sessionId: string, card: string): Promise<number> => {
  const page = await fetch(`${server.origin}/checkout/${sessionId}`)
  const token = /name="form_token" value="([^"]*)"/.exec(await page.text())?.[1]
  if (token === undefined) throw new Error(`no form on the page of ${sessionId} (${page.status})`)
  const res = await fetch(`${server.origin}/checkout/${sessionId}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...formWith(card), form_token: token } as Record<string, string>).toString()
  })
  await res.text()
  return res.status
}

/** The collection path of each kind, and the id field its objects carry. */
export const kinds = {
  products: { prefix: "pdt", idField: "product_id" },
  customers: { prefix: "cus", idField: "customer_id" },
  checkout_sessions: { prefix: "cks", idField: "session_id" },
  payments: { prefix: "pay", idField: "payment_id" },
  subscriptions: { prefix: "sub", idField: "subscription_id" },
  webhooks: { prefix: "wh", idField: "webhook_id" },
  events: { prefix: "evt", idField: "event_id" },
  customer_portal_sessions: { prefix: "cps", idField: "customer_portal_session_id" },
  invoices: { prefix: "inv", idField: "invoice_id" },
  credit_notes: { prefix: "cn", idField: "credit_note_id" },
  discounts: { prefix: "dsc", idField: "discount_id" },
  test_clocks: { prefix: "clk", idField: "test_clock_id" }
} as const
export type Kind = keyof typeof kinds

/** Every id of one principal, by kind. */
export type Seeded = Record<Kind, Array<string>>

/** Creates objects of every kind for `who` (its account must allow live payments for a live key). */
export const seedObjects = async (server: TestServer, who: Principal, tag = "seed"): Promise<Seeded> => {
  const raw = rawFor(server, who.key)
  const ok = async (res: Promise<{ status: number; text: string; json: any }>) => {
    const r = await res
    expect(r.status, `${who.name}: ${r.text}`).toBe(200)
    return r.json
  }
  // The merchant charges VAT: its payments get tax invoices, its refunds credit notes.
  await server.run(Effect.flatMap(Accounts, (a) => a.update(who.accountId, { tax_profile: vatProfile })))
  const oneTime = await ok(raw.post("/products", {
    name: `${tag} beans`,
    price: 4_500,
    currency: "AED",
    description: `${tag} description`,
    metadata: { tag }
  }))
  const monthly = await ok(raw.post("/products", {
    name: `${tag} club`,
    price: 9_900,
    currency: "AED",
    billing: "recurring",
    billing_interval: "month"
  }))
  const customer = await ok(raw.post("/customers", { email: `${tag}-${who.name.replace(/\W/g, "")}@example.ae`, name: "Buyer" }))
  const webhook = await ok(raw.post("/webhooks", {
    url: who.livemode ? "https://8.8.8.8/hooks" : "http://127.0.0.1:9/hooks",
    description: tag
  }))
  const paid = await ok(raw.post("/checkout_sessions", {
    product_cart: [{ product_id: oneTime.product_id, quantity: 2 }],
    customer: { customer_id: customer.customer_id },
    return_url: "https://shop.example/thanks",
    metadata: { tag }
  }))
  // A discount code for the club, which the subscription is started with.
  const discount = await ok(raw.post("/discounts", {
    code: `${tag.replace(/[^A-Za-z0-9]/g, "").slice(0, 12)}10`,
    type: "percentage",
    amount: 1000,
    subscription_cycles: 2,
    restricted_to: [monthly.product_id]
  }))
  const subscribed = await ok(raw.post("/checkout_sessions", {
    product_cart: [{ product_id: monthly.product_id }],
    discount_code: discount.code
  }))
  const open = await ok(raw.post("/checkout_sessions", { product_cart: [{ product_id: oneTime.product_id }] }))
  // 303 back to the return URL, or 200 with the success page when the session has none.
  expect(await payOnPage(server, paid.session_id, cards.visa), `${who.name} pays`).toBe(303)
  expect(await payOnPage(server, subscribed.session_id, cards.visa), `${who.name} subscribes`).toBe(200)
  expect(await payOnPage(server, open.session_id, cards.declined), `${who.name} is declined`).toBe(402)
  // Test clocks are test mode's only.
  const clock = who.livemode ? undefined : await ok(raw.post("/test_clocks", { frozen_time: "2030-01-01T00:00:00Z", name: tag }))
  const portal = await ok(raw.post("/customer_portal_sessions", { customer_id: customer.customer_id, return_url: "https://shop.example/account" }))
  const refunded = (await ok(raw.get(`/checkout_sessions/${paid.session_id}`))).payment_id as PaymentId
  await server.run(Effect.flatMap(Payments, (p) =>
    p.refund({ accountId: who.accountId, livemode: who.livemode }, refunded, 1_000)) as unknown as Effect.Effect<unknown>)
  const invoices = (await ok(raw.get("/invoices?limit=100"))).items.map((i: any) => i.invoice_id)
  const creditNotes = (await ok(raw.get("/credit_notes?limit=100"))).items.map((n: any) => n.credit_note_id)
  expect(invoices.length, `${who.name} has tax invoices`).toBe(2)
  expect(creditNotes.length, `${who.name} has a credit note`).toBe(1)
  const subscriptions = (await ok(raw.get("/subscriptions?limit=100"))).items.map((s: any) => s.subscription_id)
  const payments = (await ok(raw.get("/payments?limit=100"))).items.map((p: any) => p.payment_id)
  const events = (await ok(raw.get("/events?limit=100"))).items.map((e: any) => e.event_id)
  expect(subscriptions.length, `${who.name} has a subscription`).toBeGreaterThan(0)
  expect(payments.length, `${who.name} has payments`).toBeGreaterThanOrEqual(3)
  expect(events.length, `${who.name} has events`).toBeGreaterThan(0)
  return {
    products: [oneTime.product_id, monthly.product_id],
    customers: [customer.customer_id],
    checkout_sessions: [paid.session_id, subscribed.session_id, open.session_id],
    payments,
    subscriptions,
    webhooks: [webhook.webhook_id],
    events,
    customer_portal_sessions: [portal.customer_portal_session_id],
    invoices,
    credit_notes: creditNotes,
    discounts: [discount.discount_id],
    test_clocks: clock === undefined ? [] : [clock.test_clock_id]
  }
}

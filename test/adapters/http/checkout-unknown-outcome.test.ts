/**
 * The hosted checkout page when a payment's outcome is unknown: the database goes away right after the payment is
 * reserved (its commit acknowledged), the processor then charges the card, and recording the charge fails. The page
 * must not say the customer was not charged; it says the outcome is not known yet and offers to read it again. The
 * cut is real: the server's pool goes through a proxy that cuts every connection right after that commit.
 */
import { DateTime, Effect } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type Movement, PaymentProcessor } from "../../../src/ports/PaymentProcessor.js"
import { cards, formWith } from "../../support/checkout.js"
import { postgresStoreBehindCutter } from "../../support/postgresStore.js"
import { rawFor, startServer, type TestServer } from "../../support/server.js"
import type { CommitCutter } from "../../support/tcp.js"

let server: TestServer
let cutter: CommitCutter

beforeAll(async () => {
  const behind = await postgresStoreBehindCutter()
  cutter = behind.cutter
  server = await startServer(behind.store)
})

afterAll(async () => {
  await server?.close()
  await cutter?.close()
})

const textOf = (html: string) => html.replace(/<[^>]*>/g, " ").replace(/&#39;/g, "'").replace(/\s+/g, " ")

it("a charge made but not recorded: 503 saying the outcome is not known yet, with a link to read it again", async () => {
  const raw = rawFor(server, server.accountA.test.key)
  const product = await raw.post("/products", { name: `Beans ${randomUUID()}`, price: 5000, currency: "AED" })
  const session = await raw.post("/checkout_sessions", { product_cart: [{ product_id: product.json.product_id }] })
  expect(session.status, session.text).toBe(200)
  const pageUrl = `${server.origin}/checkout/${session.json.session_id}`
  const form = await (await fetch(pageUrl)).text()
  const token = /name="form_token" value="([^"]*)"/.exec(form)![1]!

  const cut = cutter.arm("INSERT INTO payments")
  const fields = Object.entries(formWith(cards.visa)).map(([k, v]) => [k, String(v)])
  const res = await fetch(pageUrl, { method: "POST", body: new URLSearchParams([...fields, ["form_token", token]]) })
  const html = await res.text()
  await cut
  cutter.heal()

  expect(res.status, textOf(html)).toBe(503)
  const text = textOf(html)
  expect(text).not.toMatch(/not (been )?charged/i)
  expect(text).toMatch(/not known yet/i)
  expect(text).toMatch(/do not pay again/i)
  expect(html).toContain(`href="/checkout/${session.json.session_id}"`)
  // The card was charged indeed: the processor holds a charge under the session's payment.
  const payments = await raw.get(`/payments?checkout_session_id=${session.json.session_id}`)
  const [payment] = payments.json.items
  const moved = await server.run(
    Effect.flatMap(PaymentProcessor, (p) => p.movements(DateTime.unsafeMake(0))) as Effect.Effect<ReadonlyArray<Movement>>
  )
  expect(moved.filter((m) => m._tag === "Charge").map((m) => m.reference)).toContain(payment.payment_id)
})

it("the customer sends the form again: the charge the processor took is recorded now, and the page says paid", async () => {
  const raw = rawFor(server, server.accountA.test.key)
  const product = await raw.post("/products", { name: `Beans ${randomUUID()}`, price: 7000, currency: "AED" })
  const session = await raw.post("/checkout_sessions", { product_cart: [{ product_id: product.json.product_id }] })
  const pageUrl = `${server.origin}/checkout/${session.json.session_id}`
  const token = /name="form_token" value="([^"]*)"/.exec(await (await fetch(pageUrl)).text())![1]!
  const post = () => {
    const fields = Object.entries(formWith(cards.visa)).map(([k, v]) => [k, String(v)])
    return fetch(pageUrl, { method: "POST", body: new URLSearchParams([...fields, ["form_token", token]]), redirect: "manual" })
  }

  const cut = cutter.arm("INSERT INTO payments")
  const lost = await post()
  await lost.text()
  await cut
  cutter.heal()
  expect(lost.status).toBe(503)

  // Sent again (a double click right away is told a payment is being processed; a few seconds later the processor
  // is asked), well before the lookup pass would look the charge up (a minute).
  const started = Date.now()
  let again = await post()
  let text = textOf(await again.text())
  while (again.status === 409 && /already being processed/i.test(text) && Date.now() - started < 15_000) {
    await new Promise((r) => setTimeout(r, 500))
    again = await post()
    text = textOf(await again.text())
  }
  expect([200, 303], text).toContain(again.status)
  expect(text).not.toMatch(/already being processed/i)
  const payments = await raw.get(`/payments?checkout_session_id=${session.json.session_id}`)
  expect(payments.json.items.map((p: { status: string }) => p.status)).toEqual(["succeeded"])
  const read = await raw.get(`/checkout_sessions/${session.json.session_id}`)
  expect(read.json.status).toBe("complete")
  const moved = await server.run(
    Effect.flatMap(PaymentProcessor, (p) => p.movements(DateTime.unsafeMake(0))) as Effect.Effect<ReadonlyArray<Movement>>
  )
  expect(moved.filter((m) => m._tag === "Charge" && m.reference === payments.json.items[0].payment_id)).toHaveLength(1)
})

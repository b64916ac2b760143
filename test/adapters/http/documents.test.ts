/**
 * `/api/v1/invoices` and `/api/v1/credit_notes` over a real HTTP server, on both stores: a VAT-registered merchant sells
 * through the API and the hosted checkout page, refunds part, and reads the tax invoice and credit note as JSON, as
 * PINT AE XML and as the printable page; the other mode and another account see none of them.
 */
import { Effect, Schema } from "effect"
import { expect, it } from "vitest"
import { Accounts } from "../../../src/application/Accounts.js"
import { Payments } from "../../../src/application/Payments.js"
import type { PaymentId } from "../../../src/domain/Ids.js"
import { CreditNote, Invoice } from "../../../src/domain/TaxDocument.js"
import { cards } from "../../support/checkout.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"
import { payOnPage } from "../../support/seed.js"
import { rawFor, type TestAccount, type TestServer } from "../../support/server.js"
import { businessJson, buyerTrn, merchantTrn, vatProfile } from "../../support/taxProfile.js"
import * as Xml from "../../support/xml.js"

/** Every element below `root` (itself included), depth first. */
const elements = (root: Xml.XmlElement): Array<Xml.XmlElement> => [root, ...root.children.flatMap(elements)]

/** A VAT-registered shop with live payments enabled. */
const vatShop = async (s: TestServer): Promise<TestAccount> => {
  const shop = await s.createAccount({ business_name: "Karak House", live_payments_enabled: true })
  await s.run(Effect.flatMap(Accounts, (a) => a.update(shop.accountId, { tax_profile: vatProfile })))
  return shop
}

/** Sells one product of `price` fils through the API and the hosted page; the payment's id. */
const sell = async (s: TestServer, key: string, body: Record<string, unknown> = {}, price = 10_500): Promise<string> => {
  const raw = rawFor(s, key)
  const product = await raw.post("/products", { name: "Karak chai, 1 kg", price, currency: "AED" })
  expect(product.status, product.text).toBe(200)
  const session = await raw.post("/checkout_sessions", { product_cart: [{ product_id: product.json.product_id }], ...body })
  expect(session.status, session.text).toBe(200)
  expect(await payOnPage(s, session.json.session_id, cards.visa)).toBe(200)
  const paid = await raw.get(`/checkout_sessions/${session.json.session_id}`)
  expect(paid.json.status).toBe("complete")
  return paid.json.payment_id as string
}

/** Refunds `amount` fils of a payment through the library, as `fils refunds create` does. */
const refund = (s: TestServer, shop: TestAccount, paymentId: string, amount: number) =>
  s.run(
    Effect.flatMap(Payments, (p) =>
      p.refund({ accountId: shop.accountId, livemode: false }, paymentId as PaymentId, amount)) as unknown as Effect.Effect<unknown>
  )

describeStores("tax documents over HTTP", (variant) => {
  const server = useServer(variant)

  it("a sale to a business issues a tax invoice, read as JSON, PINT AE XML and the printable page", async () => {
    const s = server()
    const shop = await vatShop(s)
    const raw = rawFor(s, shop.test.key)
    const customer = await raw.post("/customers", { email: "accounts@falcon.example.ae", name: "Omar", business: businessJson })
    expect(customer.status, customer.text).toBe(200)
    const paymentId = await sell(s, shop.test.key, { customer: { customer_id: customer.json.customer_id } })

    const list = await raw.get("/invoices")
    expect(list.status, list.text).toBe(200)
    expect(list.json).toMatchObject({ has_more: false, next_cursor: null })
    expect(list.json.items).toHaveLength(1)
    const invoice = list.json.items[0]
    // The JSON is the domain Schema's encoded form, whole.
    expect(Schema.encodeSync(Invoice)(Schema.decodeUnknownSync(Invoice)(invoice))).toStrictEqual(invoice)
    expect(invoice).toMatchObject({
      object: "invoice",
      livemode: false,
      number: "INV-000001",
      kind: "full",
      payment_id: paymentId,
      supplier: { trn: merchantTrn, legal_name: vatProfile.legal_name },
      buyer: { customer_id: customer.json.customer_id, business: { trn: buyerTrn } },
      totals: { net: 10_000, vat: 500, gross: 10_500 },
      card: { brand: "visa", last4: "4242" }
    })
    expect(invoice.invoice_id).toMatch(/^inv_[0-9a-f]{32}$/)
    const read = await raw.get(`/invoices/${invoice.invoice_id}`)
    expect(read.status, read.text).toBe(200)
    expect(read.json).toStrictEqual(invoice)

    const xml = await raw.get(`/invoices/${invoice.invoice_id}/xml`)
    expect(xml.status, xml.text).toBe(200)
    expect(xml.headers.get("content-type")).toBe("application/xml; charset=utf-8")
    const root = Xml.parse(xml.text)
    expect(root.name).toBe("Invoice")
    expect(Xml.textAt(root, "cbc:ID")).toBe("INV-000001")
    expect(Xml.textAt(root, "cbc:UUID")).toBe(invoice.uuid)
    const texts = elements(root).map((e) => e.text)
    expect(texts).toContain(merchantTrn)
    expect(texts).toContain(buyerTrn)
    expect(xml.headers.get("ratelimit-limit")).toMatch(/^\d+$/)

    const page = await raw.get(`/invoices/${invoice.invoice_id}/html`)
    expect(page.status, page.text).toBe(200)
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
    // The headers of every page the server serves: its own nonce'd style only, never framed, never cached.
    expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+';.*frame-ancestors 'none'/)
    expect(page.headers.get("x-frame-options")).toBe("DENY")
    expect(page.headers.get("x-content-type-options")).toBe("nosniff")
    expect(page.headers.get("cache-control")).toBe("no-store")
    expect(page.text.slice(0, 15).toLowerCase()).toBe("<!doctype html>")
    for (const text of ["Tax Invoice", "فاتورة ضريبية", "INV-000001", merchantTrn, buyerTrn, "Falcon Logistics FZE"]) {
      expect(page.text).toContain(text)
    }

    // Announced as an event, as it was issued.
    const events = await raw.get("/events?type=invoice.issued")
    expect(events.json.items.map((e: any) => e.data)).toEqual([invoice])
  })

  it("a partial refund issues a credit note that names its invoice; filters find both documents", async () => {
    const s = server()
    const shop = await vatShop(s)
    const raw = rawFor(s, shop.test.key)
    const customer = await raw.post("/customers", { email: "omar@example.ae", name: "Omar" })
    const paymentId = await sell(s, shop.test.key, { customer: { customer_id: customer.json.customer_id } })
    const other = await sell(s, shop.test.key)
    await refund(s, shop, paymentId, 2_100)

    const invoices = await raw.get(`/invoices?payment_id=${paymentId}`)
    expect(invoices.json.items).toHaveLength(1)
    const invoice = invoices.json.items[0]
    expect(invoice.kind).toBe("simplified")
    const notes = await raw.get("/credit_notes")
    expect(notes.status, notes.text).toBe(200)
    expect(notes.json.items).toHaveLength(1)
    const note = notes.json.items[0]
    expect(Schema.encodeSync(CreditNote)(Schema.decodeUnknownSync(CreditNote)(note))).toStrictEqual(note)
    expect(note).toMatchObject({
      object: "credit_note",
      number: "CN-000001",
      payment_id: paymentId,
      invoice_id: invoice.invoice_id,
      invoice_number: invoice.number,
      reason_code: "DL8.61.1.C",
      value_before: 10_500,
      correct_value: 8_400,
      difference: { net: 2_000, vat: 100, gross: 2_100 }
    })
    expect(note.credit_note_id).toMatch(/^cn_[0-9a-f]{32}$/)
    expect((await raw.get(`/credit_notes/${note.credit_note_id}`)).json).toStrictEqual(note)
    expect((await raw.get(`/credit_notes?payment_id=${paymentId}`)).json.items).toEqual([note])
    expect((await raw.get(`/credit_notes?payment_id=${other}`)).json.items).toEqual([])
    expect(invoice.buyer.customer_id).toBe(customer.json.customer_id)
    expect((await raw.get(`/credit_notes?customer_id=${customer.json.customer_id}`)).json.items).toEqual([note])
    expect((await raw.get(`/invoices?customer_id=${customer.json.customer_id}`)).json.items).toEqual([invoice])
    // A subscription's invoices: its first period, a continuous supply.
    const plan = await raw.post("/products", { name: "Karak club", price: 4_200, currency: "AED", billing: "recurring", billing_interval: "month" })
    const session = await raw.post("/checkout_sessions", { product_cart: [{ product_id: plan.json.product_id }] })
    expect(await payOnPage(s, session.json.session_id, cards.visa)).toBe(200)
    const subscriptionId = (await raw.get(`/checkout_sessions/${session.json.session_id}`)).json.subscription_id as string
    const ofSubscription = (await raw.get(`/invoices?subscription_id=${subscriptionId}`)).json.items
    expect(ofSubscription.map((i: any) => [i.subscription_id, i.continuous_supply, i.totals.gross])).toEqual([[subscriptionId, true, 4_200]])
    expect((await raw.get(`/credit_notes?subscription_id=${subscriptionId}`)).json.items).toEqual([])
    // A filter by an id of the wrong shape matches nothing, as on every list.
    expect((await raw.get("/invoices?customer_id=nobody")).json.items).toEqual([])
    expect((await raw.get("/invoices")).json.items.map((i: any) => i.payment_id).sort())
      .toEqual([paymentId, other, ofSubscription[0].payment_id].sort())

    const xml = await raw.get(`/credit_notes/${note.credit_note_id}/xml`)
    expect(xml.status, xml.text).toBe(200)
    expect(xml.headers.get("content-type")).toBe("application/xml; charset=utf-8")
    const root = Xml.parse(xml.text)
    expect(root.name).toBe("CreditNote")
    expect(Xml.textAt(root, "cbc:ID")).toBe("CN-000001")
    expect(Xml.textAt(root, "cac:BillingReference", "cac:InvoiceDocumentReference", "cbc:ID")).toBe(invoice.number)
    expect(elements(root).map((e) => e.text)).toContain(merchantTrn)

    const page = await raw.get(`/credit_notes/${note.credit_note_id}/html`)
    expect(page.status, page.text).toBe(200)
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'")
    for (const text of ["Tax Credit Note", "إشعار دائن ضريبي", "CN-000001", invoice.number]) expect(page.text).toContain(text)
  })

  it("a key sees only its own mode's and account's documents: any other id is 404 on every read", async () => {
    const s = server()
    const shop = await vatShop(s)
    const paymentId = await sell(s, shop.test.key)
    await refund(s, shop, paymentId, 500)
    const test = rawFor(s, shop.test.key)
    const invoiceId = (await test.get("/invoices")).json.items[0].invoice_id as string
    const noteId = (await test.get("/credit_notes")).json.items[0].credit_note_id as string

    const strangers = [rawFor(s, shop.live.key), rawFor(s, s.accountA.test.key)]
    for (const other of strangers) {
      for (const list of ["/invoices", "/credit_notes", `/invoices?payment_id=${paymentId}`]) {
        const res = await other.get(list)
        expect(res.status, res.text).toBe(200)
        expect(res.json.items, list).toEqual([])
      }
      for (const path of [`/invoices/${invoiceId}`, `/credit_notes/${noteId}`]) {
        for (const form of ["", "/xml", "/html"]) expectError(await other.get(`${path}${form}`), 404, "NOT_FOUND")
      }
    }
    // An id of the wrong shape, or of the other kind of document, names nothing here either.
    for (const path of [`/invoices/${noteId}`, `/credit_notes/${invoiceId}`, "/invoices/inv_123", `/invoices/${invoiceId}x/xml`]) {
      expectError(await test.get(path), 404, "NOT_FOUND")
    }
    for (const path of [`/invoices/${invoiceId}`, `/credit_notes/${noteId}/html`, "/invoices"]) {
      const res = await rawFor(s).get(path)
      expectError(res, 401, "UNAUTHORIZED")
    }
  })

  it("pages through invoices with a cursor, newest first, each once; a cursor of another list is refused", async () => {
    const s = server()
    const shop = await vatShop(s)
    const raw = rawFor(s, shop.test.key)
    const payments: Array<string> = []
    for (const price of [1_050, 2_100, 3_150]) payments.push(await sell(s, shop.test.key, {}, price))

    const first = await raw.get("/invoices?limit=2")
    expect(first.status, first.text).toBe(200)
    expect(first.json.items).toHaveLength(2)
    expect(first.json.has_more).toBe(true)
    expect(typeof first.json.next_cursor).toBe("string")
    const second = await raw.get(`/invoices?limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}`)
    expect(second.status, second.text).toBe(200)
    expect(second.json).toMatchObject({ has_more: false, next_cursor: null })
    const all = [...first.json.items, ...second.json.items]
    expect(all.map((i) => i.payment_id)).toEqual([...payments].reverse())
    expect(all.map((i) => i.number)).toEqual(["INV-000003", "INV-000002", "INV-000001"])

    const cursor = encodeURIComponent(first.json.next_cursor)
    expectError(await raw.get(`/credit_notes?cursor=${cursor}`), 400, "INVALID_REQUEST")
    expectError(await raw.get(`/invoices?payment_id=${payments[0]}&cursor=${cursor}`), 400, "INVALID_REQUEST")
    expectError(await raw.get(`/payments?cursor=${cursor}`), 400, "INVALID_REQUEST")
    expectError(await raw.get("/invoices?limit=0"), 400, "INVALID_REQUEST")
    expectError(await raw.get("/credit_notes?cursor=garbage"), 400, "INVALID_REQUEST")
  })

  it("a merchant that charges no VAT has no documents", async () => {
    const s = server()
    const raw = rawFor(s, s.accountB.test.key)
    await sell(s, s.accountB.test.key)
    expect((await raw.get("/invoices")).json).toStrictEqual({ items: [], has_more: false, next_cursor: null })
    expect((await raw.get("/credit_notes")).json).toStrictEqual({ items: [], has_more: false, next_cursor: null })
  })
})

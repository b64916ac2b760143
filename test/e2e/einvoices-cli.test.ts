/**
 * `fils einvoices list|resend` as real processes on this file's PostgreSQL (docs/einvoicing.md): a business invoice
 * whose e-invoice the ASP rejected is listed with the provider's errors; once the customer's TRN is fixed, `resend`
 * makes it pending again with the customer's current details; anything but a rejected one is refused.
 */
import { DateTime, Effect, ManagedRuntime, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { testTrns } from "../../adapters/einvoice/SimulatedProvider.js"
import { enqueue } from "../../src/application/EInvoices.js"
import { newId } from "../../src/application/Ids.js"
import type { Account } from "../../src/domain/Account.js"
import type { Customer } from "../../src/domain/Customer.js"
import * as T from "../../src/domain/EInvoiceTransmission.js"
import type { CustomerId } from "../../src/domain/Ids.js"
import type { Invoice } from "../../src/domain/TaxDocument.js"
import { type Repositories, Store } from "../../src/ports/Store.js"
import { makePayment, succeededOf } from "../adapters/storeContract.js"
import { runFils } from "../support/cli.js"
import { buyerWith, sendableInvoices, withBuyerTrn } from "../support/einvoiceDocuments.js"
import { fileDatabaseUrl, storeAt } from "../support/postgresStore.js"

let url = ""
let store: ManagedRuntime.ManagedRuntime<Store | Repositories, never>
let invoice: Invoice
let customer: Customer

const fils = async (...args: ReadonlyArray<string>) => {
  const result = await runFils(args, { DATABASE_URL: url, FILS_DATA_DIR: undefined })
  return {
    code: result.code,
    json: result.code === 0 ? JSON.parse(result.stdout) : JSON.parse(result.stderr.trim().split("\n").at(-1)!)
  }
}

beforeAll(async () => {
  const database = await fileDatabaseUrl()
  url = Redacted.value(database)
  store = ManagedRuntime.make(storeAt(database, 2))
  // An account with a tax profile, a business customer whose TRN the ASP rejects, an invoice to it, and the ASP's
  // rejection of its e-invoice recorded.
  await store.runPromise(Effect.gen(function*() {
    const s = yield* Store
    const [drawn] = sendableInvoices(1)
    const account: Account = {
      account_id: drawn!.account_id,
      business_name: "Souq Books",
      support_email: null,
      live_payments_enabled: false,
      tax_profile: drawn!.supplier,
      time_zone: "Asia/Dubai",
      two_factor_required: false,
      created_at: drawn!.issued_at
    } as Account
    yield* s.accounts.insert(account)
    // The payment the invoice documents (a document refers to its payment).
    const payment = succeededOf(yield* makePayment({ accountId: account.account_id, livemode: false }))
    yield* s.payments.insert(payment)
    const customer_id = yield* newId<CustomerId>("cus")
    invoice = withBuyerTrn(
      { ...drawn!, payment_id: payment.payment_id, subscription_id: null, buyer: { ...drawn!.buyer, customer_id } },
      testTrns.rejected
    )
    customer = {
      object: "customer",
      customer_id,
      account_id: invoice.account_id,
      livemode: false,
      name: null,
      email: "accounts@gulf-trading.ae",
      phone_number: null,
      business: invoice.buyer.business,
      metadata: {},
      test_clock_id: null,
      created_at: invoice.issued_at
    } as Customer
    yield* s.customers.insert(customer)
    yield* s.transact(Effect.zipRight(s.documents.insertInvoice(invoice), enqueue(invoice)))
    // Claimed now: `enqueue` made it due at the clock's now, whatever instant the drawn invoice was issued at.
    const [claimed] = yield* s.einvoices.claimDue(yield* DateTime.now, 1, 60_000, [false])
    yield* s.einvoices.record({
      documentId: claimed!.document_id,
      attempt: claimed!.attempts,
      outcome: new T.Rejected({ errors: [{ code: "sim-rejected-trn", message: "The buyer's TRN is refused" }] }),
      at: invoice.issued_at
    })
  }))
}, 60_000)

afterAll(async () => {
  await store?.dispose()
})

describe("fils einvoices", () => {
  it("lists the rejected e-invoice with the provider's errors; resends it once the customer's TRN is fixed", async () => {
    const rejected = await fils("einvoices", "list", "--status", "rejected", "--account", invoice.account_id)
    expect(rejected.code, JSON.stringify(rejected.json)).toBe(0)
    expect(rejected.json).toHaveLength(1)
    expect(rejected.json[0]).toMatchObject({
      document_id: invoice.invoice_id,
      kind: "invoice",
      number: invoice.number,
      status: "rejected",
      attempts: 1,
      reference: null,
      errors: [{ code: "sim-rejected-trn", message: "The buyer's TRN is refused" }],
      waiting: null
    })
    expect((await fils("einvoices", "list", "--status", "accepted", "--account", invoice.account_id)).json).toEqual([])

    await store.runPromise(Effect.flatMap(Store, (s) =>
      s.customers.update({ ...customer, business: buyerWith(customer.business!, "100000000000003") })))
    const resent = await fils("einvoices", "resend", invoice.invoice_id)
    expect(resent.code, JSON.stringify(resent.json)).toBe(0)
    expect(resent.json).toMatchObject({ document_id: invoice.invoice_id, status: "pending", errors: [] })
    const stored = await store.runPromise(Effect.flatMap(Store, (s) => s.einvoices.get(invoice.invoice_id)))
    expect(Option.getOrThrow(stored).parties?.buyer?.trn).toBe("100000000000003")
    expect(Option.getOrThrow(stored).parties?.supplier).toEqual(invoice.supplier)

    const again = await fils("einvoices", "resend", invoice.invoice_id)
    expect(again.code).toBe(1)
    expect(again.json.message).toContain("only a rejected e-invoice can be sent again")
  }, 90_000)

  it("refuses what it cannot act on, in the operator's words", async () => {
    const missing = await fils("einvoices", "resend", "inv_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f")
    expect(missing.code).toBe(1)
    expect(missing.json.message).toContain("No such e-invoice")
    const badAccount = await fils("einvoices", "list", "--account", "shop-1")
    expect(badAccount.code).toBe(1)
    expect(badAccount.json.message).toContain("is not an account id")
  }, 60_000)
})

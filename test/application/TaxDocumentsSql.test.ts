/**
 * Tax document numbers over PostgreSQL: payments succeeding at once on several connections are numbered 1..n with
 * no gap and no repeat, refunds' credit notes likewise; a transaction that rolls back gives its number back; and an
 * issued document cannot be changed or deleted, even by hand.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Exit, Layer } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Payments } from "../../src/application/Payments.js"
import { TaxDocuments } from "../../src/application/TaxDocuments.js"
import { PaymentProcessor } from "../../src/ports/PaymentProcessor.js"
import { DocumentRepository } from "../../src/ports/repositories/DocumentRepository.js"
import { Transactions } from "../../src/ports/Transactions.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { freshDatabaseUrl } from "../support/database.js"
import { storeAt } from "../support/postgresStore.js"
import { vatProfile } from "../support/taxProfile.js"
import { engineOver, newAccount } from "./harness.js"


describe("tax document numbers over PostgreSQL", () => {
  it.scopedLive("concurrent payments and refunds: numbers 1..n in each series, no gap, no repeat; a rollback gives its number back", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabaseUrl
      const processor = Layer.effect(PaymentProcessor, makeSimulatedProcessorMemory({ live: false }))
      const engine = engineOver(Layer.mergeAll(storeAt(url, 8), SignerNode, processor))
      yield* Effect.gen(function*() {
        const { account, test } = yield* newAccount
        yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: vatProfile }))
        const product = yield* makeProduct(test, { price: 10_500 })
        const n = 12
        const sessions = yield* Effect.forEach(
          Array.from({ length: n }),
          () => makeSession(test, { product_cart: [{ product_id: product.product_id }] })
        )
        const paid = yield* Effect.forEach(sessions, (s) => pay(s.session_id, formWith(cards.visa)), { concurrency: n })
        const documents = yield* TaxDocuments
        const invoices = (yield* documents.listInvoices(test, {}, { limit: 100, after: undefined })).items
        assert.deepStrictEqual(
          invoices.map((i) => i.number).sort(),
          Array.from({ length: n }, (_, i) => `INV-${String(i + 1).padStart(6, "0")}`)
        )
        assert.strictEqual(new Set(invoices.map((i) => i.payment_id)).size, n)

        // A transaction that takes a number and then fails leaves the series where it was.
        const repo = yield* DocumentRepository
        const failed = yield* Effect.exit(Effect.flatMap(Transactions, (t) =>
          t.transact(Effect.zipRight(repo.nextNumber(test, "INV"), Effect.fail("rolled back" as const)))))
        assert.isTrue(Exit.isFailure(failed))

        const payments = yield* Payments
        yield* Effect.forEach(
          paid,
          (result) => result._tag === "Paid" ? payments.refund(test, result.payment.payment_id, 1_000) : Effect.void,
          { concurrency: n }
        )
        const notes = (yield* documents.listCreditNotes(test, {}, { limit: 100, after: undefined })).items
        assert.deepStrictEqual(
          notes.map((c) => c.number).sort(),
          Array.from({ length: n }, (_, i) => `CN-${String(i + 1).padStart(6, "0")}`)
        )
        const next = yield* Effect.flatMap(Transactions, (t) => t.transact(repo.nextNumber(test, "INV")))
        assert.strictEqual(next, n + 1)

        // Issued means issued: PostgreSQL refuses to change or delete a document.
        const sql = yield* Effect.map(Layer.build(PgLive(url, { maxConnections: 1 })), Context.get(SqlClient.SqlClient))
        for (const statement of [
          sql`UPDATE tax_documents SET number = 'INV-999999' WHERE document_id = ${invoices[0]!.invoice_id}`,
          sql`DELETE FROM tax_documents WHERE document_id = ${invoices[0]!.invoice_id}`
        ]) {
          const refused = yield* Effect.exit(statement)
          assert.isTrue(Exit.isFailure(refused), "an issued document changed")
        }
        assert.strictEqual((yield* documents.getInvoice(test, invoices[0]!.invoice_id)).number, invoices[0]!.number)
      }).pipe(Effect.provide(engine), Effect.scoped)
    }), 120_000)
})

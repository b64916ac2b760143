/**
 * Tax documents' arithmetic (src/domain/TaxDocument.ts), over random carts of mixed VAT categories, prices including
 * or excluding VAT, and refunds in random steps: lines reconcile to the document, credit notes start from the value
 * the notes before left, never take more than is left, never make a line negative, and a payment refunded in any
 * steps is credited exactly its invoice's VAT and gross.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import type * as Vat from "../../src/domain/Vat.js"

const lineArb = FastCheck.record({
  description: FastCheck.constantFrom("Coffee", "Grinder", "Course", "Delivery"),
  quantity: FastCheck.integer({ min: 1, max: 20 }),
  unit_amount: FastCheck.integer({ min: 0, max: 5_000_000 }),
  category: FastCheck.constantFrom<Vat.Category>("S", "S", "Z", "E", "O"),
  item_type: FastCheck.constantFrom<TaxDocument.ItemType>("G", "S"),
  item_code: FastCheck.constantFrom(null, "998314")
})
const cartArb = FastCheck.record({
  lines: FastCheck.array(lineArb, { minLength: 1, maxLength: 8 }),
  pricesIncludeVat: FastCheck.boolean()
})

/** Refund steps: fractions of what is left, the last taking all of it (or not). */
const stepsArb = FastCheck.record({
  fractions: FastCheck.array(FastCheck.double({ min: 0.01, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
  finish: FastCheck.boolean()
})

describe("tax invoices (property)", () => {
  it("each line is rounded once; the document's totals and its VAT breakdown are its lines' sums", () => {
    FastCheck.assert(FastCheck.property(cartArb, ({ lines, pricesIncludeVat }) => {
      const doc = TaxDocument.invoiceLines(lines, pricesIncludeVat)
      const totals = TaxDocument.totals(doc)
      assert.strictEqual(totals.net + totals.vat, totals.gross)
      const listed = lines.reduce((sum, l) => sum + l.unit_amount * l.quantity, 0)
      assert.strictEqual(pricesIncludeVat ? totals.gross : totals.net, listed, "the prices as listed are what the document totals")
      const byCategory = TaxDocument.breakdown(doc)
      assert.strictEqual(byCategory.reduce((s, c) => s + c.vat, 0), totals.vat)
      assert.strictEqual(byCategory.reduce((s, c) => s + c.net, 0), totals.net)
      assert.strictEqual(new Set(byCategory.map((c) => c.category)).size, byCategory.length)
    }))
  })

  it("full with the buyer's TRN, simplified without; numbers are zero-padded and ordered", () => {
    assert.strictEqual(TaxDocument.invoiceKind("100000000000003"), "full")
    assert.strictEqual(TaxDocument.invoiceKind(null), "simplified")
    assert.strictEqual(TaxDocument.documentNumber("INV", 1), "INV-000001")
    assert.strictEqual(TaxDocument.documentNumber("CN", 1_234_567), "CN-1234567")
    assert.isTrue(TaxDocument.documentNumber("INV", 9) < TaxDocument.documentNumber("INV", 10))
  })
})

describe("tax credit notes (property)", () => {
  it("each note starts from the value the notes before left; lines never go negative; refunded in full, the notes credit exactly the invoice", () => {
    FastCheck.assert(FastCheck.property(cartArb, stepsArb, ({ lines, pricesIncludeVat }, { finish, fractions }) => {
      const invoice = TaxDocument.invoiceLines(lines, pricesIncludeVat)
      const invoiceTotals = TaxDocument.totals(invoice)
      const notes: Array<TaxDocument.Credit> = []
      let left = invoiceTotals.gross
      for (const [i, fraction] of fractions.entries()) {
        if (left === 0) break
        const amount = finish && i === fractions.length - 1 ? left : Math.max(1, Math.floor(left * fraction))
        const note = TaxDocument.credit(invoice, notes, amount)
        if (Either.isLeft(note)) return assert.fail(note.left.message)
        const n = note.right
        assert.strictEqual(n.original_value, invoiceTotals.gross)
        assert.strictEqual(n.value_before, left, "starts from the value as the notes before altered it")
        assert.strictEqual(n.correct_value, left - amount)
        assert.strictEqual(n.difference.gross, amount)
        assert.strictEqual(n.difference.net + n.difference.vat, n.difference.gross)
        for (const l of n.lines) assert.isTrue(l.gross >= 0 && l.vat >= 0 && l.net >= 0, "no line negative")
        notes.push(n)
        left -= amount
      }
      // Per line, never more than the invoice line, in gross or in VAT.
      invoice.forEach((line, i) => {
        const credited = notes.reduce((s, n) => ({ gross: s.gross + n.lines[i]!.gross, vat: s.vat + n.lines[i]!.vat }), { gross: 0, vat: 0 })
        assert.isAtMost(credited.gross, line.gross)
        assert.isAtMost(credited.vat, line.vat)
        if (left === 0) assert.deepStrictEqual(credited, { gross: line.gross, vat: line.vat }, "refunded in full: the line exactly")
      })
      // More than is left is refused, and so is nothing.
      const over = TaxDocument.credit(invoice, notes, left + 1)
      assert.isTrue(Either.isLeft(over))
      if (Either.isLeft(over)) assert.strictEqual(over.left.value_left, left)
      assert.isTrue(Either.isLeft(TaxDocument.credit(invoice, notes, 0)))
    }), { numRuns: 300 })
  })

  it("apportions in proportion to what each line has left, by largest remainder, never above a line's share", () => {
    FastCheck.assert(FastCheck.property(
      FastCheck.array(FastCheck.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 10 }),
      FastCheck.double({ min: 0, max: 1, noNaN: true }),
      (weights, fraction) => {
        const total = weights.reduce((a, b) => a + b, 0)
        const amount = Math.floor(total * fraction)
        const shares = TaxDocument.apportion(amount, weights)
        assert.strictEqual(shares.reduce((a, b) => a + b, 0), amount)
        shares.forEach((share, i) => {
          assert.isTrue(share >= 0 && share <= weights[i]!)
          // Within one fils of the exact proportion.
          if (total > 0) assert.isBelow(Math.abs(share - (amount * weights[i]!) / total), 1)
        })
      }
    ))
  })

  it("the VAT a line holds falls with what it has left: all of it at its gross, none at 0, never rising as less is left", () => {
    FastCheck.assert(FastCheck.property(
      lineArb,
      FastCheck.boolean(),
      FastCheck.double({ min: 0, max: 1, noNaN: true }),
      (input, including, fraction) => {
        const [line] = TaxDocument.invoiceLines([input], including)
        const a = Math.floor(line!.gross * fraction)
        assert.strictEqual(TaxDocument.vatLeft(line!, line!.gross), line!.vat)
        assert.strictEqual(TaxDocument.vatLeft(line!, 0), 0)
        assert.isAtMost(TaxDocument.vatLeft(line!, a), TaxDocument.vatLeft(line!, Math.min(line!.gross, a + 1)))
      }
    ))
  })
})

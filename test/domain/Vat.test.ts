/** UAE VAT per line (src/domain/Vat.ts): rounded once per line to the nearest fils, the parts always adding up. */
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck, Schema } from "effect"
import * as Vat from "../../src/domain/Vat.js"

const lineArb = FastCheck.record({
  unitAmount: FastCheck.integer({ min: 0, max: 100_000_000 }),
  quantity: FastCheck.integer({ min: 1, max: 1000 }),
  category: FastCheck.constantFrom<Vat.Category>("S", "Z", "E", "O"),
  pricesIncludeVat: FastCheck.boolean()
})

describe("Vat.line (property)", () => {
  it("net + VAT = gross, none negative, and the price as written is the gross (including) or the net (excluding)", () => {
    FastCheck.assert(FastCheck.property(lineArb, (l) => {
      const a = Vat.line(l)
      assert.strictEqual(a.net + a.vat, a.gross)
      assert.isTrue(a.net >= 0 && a.vat >= 0)
      assert.strictEqual(l.pricesIncludeVat ? a.gross : a.net, l.unitAmount * l.quantity)
      if (l.category !== "S") assert.strictEqual(a.vat, 0, "only standard-rated supplies carry VAT")
    }))
  })

  it("the VAT is the exact tax rounded to the nearest fils (within half a fils)", () => {
    FastCheck.assert(FastCheck.property(lineArb, (l) => {
      const a = Vat.line(l)
      const bps = Vat.rateBps(l.category)
      // Scaled to integers: |vat − exact| ≤ ½ fils.
      if (l.pricesIncludeVat) {
        const denominator = 10_000 + bps
        assert.isAtMost(Math.abs(a.vat * denominator - a.gross * bps) * 2, denominator)
      } else {
        assert.isAtMost(Math.abs(a.vat * 10_000 - a.net * bps) * 2, 10_000)
      }
    }))
  })

  it("summing lines adds their rounded parts: the document's VAT is its lines' VAT to the fils", () => {
    FastCheck.assert(FastCheck.property(FastCheck.array(lineArb, { maxLength: 50 }), (ls) => {
      const lines = ls.map(Vat.line)
      const total = Vat.sum(lines)
      assert.strictEqual(total.vat, lines.reduce((n, a) => n + a.vat, 0))
      assert.strictEqual(total.net + total.vat, total.gross)
    }))
  })
})

describe("Vat.line (examples)", () => {
  it("AED 105.00 including 5 % VAT holds AED 5.00 of it; AED 100.00 excluding VAT charges AED 105.00", () => {
    assert.deepStrictEqual(Vat.line({ unitAmount: 10_500, quantity: 1, category: "S", pricesIncludeVat: true }), {
      net: 10_000,
      vat: 500,
      gross: 10_500
    })
    assert.deepStrictEqual(Vat.line({ unitAmount: 10_000, quantity: 1, category: "S", pricesIncludeVat: false }), {
      net: 10_000,
      vat: 500,
      gross: 10_500
    })
  })

  it("rounds half a fils up, per line (three lines of 10 fils: 1 fils each, not 2 on the sum of 1.5)", () => {
    const a = Vat.line({ unitAmount: 10, quantity: 1, category: "S", pricesIncludeVat: false })
    assert.deepStrictEqual(a, { net: 10, vat: 1, gross: 11 })
    assert.strictEqual(Vat.sum([a, a, a]).vat, 3)
    assert.strictEqual(Vat.line({ unitAmount: 9, quantity: 1, category: "S", pricesIncludeVat: false }).vat, 0)
    assert.strictEqual(Vat.line({ unitAmount: 30, quantity: 1, category: "S", pricesIncludeVat: false }).vat, 2)
  })

  it("a quantity multiplies before rounding: one line of 3 × 10 fils carries 2 fils (1.5 rounded up)", () => {
    assert.strictEqual(Vat.line({ unitAmount: 10, quantity: 3, category: "S", pricesIncludeVat: false }).vat, 2)
  })
})

describe("Vat.Trn", () => {
  const decode = Schema.decodeUnknownEither(Vat.Trn)
  it("is 15 digits, nothing else", () => {
    assert.isTrue(Either.isRight(decode("100123456700003")))
    for (const bad of ["10012345670000", "1001234567000033", "10012345670000A", " 100123456700003", ""]) {
      assert.isTrue(Either.isLeft(decode(bad)), bad)
    }
  })
})

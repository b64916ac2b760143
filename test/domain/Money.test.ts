import { assert, describe, it } from "@effect/vitest"
import { FastCheck, Schema } from "effect"
import * as Money from "../../src/domain/Money.js"

/** Reads a formatted amount back into minor units; throws when the shape is not `CUR [-]d,ddd.mm`. */
const parseFormatted = (text: string, currency: string): number => {
  const match = /^([A-Z]{3}) (-?)(\d{1,3}(?:,\d{3})*)\.(\d+)$/.exec(text)
  if (match === null) throw new Error(`not a formatted amount: '${text}'`)
  const [, cur, sign, major, minor] = match
  assert.strictEqual(cur, currency)
  assert.strictEqual(minor!.length, Money.minorDigits(currency), `minor digits of '${text}'`)
  // No leading zero in the major part except for a lone 0.
  assert.isFalse(/^0\d/.test(major!.replace(/,/g, "")), `leading zero in '${text}'`)
  const value = Number(major!.replace(/,/g, "")) * 10 ** Money.minorDigits(currency) + Number(minor)
  return sign === "-" ? -value : value
}

const currencies = ["AED", "USD", "EUR", "KWD", "BHD", "OMR", "JOD"] as const

describe("formatAmount", () => {
  it("formats fils as AED with two decimals", () => {
    assert.strictEqual(Money.formatAmount(34900, "AED"), "AED 349.00")
    assert.strictEqual(Money.formatAmount(0, "AED"), "AED 0.00")
    assert.strictEqual(Money.formatAmount(1, "AED"), "AED 0.01")
    assert.strictEqual(Money.formatAmount(10, "AED"), "AED 0.10")
    assert.strictEqual(Money.formatAmount(99, "AED"), "AED 0.99")
    assert.strictEqual(Money.formatAmount(100, "AED"), "AED 1.00")
  })

  it("groups thousands with commas", () => {
    assert.strictEqual(Money.formatAmount(123450, "AED"), "AED 1,234.50")
    assert.strictEqual(Money.formatAmount(99999, "AED"), "AED 999.99")
    assert.strictEqual(Money.formatAmount(100000, "AED"), "AED 1,000.00")
    assert.strictEqual(Money.formatAmount(123456789, "AED"), "AED 1,234,567.89")
    assert.strictEqual(Money.formatAmount(100000000000, "AED"), "AED 1,000,000,000.00")
  })

  it("uses three minor digits for KWD, BHD and OMR", () => {
    assert.strictEqual(Money.minorDigits("KWD"), 3)
    assert.strictEqual(Money.minorDigits("BHD"), 3)
    assert.strictEqual(Money.minorDigits("OMR"), 3)
    assert.strictEqual(Money.minorDigits("AED"), 2)
    assert.strictEqual(Money.formatAmount(34900, "KWD"), "KWD 34.900")
    assert.strictEqual(Money.formatAmount(1, "BHD"), "BHD 0.001")
    assert.strictEqual(Money.formatAmount(1234567, "OMR"), "OMR 1,234.567")
  })

  it("puts the sign after the currency for negative amounts", () => {
    assert.strictEqual(Money.formatAmount(-34900, "AED"), "AED -349.00")
    assert.strictEqual(Money.formatAmount(-1, "KWD"), "KWD -0.001")
  })

  it.prop(
    "parsing the formatted string gives the amount back",
    [FastCheck.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), FastCheck.constantFrom(...currencies)],
    ([amount, currency]) => {
      assert.strictEqual(parseFormatted(Money.formatAmount(amount, currency), currency), amount)
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop("small amounts round-trip too", [FastCheck.integer({ min: 0, max: 2_000_000 })], ([amount]) => {
    assert.strictEqual(parseFormatted(Money.formatAmount(amount, "AED"), "AED"), amount)
    assert.strictEqual(parseFormatted(Money.formatAmount(amount, "KWD"), "KWD"), amount)
  }, { fastCheck: { numRuns: 200 } })

  it.prop("a larger amount never formats to a smaller number", [
    FastCheck.integer({ min: 0, max: 10 ** 12 }),
    FastCheck.integer({ min: 1, max: 10 ** 6 })
  ], ([a, d]) => {
    assert.isTrue(parseFormatted(Money.formatAmount(a + d, "AED"), "AED") > parseFormatted(Money.formatAmount(a, "AED"), "AED"))
  }, { fastCheck: { numRuns: 100 } })
})

describe("Currency and Amount", () => {
  it("Currency accepts only AED", () => {
    const is = Schema.is(Money.Currency)
    assert.isTrue(is("AED"))
    assert.isFalse(is("aed"))
    assert.isFalse(is("USD"))
    assert.deepStrictEqual(Money.supportedCurrencies, ["AED"])
  })

  it("Amount is a non-negative safe integer", () => {
    const is = Schema.is(Money.Amount)
    assert.isTrue(is(0))
    assert.isTrue(is(34900))
    assert.isTrue(is(Number.MAX_SAFE_INTEGER))
    assert.isFalse(is(-1))
    assert.isFalse(is(1.5))
    assert.isFalse(is(Number.MAX_SAFE_INTEGER + 1))
    assert.isFalse(is(Number.NaN))
    assert.isFalse(is("100"))
  })
})

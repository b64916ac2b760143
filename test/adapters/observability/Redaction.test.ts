/**
 * The log scrubber: whatever surrounds them, API keys, webhook secrets, bearer tokens and Luhn-valid card numbers
 * (plain or grouped as typed) never survive; ids, timestamps and numbers that are not card numbers do.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { capabilityRoute, mayHoldSecret, redactJson, redactText, scrubJson, scrubText } from "../../../adapters/observability/Redaction.js"
import { isCardNumber } from "../../../src/domain/Card.js"

/** A Luhn-valid number of `length` digits: random digits, then the check digit. */
const cardNumber = (length: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length - 1, maxLength: length - 1 }).map((digits) => {
    const body = [4, ...digits.slice(1)].join("")
    for (let check = 0; check <= 9; check++) if (isCardNumber(body + check)) return body + check
    throw new Error("unreachable")
  })

const grouped = (digits: string, separator: string) => digits.replace(/(\d{4})(?=\d)/g, `$1${separator}`)
const surrounding = fc.string({ maxLength: 20 }).map((s) => s.replace(/[0-9A-Za-z_]/g, " "))

describe("Redaction", () => {
  it("removes every Luhn-valid card number of 12 to 19 digits, plain or grouped", () => {
    fc.assert(fc.property(
      fc.integer({ min: 12, max: 19 }).chain(cardNumber),
      fc.constantFrom("", " ", "-"),
      surrounding,
      surrounding,
      (card, separator, before, after) => {
        const out = redactText(`${before}${grouped(card, separator)}${after}`)
        expect(out.replace(/\D/g, "")).not.toContain(card)
        expect(out).toContain("[REDACTED]")
      }
    ))
  })

  it("removes API keys, webhook secrets and bearer tokens, keeping what they are", () => {
    fc.assert(fc.property(
      fc.constantFrom("test", "live"),
      fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/),
      surrounding,
      (mode, secret, around) => {
        const out = redactText(`${around}sk_${mode}_${secret} whsec_${secret} Bearer ${secret}${around}`)
        expect(out).not.toContain(secret)
        expect(out).toContain(`sk_${mode}_[REDACTED]`)
        expect(out).toContain("whsec_[REDACTED]")
        expect(out).toContain("Bearer [REDACTED]")
      }
    ))
  })

  it("keeps ids, timestamps, amounts and numbers that fail the Luhn check", () => {
    const kept = [
      "acct_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f",
      "req_abcdefghijklmnopqrstuvwxyz",
      "2026-11-22T02:16:40.195Z",
      "total 123456 fils",
      "4242424242424241"
    ]
    for (const text of kept) expect(redactText(text)).toBe(text)
  })

  it("keeps JSON text JSON: a card number in a string or as a bare number goes, a fraction's digits stay", () => {
    fc.assert(fc.property(
      fc.integer({ min: 12, max: 19 }).chain(cardNumber),
      fc.jsonValue(),
      fc.constantFrom("", "-"),
      (card, other, sign) => {
        // Up to 15 digits survive JSON as an exact number; longer ones are rounded by JSON.stringify anyway.
        const bare = card.length <= 15 ? Number(sign + card) : `${sign}${card}`
        const json = JSON.stringify({ other, text: `card ${sign}${card}.`, bare, fraction: Number(`0.${card}`) })
        const out = redactJson(json)
        const parsed = JSON.parse(out) as Record<string, unknown>
        expect(JSON.stringify({ ...parsed, fraction: null })).not.toContain(card)
        expect(parsed.text).toBe(`card ${sign}[REDACTED].`)
        expect(parsed.bare).toMatch(/^-?\[REDACTED\]$/)
        expect(parsed.fraction).toBe(Number(`0.${card}`))
        expect(JSON.stringify(parsed.other)).toBe(redactJson(JSON.stringify(other)))
      }
    ))
  })

  it("leaves JSON without secrets or card numbers as it is", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const json = JSON.stringify(value)
      const out = redactJson(json)
      expect(() => JSON.parse(out)).not.toThrow()
      if (redactText(json) === json) expect(out).toBe(json)
    }))
  })
})

describe("mayHoldSecret", () => {
  // Text made of the pieces the patterns look for, and of what sits at their edges.
  const pieces = fc.constantFrom(
    "sk_test_", "sk_live_", "SK_TEST_", "sk_", "whsec_", "WHSEC_", "Bearer ", "bearer\t", "Bearer", "x", "_", "-", " ", "\"",
    "4242", "4242 ", "4242-", "424", "0", "9", "55555", "-4", "acct_", "é", "/"
  )
  const texts = fc.array(pieces, { maxLength: 24 }).map((parts) => parts.join(""))

  it("lets no text past that the scrub would change", () => {
    fc.assert(fc.property(texts, (text) => {
      if (!mayHoldSecret(text)) expect(scrubText(text)).toBe(text)
      expect(redactText(text)).toBe(scrubText(text))
      const json = JSON.stringify({ text, n: Number(text.replace(/\D/g, "").slice(0, 15) || "0") })
      if (!mayHoldSecret(json)) expect(scrubJson(json)).toBe(json)
      expect(redactJson(json)).toBe(scrubJson(json))
    }), { numRuns: 5000 })
  })

  it("says yes to each kind of secret and card number, and no to an id or a timestamp", () => {
    for (const text of ["sk_test_abc", "a whsec_x", "bearer\tt", "4242424242424242", "4242 4242 4242 4242", "4242-4242-4242"]) {
      expect(mayHoldSecret(text), text).toBe(true)
    }
    for (const text of ["/api/v1/payments/pay_0193a8b2c4d5e6f708192a3b4c5d6e7f", "2026-11-22T02:16:40.195Z", "42424242424", "x4242424242424242"]) {
      expect(mayHoldSecret(text), text).toBe(false)
    }
  })
})

describe("capabilityRoute", () => {
  it("names one-time link paths by their template, secret left out; any other path is not one", () => {
    expect(capabilityRoute("/portal/Jx3f9Qh2Lr8TzVw1Kb6N")).toBe("/portal/{token}")
    expect(capabilityRoute("/fils/portal/Jx3f9Qh2?utm=x")).toBe("/portal/{token}")
    expect(capabilityRoute("/dashboard/sign-in/abc_DEF-123")).toBe("/dashboard/sign-in/{token}")
    for (const other of ["/portal", "/portal/", "/portal/sign-out", "/portal/receipts/pay_1", "/portal/subscriptions/sub_1/card", "/checkout/cks_1", "/dashboard/login"]) {
      expect(capabilityRoute(other), other).toBeUndefined()
    }
  })
})

/**
 * The form reader every server-rendered page shares: fields exactly as sent, escapes that are not UTF-8 refused;
 * a value sent back unedited kept byte for byte; a flash shown only with the key that signed it.
 */
import { Duration } from "effect"
import { describe, expect, it } from "vitest"
import {
  asSubmitted,
  isOutOfDate,
  onceLifetimeMillis,
  onceToken,
  parseForm,
  readFlash,
  unchanged,
  withFlash
} from "../../../adapters/http/html/Forms.js"
import { retention } from "../../../src/domain/Idempotency.js"

describe("parseForm", () => {
  it("reads fields exactly: no trim, no cut, `+` as a space, a stray `%` as itself, a leading U+FEFF kept", () => {
    const long = "é".repeat(3_000)
    const body = new URLSearchParams([["name", "  Spaced  "], ["long", long], ["bom", "\uFEFFx"], ["emoji", "a\u{1F600}b"]]).toString()
    expect(parseForm(body)).toEqual([["name", "  Spaced  "], ["long", long], ["bom", "\uFEFFx"], ["emoji", "a\u{1F600}b"]])
    expect(parseForm("a=1+2&b=100%&c=%zz&d&=e")).toEqual([["a", "1 2"], ["b", "100%"], ["c", "%zz"], ["d", ""], ["", "e"]])
  })

  it("refuses escapes that are not UTF-8: a stray byte, an encoded surrogate, an overlong form, a cut sequence", () => {
    for (const bad of ["%FF", "%ED%A0%80", "%C0%AF", "%E2%82", "%F0%9F%98"]) {
      expect(parseForm(`name=ok&x=a${bad}b`), bad).toBeUndefined()
      expect(parseForm(`${bad}=x`), bad).toBeUndefined()
    }
  })
})

describe("unchanged", () => {
  it("keeps a stored value a control sends back altered, and takes anything else as typed", () => {
    const stored = "line one\nline two\r\nline three\rend"
    expect(asSubmitted(stored, "textarea")).toBe("line one\r\nline two\r\nline three\r\nend")
    expect(unchanged(asSubmitted(stored, "textarea"), stored, "textarea")).toBe(stored)
    expect(unchanged(asSubmitted(stored, "input"), stored, "input")).toBe(stored)
    expect(unchanged("line one\r\nedited", stored, "textarea")).toBe("line one\r\nedited")
    expect(unchanged("  typed  ", "typed", "input")).toBe("  typed  ")
    expect(unchanged("x", null, "input")).toBe("x")
  })
})

describe("flash", () => {
  it("shows only with the key that signed it", () => {
    const location = withFlash("/dashboard/test/payments/pay_1", { tone: "done", text: "Refunded AED 1.00." }, "session-a")
    const query = new URL(location, "http://x").searchParams
    expect(readFlash(query, "session-a")).toEqual({ tone: "done", text: "Refunded AED 1.00." })
    expect(readFlash(query, "session-b")).toBeUndefined()
    expect(readFlash(new URLSearchParams({ flash: query.get("flash")!.split(".")[0]! }), "session-a")).toBeUndefined()
    expect(readFlash(new URLSearchParams(), "session-a")).toBeUndefined()
  })
})

describe("one-time tokens", () => {
  it("carry when they were made; out of date after 23 hours, never before; a token without its time never is", () => {
    const made = Date.UTC(2026, 10, 29, 12)
    const token = onceToken(made)
    expect(token).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{32}$/)
    expect(onceToken(made)).not.toBe(token)
    expect(isOutOfDate(token, made)).toBe(false)
    expect(isOutOfDate(token, made + onceLifetimeMillis)).toBe(false)
    expect(isOutOfDate(token, made + onceLifetimeMillis + 1)).toBe(true)
    // Kept for less than the 24 hours an idempotency key is.
    expect(onceLifetimeMillis).toBeLessThan(Duration.toMillis(retention))
    expect(isOutOfDate("a-token-a-script-made-up", made + 10 * onceLifetimeMillis)).toBe(false)
    expect(isOutOfDate("", made)).toBe(false)
  })
})

/**
 * Request ids made by the server: time-ordered (later ids sort after earlier ones, so the indexes keyed by them grow
 * at their end), unique, and never anything the log scrubber would take for a secret or a card number.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { redactText } from "../../../adapters/observability/Redaction.js"
import { newRequestId, requestIdOf } from "../../../adapters/observability/RequestObservation.js"

const epochMillis = fc.integer({ min: 0, max: 2 ** 48 - 1 })

describe("newRequestId", () => {
  it("sorts by the time it was made", () => {
    fc.assert(fc.property(epochMillis, epochMillis, (a, b) => {
      fc.pre(a !== b)
      const [x, y] = [newRequestId(a), newRequestId(b)]
      expect(x < y).toBe(a < b)
    }))
  })

  it("is 26 letters and digits 2–7 after `req_`, unique within a millisecond, and passes the scrubber unchanged", () => {
    const now = Date.now()
    const ids = Array.from({ length: 5_000 }, () => newRequestId(now))
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) {
      expect(id).toMatch(/^req_[a-z2-7]{26}$/)
      expect(redactText(id)).toBe(id)
      expect(requestIdOf(id)).toBe(id)
    }
  })
})

/**
 * How far one advance of a test clock may go (docs/api.md, "Test clocks"): two billing periods of the shortest plan on
 * the clock, as Stripe's test clocks allow, and two years without subscriptions.
 */
import { describe, expect, it } from "vitest"
import { DateTime, Either, FastCheck, JSONSchema, Schema } from "effect"
import * as TestClock from "../../src/domain/TestClock.js"

const clockAt = (iso: string) => ({ frozen_time: DateTime.unsafeMake(iso) }) as TestClock.TestClock
const limit = (plans: ReadonlyArray<TestClock.Plan>) =>
  DateTime.formatIso(TestClock.advanceLimit(clockAt("2030-01-31T09:00:00.000Z"), plans))

describe("TestClock.advanceLimit", () => {
  it("is two periods of the shortest plan: a weekly plan beside a yearly one allows two weeks", () => {
    expect(limit([{ billing_interval: "year", interval_count: 1 }, { billing_interval: "week", interval_count: 1 }]))
      .toBe("2030-02-14T09:00:00.000Z")
    expect(limit([{ billing_interval: "month", interval_count: 1 }])).toBe("2030-03-31T09:00:00.000Z")
    expect(limit([{ billing_interval: "month", interval_count: 3 }, { billing_interval: "year", interval_count: 1 }]))
      .toBe("2030-07-31T09:00:00.000Z")
  })

  it("is two years without subscriptions", () => {
    expect(limit([])).toBe("2032-01-31T09:00:00.000Z")
  })
})

describe("TestClock.FrozenTime", () => {
  const schema = JSONSchema.make(TestClock.FrozenTime).$defs?.["FrozenTime"]
  const documented = new RegExp(schema !== undefined && "pattern" in schema ? schema.pattern : "")
  const decodes = (text: string) => Either.isRight(Schema.decodeUnknownEither(TestClock.FrozenTime)(text))

  it("its documented pattern takes exactly the shapes it reads", () => {
    const part = (options: ReadonlyArray<string>) => FastCheck.constantFrom(...options)
    FastCheck.assert(
      FastCheck.property(
        part(["1999", "2000", "2026", "2099", "2100", "+02026", "26"]),
        part(["-01-31", "-02-28", "-12-01", "-1-01"]),
        part(["T09:00:00", "T23:59:59", "T09:00", " 09:00:00", ""]),
        part(["", ".5", ".250", ".1234"]),
        part(["Z", "+04:00", "-03:30", "", "+0400"]),
        (year, date, time, fraction, zone) => {
          const text = `${year}${date}${time}${time === "" ? "" : fraction}${time === "" ? "" : zone}`
          // Every date here exists: the shape alone decides, and the document says the same as the decoder.
          expect(documented.test(text), text).toBe(decodes(text))
        }
      ),
      { numRuns: 2_000 }
    )
  })
})

/**
 * How far one advance of a test clock may go (docs/api.md, "Test clocks"): two billing periods of the shortest plan on
 * the clock, as Stripe's test clocks allow, and two years without subscriptions.
 */
import { describe, expect, it } from "vitest"
import { DateTime } from "effect"
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

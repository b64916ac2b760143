/**
 * Test clocks (docs/api.md, "Test clocks"): a time of its own, in test mode, that a customer is attached to when it is
 * created. The customer's checkout sessions, payments and subscriptions live on the clock's `frozen_time` instead of
 * the real time; advancing the clock runs the work due on it up to the new time, and nothing else moves it.
 *
 * An advance is recorded before its work runs (`advancing`, with the time it goes to) and finished after it
 * (`ready`, at that time), so a reader sees the work under way, and a second request for the same advance does not
 * run it again while the first one holds the lease (a runner that died lets go of it when the lease runs out).
 */
import { DateTime, Either, Schema } from "effect"
import * as Calendar from "./Calendar.js"
import { InvalidRequest, InvalidState } from "./Errors.js"
import { AccountId, TestClockId } from "./Ids.js"
import { DateTimeInput } from "./Instant.js"
import * as Pagination from "./Pagination.js"
import type { BillingInterval } from "./Product.js"
import { Text } from "./Text.js"

export const TestClockStatus = Schema.Literal("ready", "advancing").annotations({
  identifier: "TestClockStatus",
  description: "`ready`: at `frozen_time`, nothing running. `advancing`: the work up to `advancing_to` is running."
})
export type TestClockStatus = typeof TestClockStatus.Type

/** The span a clock may be set in: any instant of these years (a renewal computed from it stays a real date). */
const firstYear = 2000
const lastYear = 2099

const frozenTimeDescription = `An ISO 8601 date-time with its zone, to the second or millisecond, in the years ${firstYear} to ${lastYear}`

export const FrozenTime = DateTimeInput.pipe(
  Schema.filter((t) => {
    const year = DateTime.getPartUtc(t, "year")
    return (year >= firstYear && year <= lastYear) || `must be in the years ${firstYear} to ${lastYear}`
  }),
  Schema.annotations({
    identifier: "FrozenTime",
    description: frozenTimeDescription,
    // Written out: the schema is a refinement of a transformation, whose document would be the bare string.
    jsonSchema: {
      type: "string",
      format: "date-time",
      description: frozenTimeDescription,
      pattern: "^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,3})?(Z|[+-][0-9]{2}:[0-9]{2})$",
      examples: ["2030-01-31T09:00:00Z"]
    }
  })
)

export const TestClockName = Text(1, 200)

const resourceFields = {
  object: Schema.Literal("test_clock"),
  test_clock_id: TestClockId,
  name: Schema.NullOr(Schema.String),
  /** The time the clock's objects live on. */
  frozen_time: Schema.DateTimeUtc,
  status: TestClockStatus,
  /** While `advancing`, the time the clock goes to; null when `ready`. */
  advancing_to: Schema.NullOr(Schema.DateTimeUtc),
  /** Always false: clocks exist in test mode only. */
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc
}
export const TestClockResource = Schema.Struct(resourceFields).annotations({ identifier: "TestClock" })
export const TestClock = Schema.Struct({
  ...resourceFields,
  account_id: AccountId,
  /** Until when (real time) the runner of an advance holds it; null when `ready`. */
  lease_until: Schema.NullOr(Schema.DateTimeUtc)
})
export type TestClock = typeof TestClock.Type

export const TestClockCreate = Schema.Struct({
  frozen_time: FrozenTime,
  name: Schema.optional(Schema.NullOr(TestClockName))
}).annotations({ identifier: "TestClockCreate" })
export type TestClockCreate = typeof TestClockCreate.Type

export const TestClockAdvance = Schema.Struct({
  frozen_time: FrozenTime
}).annotations({ identifier: "TestClockAdvance" })
export type TestClockAdvance = typeof TestClockAdvance.Type

export const TestClockDeleted = Schema.Struct({
  object: Schema.Literal("test_clock"),
  test_clock_id: Schema.String,
  deleted: Schema.Literal(true)
}).annotations({ identifier: "TestClockDeleted" })

export const create = (
  input: TestClockCreate,
  ctx: { readonly id: TestClockId; readonly accountId: AccountId; readonly now: DateTime.Utc }
): TestClock => ({
  object: "test_clock",
  test_clock_id: ctx.id,
  account_id: ctx.accountId,
  livemode: false,
  name: input.name ?? null,
  frozen_time: input.frozen_time,
  status: "ready",
  advancing_to: null,
  lease_until: null,
  created_at: ctx.now
})

/** A subscription's schedule: what bounds one advance. */
export interface Plan {
  readonly billing_interval: BillingInterval
  readonly interval_count: number
}

/** The schedule that bounds an advance of a clock without subscriptions. */
export const defaultPlan: Plan = { billing_interval: "year", interval_count: 1 }

/** Billing periods of the shortest plan one advance may cross (as Stripe's test clocks allow). */
export const periodsPerAdvance = 2

/**
 * The latest time one advance may reach: two billing periods of the shortest plan on the clock (as Stripe's; two
 * years when it has none), so that one request runs a bounded amount of work: a daily plan beside a yearly one allows
 * two days, not two years of daily renewals.
 */
export const advanceLimit = (clock: TestClock, plans: ReadonlyArray<Plan>): DateTime.Utc =>
  (plans.length === 0 ? [defaultPlan] : plans)
    .map((p) => Calendar.periodStart(clock.frozen_time, p.billing_interval, p.interval_count, periodsPerAdvance))
    .reduce((a, b) => (DateTime.lessThan(b, a) ? b : a))

/**
 * What a request to advance `clock` to `target` does, at real time `now`: `start` it; `run` again an advance to the
 * same time whose runner let go of it (its lease ran out); `wait` for one to that time still running; or nothing
 * (`done`: the clock is already there). Backwards, too far, or to another time while one runs is refused.
 */
export const advanceStep = (
  clock: TestClock,
  target: DateTime.Utc,
  plans: ReadonlyArray<Plan>,
  now: DateTime.Utc
): Either.Either<"start" | "run" | "wait" | "done", InvalidRequest | InvalidState> => {
  if (clock.status === "advancing" && clock.advancing_to !== null) {
    if (!DateTime.Equivalence(clock.advancing_to, target)) {
      return Either.left(
        new InvalidState({
          message: `Test clock ${clock.test_clock_id} is advancing to ${DateTime.formatIso(clock.advancing_to)}; ` +
            "wait until its status is ready, then advance it again"
        })
      )
    }
    return Either.right(clock.lease_until !== null && DateTime.lessThan(now, clock.lease_until) ? "wait" : "run")
  }
  if (DateTime.Equivalence(clock.frozen_time, target)) return Either.right("done")
  if (DateTime.lessThan(target, clock.frozen_time)) {
    return Either.left(
      new InvalidRequest({
        message: `frozen_time must be after the clock's time ${DateTime.formatIso(clock.frozen_time)}: ` +
          "a test clock only moves forward"
      })
    )
  }
  const limit = advanceLimit(clock, plans)
  if (DateTime.greaterThan(target, limit)) {
    return Either.left(
      new InvalidRequest({
        message: `frozen_time may be at most ${DateTime.formatIso(limit)}: one advance goes at most ` +
          `${periodsPerAdvance} billing periods of the clock's shortest plan; advance in steps`
      })
    )
  }
  return Either.right("start")
}

/** The clock taken by an advance to `target`, its runner holding it until `leaseUntil` (real time). */
export const startAdvance = (clock: TestClock, target: DateTime.Utc, leaseUntil: DateTime.Utc): TestClock => ({
  ...clock,
  status: "advancing",
  advancing_to: target,
  lease_until: leaseUntil
})

/** The clock at the time its advance went to, ready again. Unchanged when no advance is under way. */
export const finishAdvance = (clock: TestClock): TestClock =>
  clock.status !== "advancing" || clock.advancing_to === null ? clock : {
    ...clock,
    status: "ready",
    frozen_time: clock.advancing_to,
    advancing_to: null,
    lease_until: null
  }

/** Where a clock stands in a newest-first list. */
export const position = Pagination.byCreation<TestClock>((c) => c.created_at, (c) => c.test_clock_id)

/**
 * The time an object lives on (docs/api.md, "Test clocks"): a test-mode customer created on a test clock, and their
 * checkout sessions, payments and subscriptions, live on the clock's `frozen_time`; everything else on the real time.
 * This is the one place that rule is kept: a use case runs the work on such an object through `onTimeOf`, and the
 * background passes leave clock-attached objects to the clock's advance (the repositories' claims take a clock).
 */
import { type DateTime, Effect, Option } from "effect"
import type { CustomerId } from "../domain/Ids.js"
import type { TestClock } from "../domain/TestClock.js"
import { TestClockRepository } from "../ports/repositories/TestClockRepository.js"
import { onClockTime } from "./Time.js"

/** Whose time an object lives on: its mode and its customer. */
export interface Owner {
  readonly livemode: boolean
  readonly customer_id: CustomerId | null
}

export class ClockTime extends Effect.Service<ClockTime>()("fils/ClockTime", {
  effect: Effect.gen(function*() {
    const clocks = yield* TestClockRepository

    /** The test clock the owner's objects live on; none in live mode, without a customer, or on the real time. */
    const clockOf = (owner: Owner): Effect.Effect<Option.Option<TestClock>, Effect.Effect.Error<ReturnType<typeof clocks.ofCustomers>>> =>
      owner.livemode || owner.customer_id === null
        ? Effect.succeed(Option.none())
        : Effect.map(clocks.ofCustomers([owner.customer_id]), (found) => Option.fromNullable(found[0]?.clock))

    /** Runs `effect` on the time the owner's objects live on: its clock's frozen time, or the real time. */
    const onTimeOf = (owner: Owner) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(clockOf(owner), Option.match({
        onNone: () => effect,
        onSome: (clock) => onClockTime(clock.frozen_time)(effect)
      }))

    /** The clock times of many owners, read at once: a function of the owner (`undefined`: the real time). */
    const timesOf = (owners: ReadonlyArray<Owner>) =>
      Effect.gen(function*() {
        const ids = [...new Set(owners.flatMap((o) => (o.livemode || o.customer_id === null ? [] : [o.customer_id])))]
        const found = ids.length === 0 ? [] : yield* clocks.ofCustomers(ids)
        const times = new Map<string, DateTime.Utc>(found.map((f) => [f.customer_id, f.clock.frozen_time]))
        return (owner: Owner): DateTime.Utc | undefined =>
          owner.livemode || owner.customer_id === null ? undefined : times.get(owner.customer_id)
      })

    /** `onTimeOf` for many owners (a list), their clocks read at once: a function of the owner. */
    const onTimesOf = (owners: ReadonlyArray<Owner>) =>
      Effect.map(timesOf(owners), (timeOf) => (owner: Owner) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
        const at = timeOf(owner)
        return at === undefined ? effect : onClockTime(at)(effect)
      })

    return { clockOf, onTimeOf, timesOf, onTimesOf } as const
  })
}) {}

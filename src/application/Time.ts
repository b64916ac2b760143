/**
 * Time other than the real one: a clock stopped at an instant (`billing run --at`, and a test clock's frozen time),
 * and the real time events keep meanwhile.
 */
import { Clock, DateTime, Effect, FiberRef, Option } from "effect"

/** A clock that reads `millis` whenever asked (sleeping still takes real time). */
export const stoppedClock = (millis: number): Clock.Clock => {
  const real = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => millis,
    unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
    currentTimeMillis: Effect.succeed(millis),
    currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
    sleep: real.sleep
  }
}

/** The clock that was running before work moved to a test clock's time (none outside such work). */
const realClock = FiberRef.unsafeMake<Option.Option<Clock.Clock>>(Option.none())

/**
 * Runs `effect` on a test clock's time, `at`: every `now` it reads is `at`, except the time events are recorded at,
 * which stays the real one (an event happens when the work runs; its data carries the clock's times).
 */
export const onClockTime = (at: DateTime.Utc) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.clock, (current) =>
    Effect.flatMap(FiberRef.get(realClock), (outer) =>
      effect.pipe(
        Effect.withClock(stoppedClock(DateTime.toEpochMillis(at))),
        // Nested, the outermost real clock is kept.
        Effect.locally(realClock, Option.orElse(outer, () => Option.some(current)))
      )))

/** Whether the work runs on another time than the real one (`onClockTime`). */
export const onOtherTime: Effect.Effect<boolean> = Effect.map(FiberRef.get(realClock), Option.isSome)

/** `effect` on the real clock, even while work runs on a test clock's time. */
export const onRealTime = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(realClock), Option.match({ onNone: () => effect, onSome: (clock) => Effect.withClock(effect, clock) }))

/** The real time, even while work runs on a test clock's: when an event is recorded, when a key expires. */
export const eventTime: Effect.Effect<DateTime.Utc> = onRealTime(DateTime.now)

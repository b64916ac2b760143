/**
 * Background work, scheduled (docs/decisions.md §6): each pass renews what is due (`Renewals`), expires sessions past
 * their 24 hours (`Checkout`) and settles `processing` charges (`Payments`). `runOnce` does one pass
 * (`fils billing run`); `worker` runs passes forever inside `fils serve`. Any number of servers may run at once.
 */
import { DateTime, Duration, Effect, Schedule } from "effect"
import type { TestClockId } from "../domain/Ids.js"
import { Checkout } from "./Checkout.js"
import { Payments } from "./Payments.js"
import { Renewals } from "./Renewals.js"
import { onClockTime, stoppedClock } from "./Time.js"

export { stoppedClock } from "./Time.js"


export interface BillingReport {
  readonly renewals_charged: number
  readonly subscriptions_ended: number
  readonly expired_sessions: number
  readonly settled_payments: number
}

export interface BillingOptions {
  /** Only this mode's work (`billing run --at` touches test data only). */
  readonly livemode?: boolean | undefined
  /**
   * Process the work due by this instant as if it were now (`billing run --at`): the pass runs on a clock stopped
   * there. Charges in flight are then not judged abandoned by their age, which only the real time can tell.
   */
  readonly asOf?: number | undefined
  /**
   * Only the work of this test clock, as of `asOf` (its advance: `TestClocks`); without it, only work on the real
   * time. A clock's pass records its events at the real time, when they happen.
   */
  readonly clock?: TestClockId | undefined
}

/** How often a server looks for due work. Settlements of test cards take about 2 s. */
export const interval = Duration.seconds(1)
/** Processing payments looked at per pass. */
const resolveBatch = 100
export class Billing extends Effect.Service<Billing>()("fils/Billing", {
  effect: Effect.gen(function*() {
    const checkout = yield* Checkout
    const payments = yield* Payments
    const renewals = yield* Renewals

    const pass = Effect.fn("Billing.pass")(function*(options: BillingOptions) {
      const renewed = yield* renewals.renewDue(options)
      const expired = yield* checkout.expireDue(500, options.livemode, options.clock)
      const settled = yield* payments.resolvePending(resolveBatch, options.livemode, {
        // A clock's charges are judged on its time: a charge its advance left `processing` (a lost answer, a crash)
        // is looked up once the clock has moved a minute past it. `billing run --at` asks only about later settling.
        judgeAbandoned: options.asOf === undefined || options.clock !== undefined,
        clock: options.clock
      })
      return {
        renewals_charged: renewed.charged,
        subscriptions_ended: renewed.ended,
        expired_sessions: expired,
        settled_payments: settled
      } satisfies BillingReport
    })

    /** One pass over what is due now, or as of `options.asOf`. */
    const runOnce = (options: BillingOptions = {}) =>
      options.asOf === undefined
        ? pass(options)
        : options.clock !== undefined
        ? onClockTime(DateTime.unsafeMake(options.asOf))(pass(options))
        : Effect.withClock(pass(options), stoppedClock(options.asOf))

    /**
     * Passes forever. A failed pass (the store is down) is retried with backoff up to 30 s, so an outage neither
     * stops the worker nor floods the log; a defect is logged and the next pass runs.
     */
    const worker: Effect.Effect<never> = runOnce().pipe(
      Effect.retry(Schedule.exponential("500 millis").pipe(Schedule.either(Schedule.spaced("30 seconds")))),
      Effect.catchAllCause((cause) => Effect.logError("Billing pass failed", cause)),
      Effect.repeat(Schedule.spaced(interval)),
      Effect.zipRight(Effect.never),
      Effect.withSpan("Billing.worker")
    )

    return { runOnce, worker } as const
  }),
  dependencies: [Checkout.Default, Payments.Default, Renewals.Default]
}) {}

/**
 * Background work: expire sessions past their 24 hours and settle `processing` charges (renewals and retries join
 * in the subscriptions issue). `runOnce` does one pass (`fils billing run`); `worker` runs passes forever inside
 * `fils serve`. Expiry claims its rows with SKIP LOCKED; settlement may ask about the same charge from two servers,
 * but recording it re-checks the payment's state under a row lock, so it is recorded once.
 */
import { Duration, Effect, Schedule } from "effect"
import { Checkout } from "./Checkout.js"
import { Payments } from "./Payments.js"

export interface BillingReport {
  readonly expired_sessions: number
  readonly settled_payments: number
}

/** How often a server looks for due work. Settlements of test cards take about 2 s. */
export const interval = Duration.seconds(1)

export class Billing extends Effect.Service<Billing>()("fils/Billing", {
  effect: Effect.gen(function*() {
    const checkout = yield* Checkout
    const payments = yield* Payments

    const runOnce = Effect.fn("Billing.runOnce")(function*() {
      const expired = yield* checkout.expireDue()
      const settled = yield* payments.settleDue()
      return { expired_sessions: expired, settled_payments: settled } satisfies BillingReport
    })

    /**
     * Passes forever. A failed pass (the store is down) is logged and retried with backoff up to 30 s, so an
     * outage neither stops the worker nor floods the log; a defect is logged and the next pass runs.
     */
    const worker: Effect.Effect<never> = runOnce().pipe(
      Effect.retry(Schedule.exponential("500 millis").pipe(Schedule.either(Schedule.spaced("30 seconds")))),
      Effect.catchAllCause((cause) => Effect.logError("Billing pass failed", cause)),
      Effect.repeat(Schedule.spaced(interval)),
      Effect.zipRight(Effect.never),
      Effect.withSpan("Billing.worker")
    )

    return { runOnce, worker } as const
  })
}) {}

/**
 * The credit a plan change gives for the old plan, worked out by the tests on their own (docs/subscriptions.md,
 * "Changing the plan"): its unused whole seconds (`prorated_immediately`, rounded half up), its price
 * (`difference_immediately`) or nothing, of what its period was charged (`periodBase`), never more than its price.
 */
import { DateTime } from "effect"
import type * as PlanPolicy from "../../src/domain/PlanPolicy.js"
import type * as Subscription from "../../src/domain/Subscription.js"

export const oldPlanCredit = (
  s: Subscription.Subscription,
  mode: PlanPolicy.ProrationBillingMode,
  periodBase: number,
  at: DateTime.Utc
): number => {
  const end = DateTime.toEpochMillis(s.next_billing_date)
  const secondsLeft = Math.floor((end - DateTime.toEpochMillis(at)) / 1_000)
  const length = Math.floor((end - DateTime.toEpochMillis(s.current_period_start)) / 1_000)
  const base = Math.min(periodBase, s.recurring_amount)
  return mode === "prorated_immediately"
    ? Number((2n * BigInt(base) * BigInt(secondsLeft) + BigInt(length)) / (2n * BigInt(length)))
    : mode === "difference_immediately"
    ? base
    : 0
}

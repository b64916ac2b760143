/**
 * How a subscription's plan change is billed and when it takes effect (docs/subscriptions.md, "Changing the plan"):
 * the modes a change request names, and the defaults a recurring product may carry for upgrades and downgrades.
 * Their own module because both the catalog (`Product`) and the pricing of a change (`PlanChange`) name them.
 */
import { Schema } from "effect"

/**
 * `prorated_immediately`: the new plan's first period now, less the unused time of the old one (credited);
 * `full_immediately`: the new plan's first period now, in full; `difference_immediately`: the new plan's price less
 * the old one's, now; `do_not_bill`: no charge, the billing date stays. The three immediate modes start a new
 * period on the change date.
 */
export const ProrationBillingMode = Schema.Literal(
  "prorated_immediately",
  "full_immediately",
  "difference_immediately",
  "do_not_bill"
).annotations({
  identifier: "ProrationBillingMode",
  description: "prorated_immediately, full_immediately and difference_immediately charge now and start a new period " +
    "on the change date; do_not_bill charges nothing and keeps the billing date."
})
export type ProrationBillingMode = typeof ProrationBillingMode.Type

/** `immediately`, or `next_billing_date`: scheduled, applied by the renewal at that date. */
export const EffectiveAt = Schema.Literal("immediately", "next_billing_date").annotations({
  identifier: "PlanChangeEffectiveAt",
  description: "immediately, or next_billing_date (scheduled: the renewal at that date applies it and charges the new plan)."
})
export type EffectiveAt = typeof EffectiveAt.Type

/** A declined immediate charge: keep the old plan (`prevent_change`), or change and go `on_hold` (`apply_change`). */
export const OnPaymentFailure = Schema.Literal("prevent_change", "apply_change").annotations({
  identifier: "PlanChangeOnPaymentFailure",
  description: "prevent_change: a declined charge changes nothing; apply_change (default): the plan changes and the " +
    "subscription goes on_hold, retried as a failed renewal is."
})
export type OnPaymentFailure = typeof OnPaymentFailure.Type

/** How a change in one direction is made when the request does not say. */
export const PlanChangeRule = Schema.Struct({
  proration_billing_mode: ProrationBillingMode,
  effective_at: EffectiveAt
}).annotations({ identifier: "PlanChangeRule" })
export type PlanChangeRule = typeof PlanChangeRule.Type

/**
 * A recurring product's defaults for changes to it: `upgrade` when its price per day is higher than the plan left,
 * `downgrade` otherwise.
 */
export const PlanChangePolicy = Schema.Struct({
  upgrade: PlanChangeRule,
  downgrade: PlanChangeRule
}).annotations({
  identifier: "PlanChangePolicy",
  description: "The modes a change to this product uses when the request leaves them out: upgrade when its price " +
    "per day is higher than the plan's it replaces, downgrade otherwise."
})
export type PlanChangePolicy = typeof PlanChangePolicy.Type

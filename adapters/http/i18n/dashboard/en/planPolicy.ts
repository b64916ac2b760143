/**
 * Plan changes' billing modes and timing in English, as a product's form and a plan change's form offer them, and a
 * product's plan change fields (see `PlanPolicyForm.ts`). The modes' codes (`prorated_immediately`) are the API's.
 */
import type { EffectiveAt, ProrationBillingMode } from "../../../../../src/domain/PlanPolicy.js"

export const planPolicy = {
  /** What each billing mode charges, after the mode's code. */
  modes: {
    prorated_immediately: "the new plan now, less the old plan's unused time",
    full_immediately: "the new plan now, in full",
    difference_immediately: "the new plan now, less the old plan's price",
    do_not_bill: "nothing now; the billing date stays"
  } satisfies Record<ProrationBillingMode, string>,
  /** When a change takes effect, after its code. */
  when: {
    immediately: "now",
    next_billing_date: "at the next billing date (the renewal then charges the new plan)"
  } satisfies Record<EffectiveAt, string>,
  /** A code with its words, as a select offers it or a page states it: `do_not_bill: nothing now; …`. */
  coded: (code: string, words: string) => `${code}: ${words}`,
  /** A product's policy on its page: each rule as its two codes. */
  noPolicy: "none: each change names its billing mode",
  policy: (upgrade: string, downgrade: string) => `upgrades ${upgrade}; downgrades ${downgrade}`,
  form: {
    legend: "Plan changes (recurring products)",
    help:
      "How a subscription's change to this product is billed when the change does not say: an upgrade costs more per day than the plan it replaces, a downgrade does not. None: each change names its billing mode.",
    upgradeCharges: "An upgrade to it charges",
    upgradeWhen: "An upgrade takes effect",
    downgradeCharges: "A downgrade to it charges",
    downgradeWhen: "A downgrade takes effect",
    none: "None (no policy)",
    offeredInPortal: "Offered in the customer portal as a plan to change to"
  },
  refusals: {
    policyNeedsRecurring: "Only a recurring product has a plan change policy: choose a billing interval, or None",
    portalNeedsRecurring: "Only a recurring product is offered in the portal: choose a billing interval, or untick this"
  }
}

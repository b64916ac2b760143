/**
 * Plan changes in the dashboard's words (docs/subscriptions.md, "Changing the plan"): the billing modes and when a
 * change takes effect, as the change form and a recurring product's form offer them; and the product form's plan
 * change fields (`plan_change_policy`, `offered_in_portal`), decoded by the API's own schema with each refusal next
 * to its field. A field is taken as chosen or refused: a policy half chosen is refused, never completed.
 */
import * as UrlParams from "@effect/platform/UrlParams"
import { Either, Option, ParseResult } from "effect"
import type { EffectiveAt, PlanChangePolicy, PlanChangeRule, ProrationBillingMode } from "../../../src/domain/PlanPolicy.js"
import { type Billing, checkPlanChangeSettings, type Product } from "../../../src/domain/Product.js"
import { html } from "../html/Html.js"
import { checkboxField, type FieldErrors, fieldErrorsOf, selectField } from "./Fields.js"

/** What each billing mode charges, after the mode's name. */
export const modeWords: Record<ProrationBillingMode, string> = {
  prorated_immediately: "the new plan now, less the old plan's unused time",
  full_immediately: "the new plan now, in full",
  difference_immediately: "the new plan now, less the old plan's price",
  do_not_bill: "nothing now; the billing date stays"
}

/** When a change takes effect. */
export const whenWords: Record<EffectiveAt, string> = {
  immediately: "now",
  next_billing_date: "at the next billing date (the renewal then charges the new plan)"
}

type Options = ReadonlyArray<readonly [string, string]>

/** The modes as a select offers them, after a first option `empty` (value ""). */
export const modeOptions = (empty: string): Options => [["", empty], ...Object.entries(modeWords).map(([mode, words]) => [mode, `${mode}: ${words}`] as const)]
export const whenOptions = (empty: string): Options => [["", empty], ...Object.entries(whenWords).map(([when, words]) => [when, `${when}: ${words}`] as const)]

const ruleText = (rule: PlanChangeRule) => `${rule.proration_billing_mode}, ${rule.effective_at}`

/** A product's policy in words, for its page. */
export const policyText = (policy: PlanChangePolicy | null) =>
  policy === null
    ? "none: each change names its billing mode"
    : `upgrades ${ruleText(policy.upgrade)}; downgrades ${ruleText(policy.downgrade)}`

// The product form ----------------------------------------------------------------------------------------------------

/** The product form's plan change fields, as shown or as typed (`offered_in_portal` is `on` when ticked). */
export interface PlanChangeForm {
  readonly upgrade_mode: string
  readonly upgrade_when: string
  readonly downgrade_mode: string
  readonly downgrade_when: string
  readonly offered_in_portal: string
}

/** Sent with the fields, so that an unticked box (which a browser does not send) is told from a form without it. */
const marker = "plan_change_settings"

export const planChangeForm = (p: Product): PlanChangeForm => ({
  upgrade_mode: p.plan_change_policy?.upgrade.proration_billing_mode ?? "",
  upgrade_when: p.plan_change_policy?.upgrade.effective_at ?? "",
  downgrade_mode: p.plan_change_policy?.downgrade.proration_billing_mode ?? "",
  downgrade_when: p.plan_change_policy?.downgrade.effective_at ?? "",
  offered_in_portal: p.offered_in_portal ? "on" : ""
})

export const newPlanChange: PlanChangeForm = { upgrade_mode: "", upgrade_when: "", downgrade_mode: "", downgrade_when: "", offered_in_portal: "" }

export const typedPlanChange = (field: (name: string) => string): PlanChangeForm => ({
  upgrade_mode: field("upgrade_mode"),
  upgrade_when: field("upgrade_when"),
  downgrade_mode: field("downgrade_mode"),
  downgrade_when: field("downgrade_when"),
  offered_in_portal: field("offered_in_portal")
})

/**
 * The fields as the API's: none chosen is no policy (`null`); each chosen one is passed on as typed, so that the
 * schema refuses a rule half chosen or a value it does not know. A post without the fields leaves both out.
 */
export const planChangeInput = (t: PlanChangeForm, params: UrlParams.UrlParams): Record<string, unknown> => {
  if (Option.isNone(UrlParams.getFirst(params, marker))) return {}
  const rule = (mode: string, when: string) =>
    mode === "" && when === ""
      ? undefined
      : { ...(mode === "" ? {} : { proration_billing_mode: mode }), ...(when === "" ? {} : { effective_at: when }) }
  const upgrade = rule(t.upgrade_mode, t.upgrade_when)
  const downgrade = rule(t.downgrade_mode, t.downgrade_when)
  return {
    plan_change_policy: upgrade === undefined && downgrade === undefined
      ? null
      : { ...(upgrade === undefined ? {} : { upgrade }), ...(downgrade === undefined ? {} : { downgrade }) },
    offered_in_portal: t.offered_in_portal === "" ? false : t.offered_in_portal === "on" ? true : t.offered_in_portal
  }
}

/** A decode's issues about the plan change fields, each next to its field. */
export const planChangeErrors = (error: ParseResult.ParseError): FieldErrors =>
  fieldErrorsOf(ParseResult.ArrayFormatter.formatErrorSync(error), (path) =>
    path[0] === "offered_in_portal"
      ? "offered_in_portal"
      : path[0] === "plan_change_policy"
      ? `${path[1] === "downgrade" ? "downgrade" : "upgrade"}_${path[2] === "effective_at" ? "when" : "mode"}`
      : undefined)

/** The settings against the product's billing (the rule is the domain's: only a recurring product has them). */
export const billingErrors = (
  billing: Billing,
  decoded: { readonly plan_change_policy?: PlanChangePolicy | null | undefined; readonly offered_in_portal?: boolean | undefined }
): FieldErrors => {
  const settings = { plan_change_policy: decoded.plan_change_policy ?? null, offered_in_portal: decoded.offered_in_portal ?? false }
  if (Either.isRight(checkPlanChangeSettings(billing, settings))) return {}
  return {
    ...(settings.plan_change_policy === null ? {} : { upgrade_mode: "Only a recurring product has a plan change policy: choose a billing interval, or None" }),
    ...(settings.offered_in_portal ? { offered_in_portal: "Only a recurring product is offered in the portal: choose a billing interval, or untick this" } : {})
  }
}

/** The plan change fields of a product form. */
export const planChangeControls = (shown: PlanChangeForm, errors: FieldErrors) =>
  html`<fieldset><legend>Plan changes (recurring products)</legend><input type="hidden" name="${marker}" value="1">
<p class="muted">How a subscription's change to this product is billed when the change does not say: an upgrade costs more per day than the plan it replaces, a downgrade does not. None: each change names its billing mode.</p>
${selectField({ name: "upgrade_mode", label: "An upgrade to it charges", value: shown.upgrade_mode, options: modeOptions("None (no policy)"), errors })}
${selectField({ name: "upgrade_when", label: "An upgrade takes effect", value: shown.upgrade_when, options: whenOptions("None (no policy)"), errors })}
${selectField({ name: "downgrade_mode", label: "A downgrade to it charges", value: shown.downgrade_mode, options: modeOptions("None (no policy)"), errors })}
${selectField({ name: "downgrade_when", label: "A downgrade takes effect", value: shown.downgrade_when, options: whenOptions("None (no policy)"), errors })}
${checkboxField({ name: "offered_in_portal", label: "Offered in the customer portal as a plan to change to", checked: shown.offered_in_portal === "on", errors })}
</fieldset>`

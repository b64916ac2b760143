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
import type { DashboardCatalogue } from "../i18n/dashboard/Catalogues.js"
import { checkboxField, type FieldErrors, fieldErrorsOf, selectField } from "./Fields.js"

type Options = ReadonlyArray<readonly [string, string]>
type Words = { readonly t: DashboardCatalogue }

/** A billing mode, and when a change takes effect, by its code and what it means. */
export const modeText = (f: Words, mode: ProrationBillingMode) => f.t.planPolicy.coded(mode, f.t.planPolicy.modes[mode])
export const whenText = (f: Words, when: EffectiveAt) => f.t.planPolicy.coded(when, f.t.planPolicy.when[when])

/** The modes as a select offers them, after a first option `empty` (value ""). */
export const modeOptions = (f: Words, empty: string): Options => [
  ["", empty],
  ...Object.keys(f.t.planPolicy.modes).map((mode) => [mode, modeText(f, mode as ProrationBillingMode)] as const)
]
export const whenOptions = (f: Words, empty: string): Options => [
  ["", empty],
  ...Object.keys(f.t.planPolicy.when).map((when) => [when, whenText(f, when as EffectiveAt)] as const)
]

const ruleText = (rule: PlanChangeRule) => `${rule.proration_billing_mode}, ${rule.effective_at}`

/** A product's policy in words, for its page. */
export const policyText = (f: Words, policy: PlanChangePolicy | null) =>
  policy === null ? f.t.planPolicy.noPolicy : f.t.planPolicy.policy(ruleText(policy.upgrade), ruleText(policy.downgrade))

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
  f: Words,
  billing: Billing,
  decoded: { readonly plan_change_policy?: PlanChangePolicy | null | undefined; readonly offered_in_portal?: boolean | undefined }
): FieldErrors => {
  const settings = { plan_change_policy: decoded.plan_change_policy ?? null, offered_in_portal: decoded.offered_in_portal ?? false }
  if (Either.isRight(checkPlanChangeSettings(billing, settings))) return {}
  return {
    ...(settings.plan_change_policy === null ? {} : { upgrade_mode: f.t.planPolicy.refusals.policyNeedsRecurring }),
    ...(settings.offered_in_portal ? { offered_in_portal: f.t.planPolicy.refusals.portalNeedsRecurring } : {})
  }
}

/** The plan change fields of a product form; `errors` already in the page's language. */
export const planChangeControls = (f: Words, shown: PlanChangeForm, errors: FieldErrors) => {
  const t = f.t.planPolicy.form
  return html`<fieldset><legend>${t.legend}</legend><input type="hidden" name="${marker}" value="1">
<p class="muted">${t.help}</p>
${selectField({ name: "upgrade_mode", label: t.upgradeCharges, value: shown.upgrade_mode, options: modeOptions(f, t.none), errors })}
${selectField({ name: "upgrade_when", label: t.upgradeWhen, value: shown.upgrade_when, options: whenOptions(f, t.none), errors })}
${selectField({ name: "downgrade_mode", label: t.downgradeCharges, value: shown.downgrade_mode, options: modeOptions(f, t.none), errors })}
${selectField({ name: "downgrade_when", label: t.downgradeWhen, value: shown.downgrade_when, options: whenOptions(f, t.none), errors })}
${checkboxField({ name: "offered_in_portal", label: t.offeredInPortal, checked: shown.offered_in_portal === "on", errors })}
</fieldset>`
}

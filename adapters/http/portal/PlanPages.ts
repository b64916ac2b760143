/**
 * The customer portal's plan change pages (docs/portal.md, "Changing the plan"): the plans the merchant offers there,
 * and the preview of a change (what is charged today, what changes, and when) whose confirmation posts its quote, so
 * the customer pays exactly what they were shown. The customer chooses a plan and a quantity, never how it is billed:
 * that is the product's policy (`PlanChange.portalRequest`).
 */
import type { PlanChangePreview } from "../../../src/application/PlanChanges.js"
import type { BillingInterval, Product } from "../../../src/domain/Product.js"
import * as Subscription from "../../../src/domain/Subscription.js"
import { onceField, onceToken } from "../html/Forms.js"
import { html, raw } from "../html/Html.js"
import { isolate } from "../i18n/Messages.js"
import { cardText, csrfField, day, type Frame, heading, layout, money } from "./Pages.js"

const every = (frame: Frame, plan: { readonly billing_interval: BillingInterval; readonly interval_count: number }) =>
  frame.lang.t.every(plan.billing_interval, plan.interval_count)

const planText = (
  frame: Frame,
  plan: Pick<Subscription.Plan, "name" | "quantity" | "recurring_amount" | "billing_interval" | "interval_count">,
  currency: string
) => html`<bdi>${plan.name}</bdi>${plan.quantity > 1 ? html` × ${plan.quantity}` : ""}${frame.lang.t.comma}${money(frame, plan.recurring_amount, currency)} ${every(frame, plan)}`

/** Why the subscription cannot change plan now, in the customer's words (the rule is `PlanChange.changeRefusal`). */
const refusalText = (frame: Frame, s: Subscription.Subscription) => {
  const { t } = frame.lang
  return s.scheduled_change !== null
    ? t.portal.refusalScheduled(isolate(frame.lang, s.scheduled_change.plan.name), day(frame, s.scheduled_change.effective_at))
    : s.pending_change !== null
    ? t.portal.refusalPending
    : s.status === "on_hold"
    ? t.portal.refusalOnHold
    : t.portal.refusalEnded
}

const back = (frame: Frame) => html`<footer class="no-print"><a href="${frame.base}">${frame.lang.t.portal.back}</a></footer>`

export const plansPage = (
  frame: Frame,
  props: {
    readonly businessName: string
    readonly livemode: boolean
    readonly subscription: Subscription.Subscription
    readonly offered: ReadonlyArray<Product>
    readonly canChange: boolean
    readonly values: { readonly product_id: string; readonly quantity: string }
    readonly errors: Readonly<Record<string, string>>
    readonly alert?: string | undefined
  }
) => {
  const { t } = frame.lang
  const s = props.subscription
  const invalid = (name: string) => (props.errors[name] === undefined ? "" : raw(` aria-invalid="true" aria-describedby="${name}-error"`))
  const error = (name: string) => (props.errors[name] === undefined ? "" : html`<p class="error" id="${name}-error">${props.errors[name]}</p>`)
  return layout(
    t.portal.planTitle(props.businessName),
    frame,
    html`${heading(frame, { businessName: props.businessName, livemode: props.livemode, supportEmail: null })}
<h2>${t.portal.changeYourPlan}</h2>
<p class="muted">${t.portal.planNow(planText(frame, s, s.currency))}</p>
${props.alert === undefined ? "" : html`<div class="alert" role="alert">${props.alert}</div>`}
${
      !props.canChange
        ? html`<div class="alert" role="status">${refusalText(frame, s)}</div>`
        : props.offered.length === 0
        ? html`<p>${t.portal.noPlans}</p>`
        : html`<form class="wide" method="post" action="${frame.base}/subscriptions/${s.subscription_id}/plan/preview" novalidate>${csrfField(frame)}
<fieldset class="plans"${invalid("product_id")}><legend>${t.portal.plans}</legend>${
          props.offered.map((p) =>
            html`<label><input type="radio" name="product_id" value="${p.product_id}"${raw(p.product_id === props.values.product_id ? " checked" : "")}>
<span><strong><bdi>${p.name}</bdi></strong>${p.product_id === s.product_id ? html` <small>${t.portal.yourPlanNow}</small>` : ""}<br>${money(frame, p.price, p.currency)} ${
              every(frame, { billing_interval: p.billing_interval ?? "month", interval_count: p.interval_count ?? 1 })
            }${p.description === "" ? "" : html`<br><small><bdi>${p.description}</bdi></small>`}</span></label>`
          )
        }</fieldset>${error("product_id")}
<label for="quantity">${t.portal.quantity}</label><input id="quantity" name="quantity" inputmode="numeric" autocomplete="off" value="${props.values.quantity}"${invalid("quantity")}>${error("quantity")}
<button type="submit">${t.portal.review}</button>
</form>
<p><small>${t.portal.seeFirst}</small></p>`
    }
${back(frame)}`
  )
}

/** The preview: what is charged today, what changes and when, and the form that confirms it at its quote. */
export const previewPage = (
  frame: Frame,
  props: {
    readonly businessName: string
    readonly livemode: boolean
    readonly subscription: Subscription.Subscription
    readonly preview: PlanChangePreview
    readonly choice: { readonly product_id: string; readonly quantity: string }
    readonly alert?: string | undefined
  }
) => {
  const { t } = frame.lang
  const s = props.subscription
  const { immediate_charge: charge, new_plan: next, terms } = props.preview
  const currency = s.currency
  const amount = (fils: number) => money(frame, fils, currency)
  const summary = charge.summary
  const scheduled = terms.effective_at === "next_billing_date"
  const plan = scheduled && next.scheduled_change !== null ? next.scheduled_change.plan : next
  const unused = charge.line_items.find((l) => l.type === "unused_time")
  const newLine = charge.line_items.find((l) => l.type === "new_plan")
  const button = summary.total_amount > 0 ? t.portal.confirmPay(amount(summary.total_amount)) : t.portal.confirmChange
  return layout(
    t.portal.reviewTitle(props.businessName),
    frame,
    html`${heading(frame, { businessName: props.businessName, livemode: props.livemode, supportEmail: null })}
<h2>${t.portal.reviewHeading}</h2>
${props.alert === undefined ? "" : html`<div class="alert" role="alert">${props.alert}</div>`}
<div class="receipt"><dl>
<dt>${t.portal.yourPlan}</dt><dd>${planText(frame, s, currency)}</dd>
<dt>${t.portal.newPlan}</dt><dd>${planText(frame, plan, currency)}</dd>
<dt>${t.portal.when}</dt><dd>${scheduled ? t.portal.atNextPayment(day(frame, charge.effective_at)) : t.portal.today}</dd>
</dl></div>
<h3>${t.portal.chargedToday}</h3>
${
      newLine === undefined
        ? html`<p data-testid="charged-today">${t.portal.nothingCharged(amount(0))}</p>`
        : html`<div class="scroll"><table aria-label="${t.portal.chargedToday}"><tbody>
<tr><td><bdi>${newLine.name}</bdi>${newLine.quantity > 1 ? html` × ${newLine.quantity}` : ""}${
          t.portal.firstPeriod(plan.interval_count === 1 ? plan.billing_interval : null)
        }</td><td class="amount">${amount(newLine.amount)}</td></tr>
${
          charge.discounts.filter((d) => d.amount_off > 0).map((d) =>
            html`<tr class="discount"><td>${t.checkout.discount(d.code)}${next.tax_lines?.prices_include_vat === false ? t.portal.offBeforeVat : ""}</td><td class="amount">−${amount(d.amount_off)}</td></tr>`
          )
        }
${
          summary.credit_applied === 0
            ? ""
            : html`<tr><td>${
              t.portal.creditFor({
                of: unused === undefined ? null : terms.proration_billing_mode === "difference_immediately" ? "price" : "unused",
                name: isolate(frame.lang, unused?.name ?? ""),
                balance: summary.credit_applied > (unused?.amount ?? 0)
              })
            }</td><td class="amount">−${amount(summary.credit_applied)}</td></tr>`
        }
<tr class="total"><td>${t.portal.totalToday}${summary.tax === null ? "" : html` <small>${t.portal.includingVat(amount(summary.tax))}</small>`}</td><td class="amount" data-testid="charged-today">${amount(summary.total_amount)}</td></tr>
</tbody></table></div>`
    }
<div class="receipt"><dl>
${
      scheduled
        ? html`<dt>${t.portal.fromThen}</dt><dd>${t.portal.fromThenValue(amount(plan.recurring_amount), every(frame, plan), day(frame, charge.effective_at))}</dd>`
        : html`<dt>${t.portal.nextPaymentLabel}</dt><dd>${
          Subscription.renewalCharge(next).amount === plan.recurring_amount
            ? t.portal.nextPaymentThen(amount(plan.recurring_amount), day(frame, next.next_billing_date), every(frame, plan))
            : t.portal.nextPaymentLessCredit({
              amount: amount(Subscription.renewalCharge(next).amount),
              date: day(frame, next.next_billing_date),
              recurring: amount(plan.recurring_amount),
              every: every(frame, plan)
            })
        }</dd>`
    }
${summary.credit_remaining > 0 ? html`<dt>${t.portal.creditLeft}</dt><dd>${t.portal.creditLeftValue(amount(summary.credit_remaining))}</dd>` : ""}
<dt>${t.portal.cardLabel}</dt><dd>${cardText(frame, s.payment_method)}</dd>
</dl></div>
<form class="wide" method="post" action="${frame.base}/subscriptions/${s.subscription_id}/plan">${csrfField(frame)}
<input type="hidden" name="${onceField}" value="${onceToken()}">
<input type="hidden" name="product_id" value="${props.choice.product_id}"><input type="hidden" name="quantity" value="${props.choice.quantity}">
<input type="hidden" name="quote_id" value="${props.preview.quote_id}">
<button type="submit">${button}</button>
</form>
<p><small>${
      summary.total_amount === 0
        ? t.checkout.nothingToday
        : terms.on_payment_failure === "prevent_change"
        ? t.portal.declinedNoChange
        : ""
    }</small></p>
<footer class="no-print"><a href="${frame.base}/subscriptions/${s.subscription_id}/plan">${t.portal.chooseAnother}</a><a href="${frame.base}">${t.portal.back}</a></footer>`
  )
}

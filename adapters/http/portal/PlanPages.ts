/**
 * The customer portal's plan change pages (docs/portal.md, "Changing the plan"): the plans the merchant offers there,
 * and the preview of a change (what is charged today, what changes, and when) whose confirmation posts its quote, so
 * the customer pays exactly what they were shown. The customer chooses a plan and a quantity, never how it is billed:
 * that is the product's policy (`PlanChange.portalRequest`).
 */
import type { PlanChangePreview } from "../../../src/application/PlanChanges.js"
import type { Product } from "../../../src/domain/Product.js"
import * as Subscription from "../../../src/domain/Subscription.js"
import { onceField, onceToken } from "../html/Forms.js"
import { html, raw } from "../html/Html.js"
import { cardText, csrfField, day, type Frame, heading, layout, money } from "./Pages.js"

const every = (plan: { readonly billing_interval: string; readonly interval_count: number }) =>
  plan.interval_count === 1 ? `every ${plan.billing_interval}` : `every ${plan.interval_count} ${plan.billing_interval}s`

const planText = (plan: Pick<Subscription.Plan, "name" | "quantity" | "recurring_amount" | "billing_interval" | "interval_count">, currency: string) =>
  html`${plan.name}${plan.quantity > 1 ? html` × ${plan.quantity}` : ""}, ${money(plan.recurring_amount, currency)} ${every(plan)}`

/** Why the subscription cannot change plan now, in the customer's words (the rule is `PlanChange.changeRefusal`). */
const refusalText = (s: Subscription.Subscription) =>
  s.scheduled_change !== null
    ? html`Your plan already changes to ${s.scheduled_change.plan.name} on ${day(s.scheduled_change.effective_at)}. To choose another, keep your current plan first.`
    : s.pending_change !== null
    ? "A change of your plan is waiting for its payment. Please try again in a moment."
    : s.status === "on_hold"
    ? "Your last payment is overdue: update your card to pay it, then you can change your plan."
    : "This subscription has ended, so its plan cannot change."

const back = (frame: Frame) => html`<footer class="no-print"><a href="${frame.base}">← Back to your account</a></footer>`

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
  const s = props.subscription
  const invalid = (name: string) => (props.errors[name] === undefined ? "" : raw(` aria-invalid="true" aria-describedby="${name}-error"`))
  const error = (name: string) => (props.errors[name] === undefined ? "" : html`<p class="error" id="${name}-error">${props.errors[name]}</p>`)
  return layout(
    `Change your plan: ${props.businessName}`,
    frame,
    html`${heading({ businessName: props.businessName, livemode: props.livemode, supportEmail: null })}
<h2>Change your plan</h2>
<p class="muted">Now: ${planText(s, s.currency)}.</p>
${props.alert === undefined ? "" : html`<div class="alert" role="alert">${props.alert}</div>`}
${
      !props.canChange
        ? html`<div class="alert" role="status">${refusalText(s)}</div>`
        : props.offered.length === 0
        ? html`<p>No other plans are offered here. Please contact us to change your plan.</p>`
        : html`<form class="wide" method="post" action="${frame.base}/subscriptions/${s.subscription_id}/plan/preview" novalidate>${csrfField(frame)}
<fieldset class="plans"${invalid("product_id")}><legend>Plans</legend>${
          props.offered.map((p) =>
            html`<label><input type="radio" name="product_id" value="${p.product_id}"${raw(p.product_id === props.values.product_id ? " checked" : "")}>
<span><strong>${p.name}</strong>${p.product_id === s.product_id ? html` <small>(your plan now)</small>` : ""}<br>${money(p.price, p.currency)} ${
              every({ billing_interval: p.billing_interval ?? "month", interval_count: p.interval_count ?? 1 })
            }${p.description === "" ? "" : html`<br><small>${p.description}</small>`}</span></label>`
          )
        }</fieldset>${error("product_id")}
<label for="quantity">Quantity</label><input id="quantity" name="quantity" inputmode="numeric" autocomplete="off" value="${props.values.quantity}"${invalid("quantity")}>${error("quantity")}
<button type="submit">Review the change</button>
</form>
<p><small>You see what you will pay before anything changes.</small></p>`
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
  const s = props.subscription
  const { immediate_charge: charge, new_plan: next, terms } = props.preview
  const currency = s.currency
  const summary = charge.summary
  const scheduled = terms.effective_at === "next_billing_date"
  const plan = scheduled && next.scheduled_change !== null ? next.scheduled_change.plan : next
  const unused = charge.line_items.find((l) => l.type === "unused_time")
  const newLine = charge.line_items.find((l) => l.type === "new_plan")
  const button = summary.total_amount > 0 ? `Confirm and pay ${money(summary.total_amount, currency)}` : "Confirm the change"
  return layout(
    `Review your new plan: ${props.businessName}`,
    frame,
    html`${heading({ businessName: props.businessName, livemode: props.livemode, supportEmail: null })}
<h2>Review your new plan</h2>
${props.alert === undefined ? "" : html`<div class="alert" role="alert">${props.alert}</div>`}
<div class="receipt"><dl>
<dt>Your plan now</dt><dd>${planText(s, currency)}</dd>
<dt>Your new plan</dt><dd>${planText(plan, currency)}</dd>
<dt>When</dt><dd>${scheduled ? html`On ${day(charge.effective_at)}, at your next payment` : "Today"}</dd>
</dl></div>
<h3>Charged today</h3>
${
      newLine === undefined
        ? html`<p data-testid="charged-today">Nothing: ${money(0, currency)}.</p>`
        : html`<div class="scroll"><table aria-label="Charged today"><tbody>
<tr><td>${newLine.name}${newLine.quantity > 1 ? html` × ${newLine.quantity}` : ""}, its first ${plan.interval_count === 1 ? plan.billing_interval : "period"}</td><td class="amount">${money(newLine.amount, currency)}</td></tr>
${
          charge.discounts.filter((d) => d.amount_off > 0).map((d) =>
            html`<tr class="discount"><td>Discount ${d.code}${next.tax_lines?.prices_include_vat === false ? " (off the price before VAT)" : ""}</td><td class="amount">−${money(d.amount_off, currency)}</td></tr>`
          )
        }
${
          summary.credit_applied === 0
            ? ""
            : html`<tr><td>Credit${unused === undefined ? "" : html` for ${terms.proration_billing_mode === "difference_immediately" ? "the price" : "the unused part"} of ${unused.name}`}${
              summary.credit_applied > (unused?.amount ?? 0) ? " and your credit balance" : ""
            }</td><td class="amount">−${money(summary.credit_applied, currency)}</td></tr>`
        }
<tr class="total"><td>Total today${summary.tax === null ? "" : html` <small>(including VAT ${money(summary.tax, currency)})</small>`}</td><td class="amount" data-testid="charged-today">${money(summary.total_amount, currency)}</td></tr>
</tbody></table></div>`
    }
<div class="receipt"><dl>
${
      scheduled
        ? html`<dt>From then</dt><dd>${money(plan.recurring_amount, currency)} ${every(plan)}, from ${day(charge.effective_at)}</dd>`
        : html`<dt>Next payment</dt><dd>${
          Subscription.renewalCharge(next).amount === plan.recurring_amount
            ? html`${money(plan.recurring_amount, currency)} on ${day(next.next_billing_date)}, then ${every(plan)}`
            : html`${money(Subscription.renewalCharge(next).amount, currency)} on ${day(next.next_billing_date)} (less your credit), then ${money(plan.recurring_amount, currency)} ${every(plan)}`
        }</dd>`
    }
${summary.credit_remaining > 0 ? html`<dt>Credit left</dt><dd>${money(summary.credit_remaining, currency)}, used for your next payments</dd>` : ""}
<dt>Card</dt><dd>${cardText(s.payment_method)}</dd>
</dl></div>
<form class="wide" method="post" action="${frame.base}/subscriptions/${s.subscription_id}/plan">${csrfField(frame)}
<input type="hidden" name="${onceField}" value="${onceToken()}">
<input type="hidden" name="product_id" value="${props.choice.product_id}"><input type="hidden" name="quantity" value="${props.choice.quantity}">
<input type="hidden" name="quote_id" value="${props.preview.quote_id}">
<button type="submit">${button}</button>
</form>
<p><small>${
      summary.total_amount === 0
        ? "Nothing is charged today."
        : terms.on_payment_failure === "prevent_change"
        ? "If your card is declined, your plan does not change."
        : ""
    }</small></p>
<footer class="no-print"><a href="${frame.base}/subscriptions/${s.subscription_id}/plan">← Choose another plan</a><a href="${frame.base}">Back to your account</a></footer>`
  )
}

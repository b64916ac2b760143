/**
 * The dashboard's plan changes (docs/subscriptions.md, "Changing the plan"), from a subscription's page: a form (a
 * product among the mode's active recurring products, the quantity, the billing mode and when, left to the
 * product's policy unless chosen), a preview of what the change charges now and of the subscription after it, and
 * its confirmation, which posts the preview's quote: the change charges exactly what was shown, or is refused and
 * previewed again. The confirmation's one-time token is the change's idempotency key, so posted twice it changes and
 * charges once. A scheduled change is cancelled after a page that says what will happen. Every rule is the use case's
 * (`PlanChanges`); these pages say it. Changes need `write` (owners and admins) and go to the audit log.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import { PlanChanges, type PlanChangePreview } from "../../../src/application/PlanChanges.js"
import { Products } from "../../../src/application/Products.js"
import { Subscriptions } from "../../../src/application/Subscriptions.js"
import { can } from "../../../src/domain/DashboardUser.js"
import { parseId, SubscriptionId } from "../../../src/domain/Ids.js"
import * as PlanChange from "../../../src/domain/PlanChange.js"
import type { OnPaymentFailure } from "../../../src/domain/PlanPolicy.js"
import * as Subscription from "../../../src/domain/Subscription.js"
import { onceField, withFlash } from "../html/Forms.js"
import { html, type Raw } from "../html/Html.js"
import { describeDecodeError } from "../SchemaIssues.js"
import { type FieldErrors, fieldErrorsOf, selectField, textField } from "./Fields.js"
import type { Kit, Scope } from "./Kit.js"
import * as Pages from "./Pages.js"
import { modeOptions, modeWords, whenOptions, whenWords } from "./PlanPolicyForm.js"

const subscriptionIdOf = parseId(SubscriptionId)
const decodeRequest = Schema.decodeUnknownEither(PlanChange.PlanChangeRequest, { onExcessProperty: "error", errors: "all" })

/** The change form's fields, as shown or as typed. */
interface ChangeForm {
  readonly product_id: string
  readonly quantity: string
  readonly proration_billing_mode: string
  readonly effective_at: string
  readonly on_payment_failure: string
}
const formFields = ["product_id", "quantity", "proration_billing_mode", "effective_at", "on_payment_failure"] as const
const typedForm = (field: (name: string) => string): ChangeForm => ({
  product_id: field("product_id"),
  quantity: field("quantity"),
  proration_billing_mode: field("proration_billing_mode"),
  effective_at: field("effective_at"),
  on_payment_failure: field("on_payment_failure")
})

/**
 * The form as the API's request: a mode left empty is left out (the product's policy says it), everything else as
 * typed (a quantity that is not a whole number is refused by the schema, in its words).
 */
const requestOf = (t: ChangeForm, quoteId?: string) => ({
  product_id: t.product_id,
  quantity: /^[0-9]{1,9}$/.test(t.quantity) ? Number(t.quantity) : t.quantity,
  ...(t.proration_billing_mode === "" ? {} : { proration_billing_mode: t.proration_billing_mode }),
  ...(t.effective_at === "" ? {} : { effective_at: t.effective_at }),
  on_payment_failure: t.on_payment_failure,
  ...(quoteId === undefined ? {} : { quote_id: quoteId })
})

const fieldErrors = (error: ParseResult.ParseError): FieldErrors =>
  fieldErrorsOf(ParseResult.ArrayFormatter.formatErrorSync(error), (path) =>
    (formFields as ReadonlyArray<string>).includes(path[0] ?? "") ? path[0] : undefined)

/** A refusal from the use case next to the field it names first (`proration_billing_mode is required: …`). */
const refusalField = (message: string): FieldErrors => {
  const field = formFields.find((name) => message.startsWith(`${name} `) || message.startsWith(`${name}:`))
  return field === undefined ? {} : { [field]: message }
}

/** What a declined charge does, in short (the form's options) and in full (the preview). */
const failureOptions: ReadonlyArray<readonly [OnPaymentFailure, string]> = [
  ["apply_change", "apply_change: change; the subscription goes on hold"],
  ["prevent_change", "prevent_change: keep the current plan"]
]
const failureWords: Record<OnPaymentFailure, string> = {
  apply_change: "change anyway: the subscription goes on hold and its first period is retried as a failed renewal is",
  prevent_change: "keep the current plan: nothing changes but the failed payment"
}

const every = (plan: { readonly billing_interval: string; readonly interval_count: number }) =>
  `every ${plan.interval_count === 1 ? "" : `${plan.interval_count} `}${plan.billing_interval}${plan.interval_count === 1 ? "" : "s"}`
const planText = (plan: Pick<Subscription.Plan, "name" | "quantity" | "recurring_amount" | "billing_interval" | "interval_count">) =>
  `${plan.name} × ${plan.quantity}: ${Pages.money(plan.recurring_amount)} ${every(plan)}`

/** Whether the plan's prices exclude VAT: a discount then comes off the price before VAT (docs/discounts.md). */
const beforeVat = (s: Subscription.Subscription) => s.tax_lines?.prices_include_vat === false

/** The subscription page's rows about plan changes: its credit, a scheduled change, a change waiting for its charge. */
export const planRows = (f: Pages.SignedFrame, s: Subscription.Subscription): Raw => {
  const path = `${Pages.modePath(f)}/subscriptions/${s.subscription_id}`
  const scheduled = s.scheduled_change
  return html`<tr><th>Credit balance</th><td>${Pages.money(s.credit_balance)}${s.credit_balance > 0 ? " (its next charges use it before the card)" : ""}</td></tr>
${
    scheduled === null
      ? ""
      : html`<tr><th>Scheduled change</th><td>To ${planText(scheduled.plan)}, on ${Pages.when(f, scheduled.effective_at)}${
        can(f.user.role, "write") ? html` · <a href="${path}/change-plan/scheduled/cancel">Cancel scheduled change</a>` : ""
      }</td></tr>`
  }${
    s.pending_change === null
      ? ""
      : html`<tr><th>Plan change</th><td>To ${planText(s.pending_change.plan)}, waiting for its charge <a href="${Pages.modePath(f)}/payments/${s.pending_change.payment_id}"><code>${s.pending_change.payment_id}</code></a></td></tr>`
  }`
}

/** The subscription page's "Change plan" link, for those who may and when the subscription can change plan. */
export const changePlanLink = (f: Pages.SignedFrame, s: Subscription.Subscription): Raw =>
  can(f.user.role, "write") && PlanChange.changeRefusal(s) === undefined
    ? html`<p><a href="${Pages.modePath(f)}/subscriptions/${s.subscription_id}/change-plan">Change plan</a></p>`
    : html``

export const planChangeRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const planChanges = yield* PlanChanges
    const products = yield* Products
    const subscriptions = yield* Subscriptions

    const subscriptionPath = (f: Pages.SignedFrame, s: Subscription.Subscription) => `${Pages.modePath(f)}/subscriptions/${s.subscription_id}`
    const forbidden = (f: Pages.SignedFrame, role: string) =>
      kit.page(403, Pages.forbiddenPage(f, `A ${role} cannot change subscriptions.`), f.nonce)
    const notFound = (f: Pages.SignedFrame) => kit.page(404, Pages.notFoundPage(f), f.nonce)

    /** The subscription the path names, in the scope; `undefined` when there is none. */
    const subscriptionOf = (scope: Scope) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* kit.param("id"))
        return id === undefined ? undefined : Either.getOrUndefined(yield* Effect.either(subscriptions.get(scope, id)))
      })

    /** The form; after a refusal, as typed with the reason and each field's own. */
    const formPage = (
      f: Pages.SignedFrame,
      scope: Scope,
      s: Subscription.Subscription,
      shown: ChangeForm,
      refused: { readonly error?: string; readonly errors?: FieldErrors } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const plans = (yield* products.list(scope, { status: "active", billing: "recurring", limit: 100 })).items
          .filter((p) => p.currency === s.currency)
        const errors = refused.errors ?? {}
        const cannot = PlanChange.changeRefusal(s)
        const options = [
          ["", "Choose a product"] as const,
          ...plans.map((p) =>
            [
              p.product_id,
              `${p.name}: ${Pages.money(p.price)} ${every({ billing_interval: p.billing_interval ?? "month", interval_count: p.interval_count ?? 1 })}${
                p.product_id === s.product_id ? " (its product now)" : ""
              }`
            ] as const
          )
        ]
        return kit.page(status, Pages.chrome(f, "Change plan", html`
${refused.error === undefined ? "" : html`<p class="alert" role="alert">${refused.error}</p>`}
<div class="card"><table><tr><th>Subscription</th><td><a href="${subscriptionPath(f, s)}"><code>${s.subscription_id}</code></a></td></tr>
<tr><th>Customer</th><td>${s.customer.email}</td></tr><tr><th>Plan now</th><td>${planText(s)}</td></tr>
<tr><th>Current period</th><td>${Pages.when(f, s.current_period_start)} to ${Pages.when(f, s.next_billing_date)}</td></tr>
<tr><th>Credit balance</th><td>${Pages.money(s.credit_balance)}</td></tr></table></div>
${
          cannot !== undefined
            ? html`<p class="alert" role="alert">${cannot.message}</p>`
            : html`<div class="card">${
              Pages.form(f, `${subscriptionPath(f, s)}/change-plan/preview`, html`
${selectField({ name: "product_id", label: "New product", value: shown.product_id, options, errors })}
${textField({ name: "quantity", label: "Quantity (1 to 1000)", value: shown.quantity, errors, attributes: `inputmode="numeric" autocomplete="off"` })}
${selectField({ name: "proration_billing_mode", label: "Billing mode", value: shown.proration_billing_mode, options: modeOptions("The new product's policy"), errors })}
${selectField({ name: "effective_at", label: "Takes effect", value: shown.effective_at, options: whenOptions("The new product's policy (else now)"), errors })}
${selectField({ name: "on_payment_failure", label: "If the card is declined", value: shown.on_payment_failure, options: failureOptions, errors })}
<p><button type="submit">Preview the change</button> <a href="${subscriptionPath(f, s)}">Back to the subscription</a></p>`)
            }<p class="muted">The preview shows what is charged now; nothing changes until you confirm it.</p></div>`
        }`), f.nonce)
      })

    /** The preview, and the form that confirms it at its quote. */
    const previewPage = (
      f: Pages.SignedFrame,
      s: Subscription.Subscription,
      typed: ChangeForm,
      preview: PlanChangePreview,
      notice: { readonly error?: string } = {},
      status = 200
    ) => {
      const { immediate_charge: charge, new_plan: next, terms } = preview
      const summary = charge.summary
      const vat = summary.tax !== null
      const scheduled = terms.effective_at === "next_billing_date"
      const unused = charge.line_items.find((l) => l.type === "unused_time")
      const edit = `${subscriptionPath(f, s)}/change-plan?${new URLSearchParams({ ...typed }).toString()}`
      const newLine = charge.line_items.find((l) => l.type === "new_plan")
      const button = summary.total_amount > 0
        ? `Confirm: charge ${Pages.money(summary.total_amount)} now`
        : scheduled
        ? "Confirm: schedule the change"
        : "Confirm the change"
      return kit.page(status, Pages.chrome(f, "Preview the plan change", html`
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
<div class="card"><table>
<tr><th>From</th><td>${planText(s)}</td></tr>
<tr><th>To</th><td>${planText(scheduled ? next.scheduled_change?.plan ?? next : next)}</td></tr>
<tr><th>Kind</th><td>${terms.direction === "upgrade" ? "an upgrade (it costs more per day)" : "a downgrade (it costs no more per day)"}</td></tr>
<tr><th>Billing mode</th><td>${terms.proration_billing_mode}: ${modeWords[terms.proration_billing_mode]}</td></tr>
<tr><th>Takes effect</th><td>${whenWords[terms.effective_at]}: ${Pages.when(f, charge.effective_at)}</td></tr>
<tr><th>If the card is declined</th><td>${terms.on_payment_failure}: ${failureWords[terms.on_payment_failure]}</td></tr></table></div>
<div class="card"><h2>Charged now</h2>${
        scheduled
          ? html`<p>Nothing now. The renewal on ${Pages.when(f, s.next_billing_date)} changes the plan and charges the new one.</p>`
          : charge.line_items.length === 0
          ? html`<p>Nothing now. The plan changes at once; the billing date stays, and the next renewal charges the new plan.</p>`
          : html`<table><thead><tr><th>Line</th><th class="num">Amount</th>${vat ? html`<th class="num">VAT</th>` : ""}</tr></thead><tbody>${
            newLine === undefined
              ? ""
              : html`<tr><td>${newLine.name} × ${newLine.quantity}, its first period</td><td class="num">${Pages.money(newLine.amount)}</td>${
                vat ? html`<td class="num">${Pages.money(newLine.tax ?? 0)}</td>` : ""
              }</tr>`
          }${
            charge.discounts.filter((d) => d.amount_off > 0).map((d) =>
              html`<tr><td>Discount ${d.code}${beforeVat(next) ? " (off the price before VAT)" : ""}</td><td class="num">−${Pages.money(d.amount_off)}</td>${vat ? html`<td></td>` : ""}</tr>`
            )
          }
<tr><td>Less credit</td><td class="num">−${Pages.money(summary.credit_applied)}</td>${vat ? html`<td></td>` : ""}</tr>
<tr><th>Charged to the card now</th><th class="num" id="charged-now">${Pages.money(summary.total_amount)}</th>${vat ? html`<th class="num">${Pages.money(summary.tax ?? 0)}</th>` : ""}</tr>
</tbody></table>`
      }
<h2>Credit</h2><table><tbody><tr><td>Balance now</td><td class="num">${Pages.money(s.credit_balance)}</td></tr>${
        unused === undefined
          ? ""
          : html`<tr><td>For ${unused.name} × ${unused.quantity}: ${
            terms.proration_billing_mode === "difference_immediately" ? "its price" : `its unused time (${(unused.proration_factor * 100).toFixed(2)} % of the period)`
          }</td><td class="num">+${Pages.money(unused.amount)}</td></tr>`
      }<tr><td>Used for this charge</td><td class="num">−${Pages.money(summary.credit_applied)}</td></tr>
<tr><th>Left on the subscription</th><th class="num" id="credit-remaining">${Pages.money(summary.credit_remaining)}</th></tr></tbody></table></div>
<div class="card"><h2>The subscription after the change</h2><table>
<tr><th>Plan</th><td>${planText(next)}</td></tr>
<tr><th>Current period</th><td>${Pages.when(f, next.current_period_start)} to ${Pages.when(f, next.next_billing_date)}</td></tr>
${next.scheduled_change === null ? "" : html`<tr><th>Scheduled change</th><td>To ${planText(next.scheduled_change.plan)}, on ${Pages.when(f, next.scheduled_change.effective_at)}</td></tr>`}
<tr><th>Credit balance</th><td>${Pages.money(next.credit_balance)}</td></tr></table></div>
<div class="card">${
        Pages.moneyForm(f, `${subscriptionPath(f, s)}/change-plan`, html`${
          formFields.map((name) => html`<input type="hidden" name="${name}" value="${typed[name]}">`)
        }<input type="hidden" name="quote_id" value="${preview.quote_id}">
<p><button type="submit">${button}</button></p>`)
      }<p class="muted">This preview holds for ${PlanChange.quoteLifetimeMillis / 60_000} minutes: confirmed later, or once the subscription or the product has changed, it is shown again with the new figures and nothing is charged.</p>
<p><a href="${edit}">Change the choices</a> · <a href="${subscriptionPath(f, s)}">Back to the subscription</a></p></div>`), f.nonce)
    }

    /** Previews `typed`: the preview page, or the form again with why not. */
    const previewOrForm = (f: Pages.SignedFrame, scope: Scope, s: Subscription.Subscription, typed: ChangeForm, notice: { readonly error?: string } = {}, status = 200) =>
      Effect.gen(function*() {
        const body = decodeRequest(requestOf(typed))
        if (Either.isLeft(body)) {
          return yield* formPage(f, scope, s, typed, {
            error: describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(body.left) }),
            errors: fieldErrors(body.left)
          }, 400)
        }
        const preview = yield* Effect.either(planChanges.preview(scope, s.subscription_id, body.right))
        if (Either.isLeft(preview)) {
          const error = preview.left
          if (error._tag === "NotFound") return notFound(f)
          const now = Either.getOrUndefined(yield* Effect.either(subscriptions.get(scope, s.subscription_id))) ?? s
          return yield* formPage(f, scope, now, typed, { error: error.message, errors: refusalField(error.message) }, error._tag === "InvalidState" ? 409 : 400)
        }
        return previewPage(f, s, typed, preview.right, notice, status)
      })

    const defaults = (s: Subscription.Subscription): ChangeForm => ({
      product_id: "",
      quantity: String(s.quantity),
      proration_billing_mode: "",
      effective_at: "",
      on_payment_failure: "apply_change"
    })

    yield* kit.get("/dashboard/:mode/subscriptions/:id/change-plan", kit.withUser((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return forbidden(f, signed.user.role)
        const s = yield* subscriptionOf(scope)
        if (s === undefined) return notFound(f)
        // Back from a preview ("Change the choices"): the choices it was made of.
        const query = yield* kit.query
        const typed = query.has("product_id") ? typedForm((name) => (query.get(name) ?? "").slice(0, 100)) : defaults(s)
        return yield* formPage(f, scope, s, typed, {}, PlanChange.changeRefusal(s) === undefined ? 200 : 409)
      })))

    yield* kit.post("/dashboard/:mode/subscriptions/:id/change-plan/preview", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return forbidden(f, signed.user.role)
        const s = yield* subscriptionOf(scope)
        if (s === undefined) return notFound(f)
        return yield* previewOrForm(f, scope, s, typedForm((name) => kit.field(params, name)))
      })))

    /**
     * The confirmation: the change at the preview's quote, under the form's one-time token. A quote the change no
     * longer matches (or a declined charge that changed nothing) shows the preview again, made now, with why.
     */
    yield* kit.post("/dashboard/:mode/subscriptions/:id/change-plan", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return forbidden(f, signed.user.role)
        const s = yield* subscriptionOf(scope)
        if (s === undefined) return notFound(f)
        const typed = typedForm((name) => kit.field(params, name))
        const again = (error: string, status: number) => previewOrForm(f, scope, s, typed, { error }, status)
        const once = kit.field(params, onceField)
        if (once.length < 16 || once.length > 64) return yield* again("This form is out of date, so nothing was changed. Check the preview below and confirm it again.", 400)
        const body = decodeRequest(requestOf(typed, kit.field(params, "quote_id")))
        if (Either.isLeft(body)) return yield* previewOrForm(f, scope, s, typed)
        const made = yield* Effect.either(planChanges.change(scope, s.subscription_id, body.right, `dashboard.plan_change.${once}`))
        if (Either.isLeft(made)) {
          const error = made.left
          switch (error._tag) {
            case "NotFound":
              return notFound(f)
            case "ChargeDeclined":
              yield* kit.audit(signed, "subscription.change_plan", s.subscription_id, scope.livemode)
              return yield* again(error.message, 402)
            case "IdempotencyKeyReused":
              return yield* again("This form was already sent with other choices, so nothing more was changed. Check the subscription and change it again from its page.", 409)
            case "StoreUnavailable":
            case "IdempotencyKeyInUse":
              return yield* again("The change could not be made now. Try again in a moment.", 503)
            default:
              return yield* again(error.message, error._tag === "InvalidState" ? 409 : 400)
          }
        }
        yield* kit.audit(signed, "subscription.change_plan", s.subscription_id, scope.livemode)
        const { payment, subscription: after } = made.right
        const path = subscriptionPath(f, s)
        if (payment === null) {
          return kit.done(f, path, after.scheduled_change !== null
            ? `The change to ${after.scheduled_change.plan.name} × ${after.scheduled_change.quantity} is scheduled for ${Pages.when(f, after.scheduled_change.effective_at)}.`
            : `Changed to ${after.name} × ${after.quantity}; nothing was charged now. The renewal on ${Pages.when(f, after.next_billing_date)} charges the new plan.`)
        }
        if (payment.status === "failed") {
          return kit.redirect(withFlash(path, {
            tone: "alert",
            text: `The card was declined (${payment.failure_code ?? "card_declined"}): the plan changed to ${after.name} × ${after.quantity} and the subscription is on hold until its first period is paid (retried as a failed renewal is).`
          }, f.csrf))
        }
        return kit.done(f, path, payment.status === "processing"
          ? `The charge of ${Pages.money(payment.total_amount)} is processing: the plan changes when the processor answers.`
          : `Changed to ${after.name} × ${after.quantity}; charged ${Pages.money(payment.total_amount)}.`)
      })))

    // Cancelling a scheduled change: a page that says what will happen, then the post.

    const cancelPage = (f: Pages.SignedFrame, s: Subscription.Subscription) => {
      const scheduled = s.scheduled_change
      if (scheduled === null) {
        return kit.page(404, Pages.chrome(f, "No scheduled change", html`<p class="alert" role="alert">This subscription has no scheduled plan change.</p>
<p><a href="${subscriptionPath(f, s)}">Back to the subscription</a></p>`), f.nonce)
      }
      const renewal = Subscription.renewalCharge(s)
      return kit.page(200, Pages.chrome(f, "Cancel the scheduled change", html`<div class="card">
<p>The change to <strong>${planText(scheduled.plan)}</strong> scheduled for ${Pages.when(f, scheduled.effective_at)} will not be made.</p>
<p>The subscription stays on ${planText(s)}: its renewal on ${Pages.when(f, s.next_billing_date)} charges ${Pages.money(renewal.amount)}${
        renewal.creditApplied > 0 ? html` (after ${Pages.money(renewal.creditApplied)} of its credit)` : ""
      }. Nothing is charged now.</p>${
        Pages.form(f, `${subscriptionPath(f, s)}/change-plan/scheduled/cancel`, html`<p><button type="submit">Cancel the scheduled change</button> <a href="${subscriptionPath(f, s)}">Keep it</a></p>`)
      }</div>`), f.nonce)
    }

    yield* kit.get("/dashboard/:mode/subscriptions/:id/change-plan/scheduled/cancel", kit.withUser((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return forbidden(f, signed.user.role)
        const s = yield* subscriptionOf(scope)
        return s === undefined ? notFound(f) : cancelPage(f, s)
      })))

    yield* kit.post("/dashboard/:mode/subscriptions/:id/change-plan/scheduled/cancel", kit.withPost((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return forbidden(f, signed.user.role)
        const s = yield* subscriptionOf(scope)
        if (s === undefined) return notFound(f)
        const cancelled = yield* Effect.either(planChanges.cancelScheduled(scope, s.subscription_id))
        if (Either.isLeft(cancelled)) return cancelPage(f, Either.getOrElse(yield* Effect.either(subscriptions.get(scope, s.subscription_id)), () => s))
        yield* kit.audit(signed, "subscription.cancel_scheduled_change", s.subscription_id, scope.livemode)
        return kit.done(f, subscriptionPath(f, s), `The scheduled change was cancelled: the renewal on ${Pages.when(f, cancelled.right.next_billing_date)} keeps the current plan.`)
      })))
  })

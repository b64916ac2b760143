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
import { can, type Role } from "../../../src/domain/DashboardUser.js"
import { parseId, SubscriptionId } from "../../../src/domain/Ids.js"
import * as PlanChange from "../../../src/domain/PlanChange.js"
import type { BillingInterval } from "../../../src/domain/Product.js"
import type { OnPaymentFailure } from "../../../src/domain/PlanPolicy.js"
import * as Subscription from "../../../src/domain/Subscription.js"
import { onceField, withFlash } from "../html/Forms.js"
import { attempt, lookup } from "../html/Attempt.js"
import { html, type Raw } from "../html/Html.js"
import { describeDecodeError } from "../SchemaIssues.js"
import { type FieldErrors, fieldErrorsOf, selectField, textField } from "./Fields.js"
import type { Kit, Scope } from "./Kit.js"
import * as Pages from "./Pages.js"
import { modeOptions, modeText, whenOptions } from "./PlanPolicyForm.js"

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

/** What a declined charge does, in short (the form's options) and in full (the preview), after its code. */
const failureOptions = (f: Pages.Frame): ReadonlyArray<readonly [OnPaymentFailure, string]> =>
  (["apply_change", "prevent_change"] as const).map((code) => [code, f.t.planPolicy.coded(code, f.t.planChanges.onFailure[code])])
const failureText = (f: Pages.Frame, code: OnPaymentFailure) => f.t.planPolicy.coded(code, f.t.planChanges.onFailureFull[code])

const every = (f: Pages.Frame, plan: { readonly billing_interval: BillingInterval; readonly interval_count: number }) =>
  f.t.products.list.every(plan.billing_interval, plan.interval_count)
const planText = (f: Pages.Frame, plan: Pick<Subscription.Plan, "name" | "quantity" | "recurring_amount" | "billing_interval" | "interval_count">) =>
  f.t.planChanges.plan(plan.name, plan.quantity, Pages.amount(f, plan.recurring_amount), every(f, plan))

/** Whether the plan's prices exclude VAT: a discount then comes off the price before VAT (docs/discounts.md). */
const beforeVat = (s: Subscription.Subscription) => s.tax_lines?.prices_include_vat === false

/** The subscription page's rows about plan changes: its credit, a scheduled change, a change waiting for its charge. */
export const planRows = (f: Pages.SignedFrame, s: Subscription.Subscription): Raw => {
  const path = `${Pages.modePath(f)}/subscriptions/${s.subscription_id}`
  const scheduled = s.scheduled_change
  const t = f.t.planChanges
  return html`<tr><th>${t.creditBalance}</th><td>${t.rows.credit(Pages.amount(f, s.credit_balance), s.credit_balance > 0)}</td></tr>
${
    scheduled === null
      ? ""
      : html`<tr><th>${t.scheduledChange}</th><td>${t.scheduledTo(planText(f, scheduled.plan), Pages.when(f, scheduled.effective_at))}${
        can(f.user.role, "write") ? html` · <a href="${path}/change-plan/scheduled/cancel">${t.rows.cancelScheduled}</a>` : ""
      }</td></tr>`
  }${
    s.pending_change === null
      ? ""
      : html`<tr><th>${t.rows.planChange}</th><td>${t.rows.waiting(planText(f, s.pending_change.plan))} <a href="${Pages.modePath(f)}/payments/${s.pending_change.payment_id}"><code>${s.pending_change.payment_id}</code></a></td></tr>`
  }`
}

/** The subscription page's "Change plan" link, for those who may and when the subscription can change plan. */
export const changePlanLink = (f: Pages.SignedFrame, s: Subscription.Subscription): Raw =>
  can(f.user.role, "write") && PlanChange.changeRefusal(s) === undefined
    ? html`<p><a href="${Pages.modePath(f)}/subscriptions/${s.subscription_id}/change-plan">${f.t.planChanges.rows.changePlan}</a></p>`
    : html``

export const planChangeRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const planChanges = yield* PlanChanges
    const products = yield* Products
    const subscriptions = yield* Subscriptions

    const subscriptionPath = (f: Pages.SignedFrame, s: Subscription.Subscription) => `${Pages.modePath(f)}/subscriptions/${s.subscription_id}`
    const forbidden = (f: Pages.SignedFrame, role: Role) =>
      kit.page(403, Pages.forbiddenPage(f, f.t.planChanges.cannotChange(f.t.frame.roles[role])), f.nonce)
    const notFound = (f: Pages.SignedFrame) => kit.page(404, Pages.notFoundPage(f), f.nonce)

    /** The subscription the path names, in the scope; `undefined` when there is none. */
    const subscriptionOf = (scope: Scope) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* kit.param("id"))
        return id === undefined ? undefined : yield* lookup(subscriptions.get(scope, id))
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
        // The schema's and the use case's words for a field, in the page's language.
        const errors = Pages.fieldErrorsIn(f, refused.errors ?? {})
        const cannot = PlanChange.changeRefusal(s)
        const t = f.t.planChanges
        const options = [
          ["", t.form.chooseProduct] as const,
          ...plans.map((p) =>
            [
              p.product_id,
              t.form.productOption(
                p.name,
                Pages.amount(f, p.price),
                every(f, { billing_interval: p.billing_interval ?? "month", interval_count: p.interval_count ?? 1 }),
                p.product_id === s.product_id
              )
            ] as const
          )
        ]
        return kit.page(status, Pages.chrome(f, t.form.title, html`
${refused.error === undefined ? "" : html`<p class="alert" role="alert">${refused.error}</p>`}
<div class="card"><table><tr><th>${t.subscription}</th><td><a href="${subscriptionPath(f, s)}"><code>${s.subscription_id}</code></a></td></tr>
<tr><th>${t.customer}</th><td>${s.customer.email}</td></tr><tr><th>${t.form.planNow}</th><td>${planText(f, s)}</td></tr>
<tr><th>${t.currentPeriod}</th><td>${t.period(Pages.when(f, s.current_period_start), Pages.when(f, s.next_billing_date))}</td></tr>
<tr><th>${t.creditBalance}</th><td>${Pages.amount(f, s.credit_balance)}</td></tr></table></div>
${
          cannot !== undefined
            ? html`<p class="alert" role="alert">${f.t.frame.cannot(cannot.message)}</p>`
            : html`<div class="card">${
              Pages.form(f, `${subscriptionPath(f, s)}/change-plan/preview`, html`
${selectField({ name: "product_id", label: t.form.newProduct, value: shown.product_id, options, errors })}
${textField({ name: "quantity", label: t.form.quantity, value: shown.quantity, errors, attributes: `inputmode="numeric" autocomplete="off"` })}
${selectField({ name: "proration_billing_mode", label: t.form.billingMode, value: shown.proration_billing_mode, options: modeOptions(f, t.form.productPolicy), errors })}
${selectField({ name: "effective_at", label: t.form.takesEffect, value: shown.effective_at, options: whenOptions(f, t.form.productPolicyElseNow), errors })}
${selectField({ name: "on_payment_failure", label: t.form.ifDeclined, value: shown.on_payment_failure, options: failureOptions(f), errors })}
<p><button type="submit">${t.form.preview}</button> <a href="${subscriptionPath(f, s)}">${t.backToSubscription}</a></p>`)
            }<p class="muted">${t.form.help}</p></div>`
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
      const t = f.t.planChanges
      const money = (fils: number) => Pages.amount(f, fils)
      const button = summary.total_amount > 0
        ? t.preview.confirmCharge(money(summary.total_amount))
        : scheduled
        ? t.preview.confirmSchedule
        : t.preview.confirm
      return kit.page(status, Pages.chrome(f, t.preview.title, html`
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
<div class="card"><table>
<tr><th>${t.preview.from}</th><td>${planText(f, s)}</td></tr>
<tr><th>${t.preview.to}</th><td>${planText(f, scheduled ? next.scheduled_change?.plan ?? next : next)}</td></tr>
<tr><th>${t.preview.kind}</th><td>${terms.direction === "upgrade" ? t.preview.upgrade : t.preview.downgrade}</td></tr>
<tr><th>${t.form.billingMode}</th><td>${modeText(f, terms.proration_billing_mode)}</td></tr>
<tr><th>${t.form.takesEffect}</th><td>${f.t.planPolicy.when[terms.effective_at]}: ${Pages.when(f, charge.effective_at)}</td></tr>
<tr><th>${t.form.ifDeclined}</th><td>${failureText(f, terms.on_payment_failure)}</td></tr></table></div>
<div class="card"><h2>${t.preview.chargedNow}</h2>${
        scheduled
          ? html`<p>${t.preview.nothingNowScheduled(Pages.when(f, s.next_billing_date))}</p>`
          : charge.line_items.length === 0
          ? html`<p>${t.preview.nothingNow}</p>`
          : html`<table><thead><tr><th>${t.preview.line}</th><th class="num">${t.preview.amount}</th>${vat ? html`<th class="num">${t.preview.vat}</th>` : ""}</tr></thead><tbody>${
            newLine === undefined
              ? ""
              : html`<tr><td data-label="${t.preview.line}">${t.preview.firstPeriod(newLine.name, newLine.quantity)}</td><td class="num" data-label="${t.preview.amount}">${money(newLine.amount)}</td>${
                vat ? html`<td class="num" data-label="${t.preview.vat}">${money(newLine.tax ?? 0)}</td>` : ""
              }</tr>`
          }${
            charge.discounts.filter((d) => d.amount_off > 0).map((d) =>
              html`<tr><td data-label="${t.preview.line}">${t.preview.discount(d.code, beforeVat(next))}</td><td class="num" data-label="${t.preview.amount}">−${money(d.amount_off)}</td>${vat ? html`<td></td>` : ""}</tr>`
            )
          }
<tr><td data-label="${t.preview.line}">${t.preview.lessCredit}</td><td class="num" data-label="${t.preview.amount}">−${money(summary.credit_applied)}</td>${vat ? html`<td></td>` : ""}</tr>
<tr><th scope="row">${t.preview.chargedToCard}</th><td class="num" id="charged-now" data-label="${t.preview.amount}"><strong>${money(summary.total_amount)}</strong></td>${vat ? html`<td class="num" data-label="${t.preview.vat}"><strong>${money(summary.tax ?? 0)}</strong></td>` : ""}</tr>
</tbody></table>`
      }
<h2>${t.preview.credit}</h2><table><tbody><tr><td>${t.preview.balanceNow}</td><td class="num">${money(s.credit_balance)}</td></tr>${
        unused === undefined
          ? ""
          : html`<tr><td>${
            t.preview.unused(
              unused.name,
              unused.quantity,
              terms.proration_billing_mode === "difference_immediately" ? null : (unused.proration_factor * 100).toFixed(2)
            )
          }</td><td class="num">+${money(unused.amount)}</td></tr>`
      }<tr><td>${t.preview.usedForCharge}</td><td class="num">−${money(summary.credit_applied)}</td></tr>
<tr><th>${t.preview.leftOnSubscription}</th><th class="num" id="credit-remaining">${money(summary.credit_remaining)}</th></tr></tbody></table></div>
<div class="card"><h2>${t.preview.after}</h2><table>
<tr><th>${t.preview.plan}</th><td>${planText(f, next)}</td></tr>
<tr><th>${t.currentPeriod}</th><td>${t.period(Pages.when(f, next.current_period_start), Pages.when(f, next.next_billing_date))}</td></tr>
${
        next.scheduled_change === null
          ? ""
          : html`<tr><th>${t.scheduledChange}</th><td>${t.scheduledTo(planText(f, next.scheduled_change.plan), Pages.when(f, next.scheduled_change.effective_at))}</td></tr>`
      }
<tr><th>${t.creditBalance}</th><td>${money(next.credit_balance)}</td></tr></table></div>
<div class="card">${
        Pages.onceForm(f, `${subscriptionPath(f, s)}/change-plan`, html`${
          formFields.map((name) => html`<input type="hidden" name="${name}" value="${typed[name]}">`)
        }<input type="hidden" name="quote_id" value="${preview.quote_id}">
<p><button type="submit">${button}</button></p>`, { back: subscriptionPath(f, s) })
      }<p class="muted">${t.preview.holds(PlanChange.quoteLifetimeMillis / 60_000)}</p>
<p><a href="${edit}">${t.preview.changeChoices}</a> · <a href="${subscriptionPath(f, s)}">${t.backToSubscription}</a></p></div>`), f.nonce)
    }

    /** Previews `typed`: the preview page, or the form again with why not. */
    const previewOrForm = (f: Pages.SignedFrame, scope: Scope, s: Subscription.Subscription, typed: ChangeForm, notice: { readonly error?: string } = {}, status = 200) =>
      Effect.gen(function*() {
        const body = decodeRequest(requestOf(typed))
        if (Either.isLeft(body)) {
          return yield* formPage(f, scope, s, typed, {
            error: Pages.refused(f, describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(body.left) })),
            errors: fieldErrors(body.left)
          }, 400)
        }
        const preview = yield* attempt(planChanges.preview(scope, s.subscription_id, body.right))
        if (Either.isLeft(preview)) {
          const error = preview.left
          if (error._tag === "NotFound") return notFound(f)
          const now = (yield* lookup(subscriptions.get(scope, s.subscription_id))) ?? s
          return yield* formPage(f, scope, now, typed, { error: Pages.refused(f, error.message), errors: refusalField(error.message) }, error._tag === "InvalidState" ? 409 : 400)
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
        if (once.length < 16 || once.length > 64) return yield* again(f.t.planChanges.refusals.outOfDate, 400)
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
              return yield* again(Pages.refused(f, error.message), 402)
            case "IdempotencyKeyReused":
              return yield* again(f.t.planChanges.refusals.alreadySent, 409)
            case "StoreUnavailable":
            case "IdempotencyKeyInUse":
              return yield* again(f.t.planChanges.refusals.notNow, 503)
            default:
              return yield* again(Pages.refused(f, error.message), error._tag === "InvalidState" ? 409 : 400)
          }
        }
        yield* kit.audit(signed, "subscription.change_plan", s.subscription_id, scope.livemode)
        const { payment, subscription: after } = made.right
        const path = subscriptionPath(f, s)
        const done = f.t.planChanges.done
        if (payment === null) {
          return kit.done(f, path, after.scheduled_change !== null
            ? done.scheduled(after.scheduled_change.plan.name, after.scheduled_change.quantity, Pages.when(f, after.scheduled_change.effective_at))
            : done.changedNothingCharged(after.name, after.quantity, Pages.when(f, after.next_billing_date)))
        }
        if (payment.status === "failed") {
          return kit.redirect(withFlash(path, {
            tone: "alert",
            text: done.declined(payment.failure_code ?? "card_declined", after.name, after.quantity)
          }, f.csrf))
        }
        return kit.done(f, path, payment.status === "processing"
          ? done.processing(Pages.amount(f, payment.total_amount))
          : done.changedCharged(after.name, after.quantity, Pages.amount(f, payment.total_amount)))
      })))

    // Cancelling a scheduled change: a page that says what will happen, then the post.

    const cancelPage = (f: Pages.SignedFrame, s: Subscription.Subscription) => {
      const scheduled = s.scheduled_change
      const t = f.t.planChanges
      if (scheduled === null) {
        return kit.page(404, Pages.chrome(f, t.cancel.noneTitle, html`<p class="alert" role="alert">${t.cancel.none}</p>
<p><a href="${subscriptionPath(f, s)}">${t.backToSubscription}</a></p>`), f.nonce)
      }
      const renewal = Subscription.renewalCharge(s)
      return kit.page(200, Pages.chrome(f, t.cancel.title, html`<div class="card">
<p>${t.cancel.willNotBeMade(planText(f, scheduled.plan), Pages.when(f, scheduled.effective_at))}</p>
<p>${
        t.cancel.stays(
          planText(f, s),
          Pages.when(f, s.next_billing_date),
          Pages.amount(f, renewal.amount),
          renewal.creditApplied > 0 ? Pages.amount(f, renewal.creditApplied) : null
        )
      }</p>${
        Pages.form(f, `${subscriptionPath(f, s)}/change-plan/scheduled/cancel`, html`<p><button type="submit">${t.cancel.button}</button> <a href="${subscriptionPath(f, s)}">${t.cancel.keep}</a></p>`)
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
        const cancelled = yield* attempt(planChanges.cancelScheduled(scope, s.subscription_id))
        if (Either.isLeft(cancelled)) return cancelPage(f, Either.getOrElse(yield* attempt(subscriptions.get(scope, s.subscription_id)), () => s))
        yield* kit.audit(signed, "subscription.cancel_scheduled_change", s.subscription_id, scope.livemode)
        return kit.done(f, subscriptionPath(f, s), f.t.planChanges.cancel.cancelled(Pages.when(f, cancelled.right.next_billing_date)))
      })))
  })

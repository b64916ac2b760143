/**
 * The dashboard's subscriptions pages: the list (by status), a subscription with its trial, payments and timeline,
 * its cancellation (now, at the period end, or undone), and a charge of its saved card now (an amount and a
 * description, then a confirmation). Changes need `write` (owners and admins) and go to the audit log.
 */
import { DateTime, Effect, Either, ParseResult, Schema } from "effect"
import { Events } from "../../../src/application/Events.js"
import { Payments } from "../../../src/application/Payments.js"
import { SubscriptionCharges } from "../../../src/application/SubscriptionCharges.js"
import { Subscriptions } from "../../../src/application/Subscriptions.js"
import { can } from "../../../src/domain/DashboardUser.js"
import { parseId, SubscriptionId } from "../../../src/domain/Ids.js"
import { type Subscription, SubscriptionCharge, SubscriptionStatus } from "../../../src/domain/Subscription.js"
import { onceField } from "../html/Forms.js"
import { attempt, lookup } from "../html/Attempt.js"
import { html, raw } from "../html/Html.js"
import { describeDecodeError } from "../SchemaIssues.js"
import { subscriptionDiscountText } from "./Discounts.js"
import * as Pages from "./Pages.js"
import { parseAed } from "./Parse.js"
import { changePlanLink, planRows } from "./PlanChanges.js"
import type { Kit, Scope } from "./Kit.js"
import type { Signed } from "../../../src/application/Users.js"
import * as Confirm from "./Confirm.js"
import { confirmLink } from "./Confirm.js"

const subscriptionIdOf = parseId(SubscriptionId)
const isSubscriptionStatus = Schema.is(SubscriptionStatus)
const decodeCharge = Schema.decodeUnknownEither(SubscriptionCharge, { onExcessProperty: "error", errors: "all" })

/** A subscription's trial in words: its days and when it ends (or ended); none without one. */
const trialText = (f: Pages.SignedFrame, s: Subscription, now: DateTime.Utc) =>
  s.trial_ends_at === null
    ? ""
    : f.t.subscriptions.page.trialText(s.trial_period_days, DateTime.lessThanOrEqualTo(s.trial_ends_at, now), Pages.when(f, s.trial_ends_at))

/** Its amount on its schedule, in the page's language: `AED 45.00 every month`. */
const scheduleText = (f: Pages.Frame, s: Subscription) =>
  f.t.subscriptions.schedule(Pages.amount(f, s.recurring_amount), s.billing_interval, s.interval_count)

/** Who may not change subscriptions: the refusal in the page's language. */
const forbidden = (f: Pages.SignedFrame, signed: Signed, what: "cancel" | "charge") =>
  Pages.forbiddenPage(f, f.t.subscriptions.forbidden[what](f.t.frame.roles[signed.user.role]))

/** The "charge now" form as typed: an amount in AED and a description. */
interface ChargeForm {
  readonly amount: string
  readonly description: string
}

export const subscriptionRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    const charges = yield* SubscriptionCharges
    const payments = yield* Payments
    const events = yield* Events

    const label = (f: Pages.Frame, s: Subscription) => Pages.badge(f, s.status === "active" && s.cancel_at_period_end ? "ending" : s.status)

    yield* kit.get("/dashboard/:mode/subscriptions", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const status = (yield* kit.query).get("status") ?? ""
        // A status that is none of the choices lists nothing, and says so; it is not read as any.
        const refused = status !== "" && !isSubscriptionStatus(status)
        const list = refused ? { items: [] } : yield* subscriptions.list(scope, { limit: 100, ...(isSubscriptionStatus(status) ? { status } : {}) })
        const t = f.t.subscriptions.list
        return kit.page(refused ? 400 : 200, Pages.chrome(f, t.title, html`${refused ? Pages.notAnOption(f, status) : ""}<form class="filters" method="get" action="${Pages.modePath(f)}/subscriptions" aria-label="${t.filters}"><div><label for="s_status">${t.status}</label>
<select id="s_status" name="status"><option value="">${f.t.frame.common.any}</option>${
          SubscriptionStatus.literals.map((v) => html`<option value="${v}"${raw(v === status ? " selected" : "")}>${Pages.statusWords(f, v).words}</option>`)
        }</select></div><div><button type="submit">${f.t.frame.common.filter}</button></div></form><div class="card"><table class="list" aria-label="${t.table}"><thead><tr><th>${t.amount}</th><th>${t.status}</th><th>${t.customer}</th><th>${t.nextBilling}</th><th>${t.started}</th></tr></thead><tbody>${
          list.items.map((s) =>
            html`<tr><td class="lead"><a class="row" href="${Pages.modePath(f)}/subscriptions/${s.subscription_id}">${scheduleText(f, s)}</a><span class="sub"><code>${s.subscription_id}</code></span></td>
<td data-label="${t.status}">${label(f, s)}</td><td data-label="${t.customer}">${Pages.customerText(f, s.customer)}</td>
<td data-label="${t.nextBilling}">${s.status === "cancelled" ? "" : Pages.when(f, s.next_billing_date)}</td><td data-label="${t.started}">${Pages.when(f, s.created_at)}</td></tr>`
          )
        }</tbody></table>${list.items.length === 0 ? html`<p class="muted">${t.none}</p>` : ""}</div>`), f.nonce)
      })))

    const subscriptionPage = (
      f: Pages.SignedFrame,
      scope: Scope,
      notice: { readonly error?: string; readonly charge?: ChargeForm } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(subscriptions.get(scope, id))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const s = found
        const paid = (yield* payments.list(scope, { subscription_id: s.subscription_id, limit: 100 })).items
        const timeline = (yield* events.list(scope, { subscription_id: s.subscription_id, limit: 100 })).items
        const write = can(f.user.role, "write") && s.status !== "cancelled"
        const now = yield* DateTime.now
        const action = (value: string, text: string) =>
          Pages.form(f, `${Pages.modePath(f)}/subscriptions/${s.subscription_id}/cancel`, html`<input type="hidden" name="when" value="${value}"><button type="submit">${text}</button>`)
        const t = f.t.subscriptions.page
        return kit.page(status, Pages.chrome(f, t.title, html`
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
<div class="card"><table><tr><th>${t.id}</th><td><code>${s.subscription_id}</code></td></tr><tr><th>${t.status}</th><td>${label(f, s)}</td></tr>
<tr><th>${t.customer}</th><td>${s.customer?.email ?? ""}</td></tr><tr><th>${t.amount}</th><td>${scheduleText(f, s)}</td></tr>
${s.trial_ends_at === null ? "" : html`<tr><th>${t.trial}</th><td>${trialText(f, s, now)}</td></tr>`}
<tr><th>${s.period === 0 && s.trial_ends_at !== null ? t.trialPeriod : t.currentPeriod}</th><td>${t.period(Pages.when(f, s.current_period_start), Pages.when(f, s.next_billing_date))}</td></tr>
${s.discounts.map((d) => html`<tr><th>${t.discount}</th><td><strong>${d.code}</strong>: <span data-testid="subscription-discount">${subscriptionDiscountText(d, f)}</span></td></tr>`)}
${planRows(f, s)}</table>
${write ? html`<p>${confirmLink(`${Pages.modePath(f)}/subscriptions/${s.subscription_id}/cancel`, t.cancelNow, { button: true })} ${s.cancel_at_period_end ? action("undo", t.keepRenewing) : action("period_end", t.cancelAtPeriodEnd)}</p>` : ""}${changePlanLink(f, s)}</div>
${
          write
            ? html`<div class="card"><h2>${t.chargeNow}</h2><p class="muted">${t.chargeHelp(s.payment_method.brand, s.payment_method.last4)}</p>${
              Pages.form(f, `${Pages.modePath(f)}/subscriptions/${s.subscription_id}/charge`, html`
<label for="charge_amount">${t.chargeAmount}</label><input id="charge_amount" name="amount" inputmode="decimal" value="${notice.charge?.amount ?? ""}" required>
<label for="charge_description">${t.chargeDescription}</label><input id="charge_description" name="description" value="${notice.charge?.description ?? ""}">
<p><button type="submit">${t.reviewCharge}</button></p>`)
            }</div>`
            : ""
        }
<div class="card"><h2>${t.payments}</h2><table><tbody>${
          paid.map((p) => html`<tr><td><a href="${Pages.modePath(f)}/payments/${p.payment_id}"><code>${p.payment_id}</code></a></td><td>${Pages.badge(f, p.status)}</td><td class="num">${Pages.amount(f, p.total_amount)}</td><td>${Pages.when(f, p.created_at)}</td></tr>`)
        }</tbody></table></div>
<div class="card"><h2>${t.timeline}</h2><table><tbody>${
          timeline.map((e) => html`<tr><td>${Pages.when(f, e.created_at)}</td><td>${e.type}</td><td><a href="${Pages.modePath(f)}/events/${e.event_id}"><code>${e.event_id}</code></a></td></tr>`)
        }</tbody></table></div>`), f.nonce)
      })

    yield* kit.get("/dashboard/:mode/subscriptions/:id", kit.withUser((_, f, scope) => subscriptionPage(f, scope)))

    /** What cancelling `s` now does to its current period (`Subscription.transition`'s `Cancel`: no proration, no refund). */
    const cancelling = (f: Pages.SignedFrame, s: Subscription, now: DateTime.Utc): Confirm.Confirmation => {
      const here = `${Pages.modePath(f)}/subscriptions/${s.subscription_id}`
      const inTrial = s.trial_ends_at !== null && DateTime.greaterThan(s.trial_ends_at, now)
      const t = f.t.subscriptions.cancel
      return {
        title: t.title,
        what: [
          t.endsNow(s.customer?.email ?? null, scheduleText(f, s)),
          s.status === "on_hold"
            ? t.onHold
            : inTrial
            ? t.trialStops(Pages.when(f, s.trial_ends_at!))
            : t.periodCut(Pages.when(f, s.current_period_start), Pages.when(f, s.next_billing_date)),
          t.webhooks("subscription.cancelled"),
          ...(s.status === "active" && !s.cancel_at_period_end ? [t.orAtPeriodEnd] : [])
        ],
        action: `${here}/cancel`,
        fields: { when: "now" },
        button: t.button,
        back: here,
        backLabel: t.back
      }
    }

    /** The subscription of the route's `:id` in `scope`, if still open to change; or the page that says why not. */
    const cancellable = (signed: Signed, f: Pages.SignedFrame, scope: Scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return { refused: kit.page(403, forbidden(f, signed, "cancel"), f.nonce) } as const
        const id = subscriptionIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(subscriptions.get(scope, id))
        if (found === undefined) return { refused: kit.page(404, Pages.notFoundPage(f), f.nonce) } as const
        return { subscription: found } as const
      })

    yield* kit.get("/dashboard/:mode/subscriptions/:id/cancel", kit.withUser((signed, f, scope) =>
      Effect.gen(function*() {
        const checked = yield* cancellable(signed, f, scope)
        if ("refused" in checked) return checked.refused
        const s = checked.subscription
        if (s.status === "cancelled") return kit.done(f, `${Pages.modePath(f)}/subscriptions/${s.subscription_id}`, f.t.subscriptions.done.alreadyCancelled)
        return kit.page(200, Confirm.confirmPage(f, cancelling(f, s, yield* DateTime.now)), f.nonce)
      })))

    yield* kit.post("/dashboard/:mode/subscriptions/:id/cancel", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, forbidden(f, signed, "cancel"), f.nonce)
        const id = subscriptionIdOf(yield* kit.param("id"))
        const when = kit.field(params, "when")
        const patch = when === "now" ? { status: "cancelled" as const } : when === "period_end" ? { cancel_at_period_end: true } : when === "undo" ? { cancel_at_period_end: false } : undefined
        if (id === undefined || patch === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        if (when === "now" && !Confirm.isConfirmed(kit.field(params, Confirm.confirmField))) {
          const checked = yield* cancellable(signed, f, scope)
          if ("refused" in checked) return checked.refused
          if (checked.subscription.status !== "cancelled") {
            return kit.page(400, Confirm.confirmPage(f, cancelling(f, checked.subscription, yield* DateTime.now), true), f.nonce)
          }
        }
        const updated = yield* attempt(subscriptions.update(scope, id, patch))
        if (Either.isLeft(updated)) {
          const error = updated.left
          if (error._tag === "NotFound") return kit.page(404, Pages.notFoundPage(f), f.nonce)
          return yield* subscriptionPage(f, scope, { error: Pages.refused(f, error.message) }, 409)
        }
        yield* kit.audit(signed, `subscription.${when === "now" ? "cancel" : when === "undo" ? "keep" : "cancel_at_period_end"}`, id, scope.livemode)
        return kit.done(
          f,
          `${Pages.modePath(f)}/subscriptions/${id}`,
          when === "now" ? f.t.subscriptions.done.cancelled : when === "undo" ? f.t.subscriptions.done.keepsRenewing : f.t.subscriptions.done.endsAtPeriodEnd
        )
      })))

    /**
     * "Charge now": the form's amount and description are checked (by the API's own schema), then shown for a
     * confirmation, whose form carries a one-time token; only the confirmed post charges, with that token as its
     * idempotency key, so the same confirmation posted twice charges once and is answered as the first was.
     */
    yield* kit.post("/dashboard/:mode/subscriptions/:id/charge", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, forbidden(f, signed, "charge"), f.nonce)
        const id = subscriptionIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(subscriptions.get(scope, id))
        if (id === undefined || found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const typed: ChargeForm = { amount: kit.field(params, "amount"), description: kit.field(params, "description") }
        const t = f.t.subscriptions.charge
        const refused = (error: string, status: number) => subscriptionPage(f, scope, { error, charge: typed }, status)
        const price = parseAed(typed.amount)
        if (price === undefined || price <= 0) return yield* refused(t.enterAmount, 400)
        const input = decodeCharge({
          product_price: price,
          ...(typed.description === "" ? {} : { product_description: typed.description })
        })
        if (Either.isLeft(input)) {
          return yield* refused(Pages.refused(f, describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(input.left) })), 400)
        }
        if (found.status === "cancelled") return yield* refused(t.cancelled, 409)
        const path = `${Pages.modePath(f)}/subscriptions/${id}`
        const once = kit.field(params, onceField)
        /** The confirmation; again under `again`'s token to finish a charge whose outcome is not known yet. */
        const confirmation = (status: number, again?: { readonly once: string; readonly alert: string }) =>
          kit.page(status, Pages.chrome(f, t.confirmTitle, html`${again === undefined ? "" : html`<p class="alert" role="alert">${again.alert}</p>`}<div class="card">
<p>${
            t.confirm({
              amount: Pages.amount(f, price),
              description: input.right.product_description ?? found.name,
              email: found.customer.email,
              brand: found.payment_method.brand,
              last4: found.payment_method.last4
            })
          }</p>
<p class="muted">${t.confirmHelp}</p>${
            Pages.onceForm(f, `${path}/charge`, html`${Confirm.hiddenField("amount", typed.amount)}${Confirm.hiddenField("description", typed.description)}<input type="hidden" name="confirm" value="yes">
<p><button type="submit">${t.button(Pages.amount(f, price))}</button> <a href="${path}">${f.t.frame.common.cancel}</a></p>`, { back: path, once: again?.once })
          }</div>`), f.nonce)
        if (kit.field(params, "confirm") !== "yes") return confirmation(200)
        if (once.length < 16 || once.length > 64) {
          return yield* refused(t.outOfDate, 400)
        }
        // Its audit entry is written with the reservation: with the charge, or not at all.
        const audited = (yield* kit.auditEntry(signed, "subscription.charge", scope.livemode))(id)
        const made = yield* Effect.either(charges.charge(scope, id, input.right, `dashboard.charge.${once}`, audited))
        if (Either.isLeft(made)) {
          const error = made.left
          if (error._tag === "NotFound") return kit.page(404, Pages.notFoundPage(f), f.nonce)
          // The charge may be under way (the store failed after the processor was asked, or the first post is still
          // running): the confirmation again, under the same token, finishes that charge; a new form would make another.
          if (error._tag === "StoreUnavailable" || error._tag === "IdempotencyKeyInUse") {
            return confirmation(503, { once, alert: t.unavailable })
          }
          return yield* refused(Pages.refused(f, error.message), 409)
        }
        const { payment } = made.right
        return kit.done(
          f,
          path,
          payment.status === "succeeded"
            ? t.charged(Pages.amount(f, payment.total_amount))
            : payment.status === "failed"
            ? t.declined(payment.failure_code ?? "card_declined")
            : t.processing(Pages.amount(f, payment.total_amount))
        )
      })))
  })
/**
 * The dashboard's subscriptions pages: the list (by status), a subscription with its payments and timeline, and its
 * cancellation (now, at the period end, or undone). Cancelling needs `write` (owners and admins) and goes to the
 * audit log.
 */
import { Effect, Either, Schema } from "effect"
import { Events } from "../../../src/application/Events.js"
import { Payments } from "../../../src/application/Payments.js"
import { Subscriptions } from "../../../src/application/Subscriptions.js"
import { can } from "../../../src/domain/DashboardUser.js"
import { parseId, SubscriptionId } from "../../../src/domain/Ids.js"
import { type Subscription, SubscriptionStatus } from "../../../src/domain/Subscription.js"
import { html, raw } from "../html/Html.js"
import { subscriptionDiscountText } from "./Discounts.js"
import * as Pages from "./Pages.js"
import { changePlanLink, planRows } from "./PlanChanges.js"
import type { Kit, Scope } from "./Kit.js"

const subscriptionIdOf = parseId(SubscriptionId)
const isSubscriptionStatus = Schema.is(SubscriptionStatus)

export const subscriptionRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    const payments = yield* Payments
    const events = yield* Events

    const label = (s: Subscription) =>
      s.status === "active" && s.cancel_at_period_end ? "active, ends at the period end" : s.status

    yield* kit.get("/dashboard/:mode/subscriptions", kit.withUser((_, f, scope) =>
      Effect.flatMap(Effect.map(kit.query, (q) => q.get("status") ?? ""), (status) =>
      Effect.map(subscriptions.list(scope, { limit: 100, ...(isSubscriptionStatus(status) ? { status } : {}) }), (list) =>
        kit.page(200, Pages.chrome(f, "Subscriptions", html`<form method="get" action="${Pages.modePath(f)}/subscriptions"><label for="s_status">Status</label>
<select id="s_status" name="status"><option value="">Any</option>${
          ["active", "on_hold", "cancelled"].map((v) => html`<option value="${v}"${raw(v === status ? " selected" : "")}>${v}</option>`)
        }</select> <button type="submit">Filter</button></form><div class="card"><table><thead><tr><th>Subscription</th><th>Customer</th><th>Status</th><th class="num">Amount</th><th>Next billing</th></tr></thead><tbody>${
          list.items.map((s) =>
            html`<tr><td><a href="${Pages.modePath(f)}/subscriptions/${s.subscription_id}"><code>${s.subscription_id}</code></a></td>
<td>${s.customer?.email ?? ""}</td><td>${label(s)}</td><td class="num">${Pages.money(s.recurring_amount)}</td><td>${s.status === "cancelled" ? "" : Pages.when(s.next_billing_date)}</td></tr>`
          )
        }</tbody></table>${list.items.length === 0 ? html`<p class="muted">No subscriptions.</p>` : ""}</div>`), f.nonce)))
    ))

    const subscriptionPage = (f: Pages.SignedFrame, scope: Scope, notice: { readonly error?: string } = {}, status = 200) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : Either.getOrUndefined(yield* Effect.either(subscriptions.get(scope, id)))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const s = found
        const paid = (yield* payments.list(scope, { subscription_id: s.subscription_id, limit: 100 })).items
        const timeline = (yield* events.list(scope, { subscription_id: s.subscription_id, limit: 100 })).items
        const write = can(f.user.role, "write") && s.status !== "cancelled"
        const action = (value: string, text: string) =>
          Pages.form(f, `${Pages.modePath(f)}/subscriptions/${s.subscription_id}/cancel`, html`<input type="hidden" name="when" value="${value}"><button type="submit">${text}</button>`)
        return kit.page(status, Pages.chrome(f, "Subscription", html`
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
<div class="card"><table><tr><th>Id</th><td><code>${s.subscription_id}</code></td></tr><tr><th>Status</th><td>${label(s)}</td></tr>
<tr><th>Customer</th><td>${s.customer?.email ?? ""}</td></tr><tr><th>Amount</th><td>${Pages.money(s.recurring_amount)} every ${s.interval_count === 1 ? "" : `${s.interval_count} `}${s.billing_interval}</td></tr>
<tr><th>Current period</th><td>${Pages.when(s.current_period_start)} to ${Pages.when(s.next_billing_date)}</td></tr>
${s.discounts.map((d) => html`<tr><th>Discount</th><td><strong>${d.code}</strong>: <span data-testid="subscription-discount">${subscriptionDiscountText(d)}</span></td></tr>`)}
${planRows(f, s)}</table>
${write ? html`<p>${action("now", "Cancel now")} ${s.cancel_at_period_end ? action("undo", "Keep renewing") : action("period_end", "Cancel at the period end")}</p>` : ""}${changePlanLink(f, s)}</div>
<div class="card"><h2>Payments</h2><table><tbody>${
          paid.map((p) => html`<tr><td><a href="${Pages.modePath(f)}/payments/${p.payment_id}"><code>${p.payment_id}</code></a></td><td>${p.status}</td><td class="num">${Pages.money(p.total_amount)}</td><td>${Pages.when(p.created_at)}</td></tr>`)
        }</tbody></table></div>
<div class="card"><h2>Timeline</h2><table><tbody>${
          timeline.map((e) => html`<tr><td>${Pages.when(e.created_at)}</td><td>${e.type}</td><td><a href="${Pages.modePath(f)}/events/${e.event_id}"><code>${e.event_id}</code></a></td></tr>`)
        }</tbody></table></div>`), f.nonce)
      })

    yield* kit.get("/dashboard/:mode/subscriptions/:id", kit.withUser((_, f, scope) => subscriptionPage(f, scope)))

    yield* kit.post("/dashboard/:mode/subscriptions/:id/cancel", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot cancel subscriptions.`), f.nonce)
        const id = subscriptionIdOf(yield* kit.param("id"))
        const when = kit.field(params, "when")
        const patch = when === "now" ? { status: "cancelled" as const } : when === "period_end" ? { cancel_at_period_end: true } : when === "undo" ? { cancel_at_period_end: false } : undefined
        if (id === undefined || patch === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const updated = yield* Effect.either(subscriptions.update(scope, id, patch))
        if (Either.isLeft(updated)) {
          const error = updated.left
          if (error._tag === "NotFound") return kit.page(404, Pages.notFoundPage(f), f.nonce)
          return yield* subscriptionPage(f, scope, { error: error.message }, 409)
        }
        yield* kit.audit(signed, `subscription.${when === "now" ? "cancel" : when === "undo" ? "keep" : "cancel_at_period_end"}`, id, scope.livemode)
        return kit.done(
          f,
          `${Pages.modePath(f)}/subscriptions/${id}`,
          when === "now" ? "Cancelled." : when === "undo" ? "It keeps renewing." : "It ends at the end of the current period."
        )
      })))
  })

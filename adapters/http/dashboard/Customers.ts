/**
 * The dashboard's customers pages: the list (search by e-mail, create) and a customer with their payments and
 * subscriptions (edit). Reading needs `read`, creating or changing a customer `write`; each change goes to the
 * audit log. A test customer on a test clock shows the clock, and a form that advances it (docs/api.md, "Test
 * clocks").
 */
import * as UrlParams from "@effect/platform/UrlParams"
import { DateTime, Effect, Either, Option, ParseResult, Schema } from "effect"
import { Customers } from "../../../src/application/Customers.js"
import { Payments } from "../../../src/application/Payments.js"
import { Portal } from "../../../src/application/Portal.js"
import { Subscriptions } from "../../../src/application/Subscriptions.js"
import { TestClocks } from "../../../src/application/TestClocks.js"
import * as Calendar from "../../../src/domain/Calendar.js"
import { FrozenTime, type TestClock } from "../../../src/domain/TestClock.js"
import { type Customer, CustomerCreate, CustomerName, CustomerUpdate } from "../../../src/domain/Customer.js"
import { can } from "../../../src/domain/DashboardUser.js"
import { CustomerId, parseId } from "../../../src/domain/Ids.js"
import { Buyer } from "../../../src/domain/TaxProfile.js"
import { onceField, unchanged } from "../html/Forms.js"
import { attempt, lookup } from "../html/Attempt.js"
import { html } from "../html/Html.js"
import { describeDecodeError } from "../SchemaIssues.js"
import * as Pages from "./Pages.js"
import type { Kit, Scope } from "./Kit.js"
import type { FieldErrors } from "./Fields.js"
import { type BuyerForm, buyerControls, buyerForm, buyerRows, decodeBuyerForm, sendsBusiness, typedBuyer } from "./TaxForms.js"

const customerIdOf = parseId(CustomerId)
const decodeCustomer = Schema.decodeUnknownEither(CustomerCreate, { onExcessProperty: "error", errors: "all" })
const decodeCustomerUpdate = Schema.decodeUnknownEither(CustomerUpdate, { onExcessProperty: "error", errors: "all" })
const nameLimit = Pages.limitOf(CustomerName)

/** A customer form's fields, as shown or as typed. An empty name or phone means none; so do empty business fields. */
interface CustomerForm extends BuyerForm {
  readonly name: string
  readonly email: string
  readonly phone_number: string
}
const customerForm = (c: Customer): CustomerForm => ({
  name: c.name ?? "",
  email: c.email,
  phone_number: c.phone_number ?? "",
  ...buyerForm(c.business)
})
const typedCustomer = (kit: Kit, params: Parameters<Kit["field"]>[0]): CustomerForm => ({
  name: kit.field(params, "name"),
  email: kit.field(params, "email"),
  phone_number: kit.field(params, "phone_number"),
  ...typedBuyer((name) => kit.field(params, name))
})
/** What a refused form shows: why, the form as typed, and the business fields' refusals next to them. */
interface Refused {
  readonly error: string
  readonly typed: CustomerForm
  readonly errors?: FieldErrors
  /** The new-customer form's one-time token, kept (a refused post made nothing). */
  readonly once?: string
}
const decodeFrozenTime = Schema.decodeUnknownEither(FrozenTime)
/** The clock's time format, named as it is in any language. */
const isoFormat = "ISO 8601"

/**
 * The customer form's own fields (`prefix` keeps the ids apart), then the business buyer's. A phone number reads left
 * to right on an Arabic page too (`+971…`, not `…971+`).
 */
const customerFields = (f: Pages.SignedFrame, prefix: string, shown: CustomerForm, errors: FieldErrors) => {
  const t = f.t.customers.form
  return html`<label for="${prefix}_name">${t.name(Pages.limitText(f, nameLimit))}</label><input id="${prefix}_name" name="name" value="${shown.name}">
<label for="${prefix}_email">${t.email}</label><input id="${prefix}_email" name="email" type="email" required value="${shown.email}">
<label for="${prefix}_phone">${t.phone}</label><input id="${prefix}_phone" name="phone_number" dir="ltr" value="${shown.phone_number}">
${buyerControls(shown, errors, f)}`
}

/** An advance of the customer's clock that was refused: why, and the time as typed. */
interface ClockRefused {
  readonly error: string
  readonly typed: string
}

export const customerRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const payments = yield* Payments
    const portal = yield* Portal
    const subscriptions = yield* Subscriptions
    const clocks = yield* TestClocks

    /** The customer's test clock: its time and status, and (for a writer) a form that advances it. */
    const clockCard = (f: Pages.SignedFrame, customerId: string, clock: TestClock, refused?: ClockRefused) => {
      const t = f.t.customers.clock
      return html`<div class="card"><h2>${t.heading}</h2>${refused === undefined ? "" : html`<p class="alert" role="alert">${refused.error}</p>`}
<table><tr><th>${t.clock}</th><td><code>${clock.test_clock_id}</code>${clock.name === null ? "" : html` ${clock.name}`}</td></tr>
<tr><th>${t.time}</th><td>${DateTime.formatIso(clock.frozen_time)}</td></tr><tr><th>${t.status}</th><td>${Pages.badge(f, clock.status)}${
        clock.advancing_to === null ? "" : html` ${t.advancingTo(DateTime.formatIso(clock.advancing_to))}`
      }</td></tr></table>${
        can(f.user.role, "write")
          ? Pages.form(f, `${Pages.modePath(f)}/customers/${customerId}/clock`, html`
<label for="clock_to">${t.advanceTo(isoFormat)}</label><input id="clock_to" name="frozen_time" size="26" required value="${
            refused?.typed ?? DateTime.formatIso(Calendar.periodStart(clock.frozen_time, "month", 1, 1))
          }">
<p class="muted">${t.help}</p>
<p><button type="submit">${t.advance}</button></p>`)
          : ""
      }</div>`
    }

    const customersPage = (f: Pages.SignedFrame, scope: Scope, refused?: Refused) =>
      Effect.gen(function*() {
        const email = ((yield* kit.query).get("email") ?? "").trim()
        const list = yield* attempt(customers.list(scope, { limit: 100, ...(email === "" ? {} : { email }) }))
        const items = Either.isRight(list) ? list.right.items : []
        const t = f.t.customers
        return kit.page(refused === undefined ? 200 : 400, Pages.chrome(f, t.list.title, html`
${refused === undefined ? "" : html`<p class="alert" role="alert">${refused.error}</p>`}
${Either.isLeft(list) ? html`<p class="alert" role="alert">${Pages.refused(f, list.left.message)}</p>` : ""}
<form class="filters" method="get" action="${Pages.modePath(f)}/customers" role="search" aria-label="${t.list.title}"><div class="grow"><label for="search">${t.list.searchLabel}</label>
<input id="search" name="email" type="email" value="${email}"></div><div><button type="submit">${t.list.search}</button></div></form>
<div class="card"><table class="list" aria-label="${t.list.title}"><thead><tr><th>${t.list.customer}</th><th>${t.list.phone}</th><th>${t.list.created}</th></tr></thead><tbody>${
          items.map((c) =>
            html`<tr><td class="lead"><a class="row" href="${Pages.modePath(f)}/customers/${c.customer_id}">${c.name ?? c.email}</a>${c.name === null ? "" : html`<span class="sub">${c.email}</span>`}</td><td data-label="${t.list.phone}"><bdi>${c.phone_number ?? ""}</bdi></td><td data-label="${t.list.created}">${Pages.when(f, c.created_at)}</td></tr>`
          )
        }</tbody></table>${items.length === 0 ? html`<p class="muted">${t.list.none}</p>` : ""}</div>${
          can(f.user.role, "write")
            ? html`<div class="card"><h2>${t.list.newCustomer}</h2>${
              Pages.onceForm(f, `${Pages.modePath(f)}/customers`, html`
${customerFields(f, "c", refused?.typed ?? { name: "", email: "", phone_number: "", ...buyerForm(null) }, refused?.errors ?? {})}
<p><button type="submit">${t.list.create}</button></p>`, { back: `${Pages.modePath(f)}/customers`, once: refused?.once })
            }</div>`
            : ""
        }`), f.nonce)
      })

    yield* kit.get("/dashboard/:mode/customers", kit.withUser((_, f, scope) => customersPage(f, scope)))

    yield* kit.post("/dashboard/:mode/customers", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.customers.cannot.create(f.t.frame.roles[signed.user.role])), f.nonce)
        // Taken exactly as typed (the API's schema refuses what it would not store); empty means none.
        const typed = typedCustomer(kit, params)
        const once = kit.field(params, onceField)
        const business = decodeBuyerForm(typed, null)
        if (Either.isLeft(business)) return yield* customersPage(f, scope, { error: f.t.customers.businessRefused, typed, errors: business.left, once })
        const input = decodeCustomer({
          email: typed.email,
          ...(typed.name === "" ? {} : { name: typed.name }),
          ...(typed.phone_number === "" ? {} : { phone_number: typed.phone_number }),
          ...(business.right === null ? {} : { business: Schema.encodeSync(Buyer)(business.right) })
        })
        if (Either.isLeft(input)) {
          return yield* customersPage(f, scope, { error: Pages.refused(f, describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(input.left) })), typed, once })
        }
        const created = yield* attempt(kit.makeOnce(signed, scope, params, {
          kind: "created_customers",
          action: "customer.create",
          input: input.right,
          create: customers.create(scope, input.right),
          idOf: (c) => c.customer_id,
          find: (id) => lookup(customers.get(scope, id as CustomerId))
        }))
        if (Either.isLeft(created)) return yield* customersPage(f, scope, { error: Pages.refused(f, created.left.message), typed, once })
        if (created.right === undefined) return yield* customersPage(f, scope, { error: f.t.frame.spentForm, typed, once: "" })
        return kit.done(f, `${Pages.modePath(f)}/customers/${created.right.customer_id}`, f.t.customers.created)
      })))

    /** A customer's page; after a refused edit, with the refusal and the form as typed. */
    /** `portalLink`: a portal link just made, shown this once (its secret is never shown again). */
    const customerPage = (
      f: Pages.SignedFrame,
      scope: Scope,
      refused?: Refused,
      clockRefused?: ClockRefused,
      portalLink?: { readonly url: string; readonly expires_at: DateTime.Utc }
    ) =>
      Effect.gen(function*() {
        const id = customerIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(customers.get(scope, id))
        if (found === undefined || id === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const clock = found.test_clock_id === null
          ? undefined
          : yield* lookup(clocks.get(scope, found.test_clock_id))
        const paid = yield* payments.list(scope, { customer_id: id, limit: 100 })
        const subs = yield* subscriptions.list(scope, { customer_id: id, limit: 100 })
        const shown = refused?.typed ?? customerForm(found)
        const t = f.t.customers
        return kit.page(refused === undefined && clockRefused === undefined ? 200 : 400, Pages.chrome(f, found.name ?? found.email, html`
${refused === undefined ? "" : html`<p class="alert" role="alert">${refused.error}</p>`}
${clock === undefined ? "" : clockCard(f, found.customer_id, clock, clockRefused)}
<div class="card"><h2>${t.portal.heading}</h2>${
          portalLink === undefined
            ? html`<p class="muted">${t.portal.help(found.email)}</p>`
            : html`<div class="done" role="status">${t.portal.made(found.email, Pages.when(f, portalLink.expires_at))}<br><code id="portal-link" dir="ltr">${portalLink.url}</code></div>`
        }${
          can(f.user.role, "write")
            ? Pages.form(f, `${Pages.modePath(f)}/customers/${found.customer_id}/portal-link`, html`<p><button type="submit">${portalLink === undefined ? t.portal.make : t.portal.another}</button></p>`)
            : ""
        }</div>
<div class="card"><table><tr><th>${t.customer.id}</th><td><code>${found.customer_id}</code></td></tr><tr><th>${t.customer.email}</th><td>${found.email}</td></tr>
<tr><th>${t.customer.phone}</th><td><bdi>${found.phone_number ?? ""}</bdi></td></tr><tr><th>${t.customer.created}</th><td>${Pages.when(f, found.created_at)}</td></tr>
${found.business === null ? "" : buyerRows(found.business, f)}</table>${
          can(f.user.role, "write")
            ? Pages.form(f, `${Pages.modePath(f)}/customers/${found.customer_id}`, html`
${customerFields(f, "e", shown, refused?.errors ?? {})}
<p><button type="submit">${t.form.save}</button></p>`)
            : ""
        }</div>
<p><a href="${Pages.modePath(f)}/invoices?customer_id=${found.customer_id}">${t.customer.invoices}</a> · <a href="${Pages.modePath(f)}/credit-notes?customer_id=${found.customer_id}">${t.customer.creditNotes}</a></p>
<div class="card"><h2>${t.customer.payments}</h2><table><tbody>${
          paid.items.map((p) => html`<tr><td><a href="${Pages.modePath(f)}/payments/${p.payment_id}"><code>${p.payment_id}</code></a></td><td>${Pages.badge(f, p.status)}</td><td class="num">${Pages.amount(f, p.total_amount)}</td></tr>`)
        }</tbody></table></div>
<div class="card"><h2>${t.customer.subscriptions}</h2><table><tbody>${
          subs.items.map((s) => html`<tr><td><a href="${Pages.modePath(f)}/subscriptions/${s.subscription_id}"><code>${s.subscription_id}</code></a></td><td>${Pages.badge(f, s.status)}</td><td class="num">${Pages.amount(f, s.recurring_amount)}</td></tr>`)
        }</tbody></table></div>`), f.nonce)
      })

    yield* kit.get("/dashboard/:mode/customers/:id", kit.withUser((_, f, scope) => customerPage(f, scope)))

    /**
     * "Send portal link": a customer portal session (as `POST /customer_portal_sessions` makes it), its link shown on
     * the customer's page to copy. Answered with the page itself, not a redirect: the link is a secret, never put in
     * a URL.
     */
    yield* kit.post("/dashboard/:mode/customers/:id/portal-link", kit.withPost((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.customers.cannot.portal(f.t.frame.roles[signed.user.role])), f.nonce)
        const id = customerIdOf(yield* kit.param("id"))
        // Another scope's customer is not found; a store outage is the guard's "Unavailable" page.
        const made = id === undefined ? undefined : yield* portal.create(scope, { customer_id: id }).pipe(
          Effect.catchTag("NotFound", () => Effect.succeed(undefined))
        )
        if (made === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        yield* kit.audit(signed, "customer_portal_session.create", made.customer_portal_session_id, scope.livemode)
        return yield* customerPage(f, scope, undefined, undefined, { url: made.url, expires_at: made.expires_at })
      })))

    /** Saves the edit form: a field sent back as shown keeps its stored value byte for byte; empty clears it. */
    yield* kit.post("/dashboard/:mode/customers/:id", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.customers.cannot.change(f.t.frame.roles[signed.user.role])), f.nonce)
        const id = customerIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(customers.get(scope, id))
        if (found === undefined || id === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const typed = typedCustomer(kit, params)
        const business = decodeBuyerForm(typed, found.business)
        if (Either.isLeft(business)) return yield* customerPage(f, scope, { error: f.t.customers.businessRefused, typed, errors: business.left })
        const patch = decodeCustomerUpdate({
          email: typed.email,
          name: typed.name === "" ? null : unchanged(typed.name, found.name, "input"),
          phone_number: typed.phone_number === "" ? null : typed.phone_number,
          // A post without the business fields (another client's form) leaves the business as it is.
          ...(sendsBusiness((name) => Option.isSome(UrlParams.getFirst(params, name)))
            ? { business: business.right === null ? null : Schema.encodeSync(Buyer)(business.right) }
            : {})
        })
        if (Either.isLeft(patch)) {
          return yield* customerPage(f, scope, { error: Pages.refused(f, describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(patch.left) })), typed })
        }
        const updated = yield* attempt(kit.audited(signed, "customer.update", id, scope.livemode, customers.update(scope, id, patch.right)))
        if (Either.isLeft(updated)) {
          const error = updated.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* customerPage(f, scope, { error: Pages.refused(f, error.message), typed })
        }
        return kit.done(f, `${Pages.modePath(f)}/customers/${id}`, f.t.customers.saved)
      })))

    /** Advances the customer's test clock to the time typed (taken exactly as typed; refused with the reason). */
    yield* kit.post("/dashboard/:mode/customers/:id/clock", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.customers.cannot.clock(f.t.frame.roles[signed.user.role])), f.nonce)
        const id = customerIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(customers.get(scope, id))
        if (found === undefined || id === undefined || found.test_clock_id === null) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const typed = kit.field(params, "frozen_time")
        const target = decodeFrozenTime(typed)
        if (Either.isLeft(target)) {
          return yield* customerPage(f, scope, undefined, {
            error: f.t.customers.clock.refused(isoFormat, "2027-01-31T09:00:00Z"),
            typed
          })
        }
        const advanced = yield* attempt(clocks.advance(scope, found.test_clock_id, { frozen_time: target.right }))
        if (Either.isLeft(advanced)) return yield* customerPage(f, scope, undefined, { error: Pages.refused(f, advanced.left.message), typed })
        yield* kit.audit(signed, "test_clock.advance", found.test_clock_id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/customers/${id}`, f.t.customers.clock.advanced(DateTime.formatIso(advanced.right.frozen_time)))
      })))
  })

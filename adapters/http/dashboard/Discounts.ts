/**
 * The dashboard's discounts page (docs/discounts.md): the codes, a new one, and for each a way to disable it (its
 * expiry set to now; enabled again by clearing it) or delete it. Changes need `write` (owners and admins); each goes
 * to the audit log. A refused form comes back as typed, with the reason.
 */
import * as UrlParams from "@effect/platform/UrlParams"
import { DateTime, Effect, Either, ParseResult, Schema } from "effect"
import { Discounts } from "../../../src/application/Discounts.js"
import { Products } from "../../../src/application/Products.js"
import { can } from "../../../src/domain/DashboardUser.js"
import { type Discount, DiscountCreate, DiscountName, isExpired, isUsedUp, maxBps, type SubscriptionDiscount } from "../../../src/domain/Discount.js"
import { DiscountId, parseId } from "../../../src/domain/Ids.js"
import type { Product } from "../../../src/domain/Product.js"
import { attempt, lookup } from "../html/Attempt.js"
import { onceField } from "../html/Forms.js"
import { html, raw } from "../html/Html.js"
import { dashboardCatalogues } from "../i18n/dashboard/Catalogues.js"
import { intlTag } from "../i18n/Locale.js"
import { describeDecodeError } from "../SchemaIssues.js"
import type { Kit, Scope } from "./Kit.js"
import * as Pages from "./Pages.js"
import { parseAed, parseDay } from "./Parse.js"

const discountIdOf = parseId(DiscountId)
const decodeDiscount = Schema.decodeUnknownEither(DiscountCreate, { onExcessProperty: "error", errors: "all" })
const nameLimit = Pages.limitOf(DiscountName)

/** The page's language, for the functions the subscription's page calls too. */
type Words = Pick<Pages.Frame, "t" | "locale">
const english: Words = { t: dashboardCatalogues.en, locale: "en" }

/** What a discount takes off, as a merchant reads it: `10 %`, `12.5 %`, `AED 25.00`. */
export const termsText = (f: Words, d: { readonly type: Discount["type"]; readonly amount: number }): string =>
  d.type === "percentage"
    ? f.t.discounts.percent((d.amount / 100).toLocaleString(intlTag(f.locale), { maximumFractionDigits: 2 }))
    : Pages.amount(f, d.amount)

/**
 * A subscription's discount, as its page shows it: what it takes off and for how long, in the language of `f`
 * (English when the caller gives none).
 */
export const subscriptionDiscountText = (d: SubscriptionDiscount, f: Words = english): string =>
  f.t.discounts.onSubscription(termsText(f, d), d.cycles_remaining)

/** A percentage as typed (`10`, `12.5`, `0.75`) in basis points; `undefined` unless 0.01 to 100 with two decimals at most. */
const parsePercent = (text: string): number | undefined => {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim())
  if (m === null) return undefined
  const bps = Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"))
  return bps >= 1 && bps <= maxBps ? bps : undefined
}

/** A count as typed: empty is none (`null`); otherwise a whole number from 1, else `undefined`. */
const parseCount = (text: string): number | null | undefined => {
  const t = text.trim()
  if (t === "") return null
  return /^[1-9][0-9]{0,8}$/.test(t) ? Number(t) : undefined
}

/** The new-discount form's fields, as typed. */
interface DiscountForm {
  /** The form's one-time token (`Kit.makeOnce`), kept when a refused form comes back. */
  readonly once?: string
  readonly code: string
  readonly name: string
  readonly type: string
  readonly amount: string
  readonly usage_limit: string
  readonly subscription_cycles: string
  readonly expires_on: string
  readonly restricted_to: ReadonlyArray<string>
}
const emptyForm: DiscountForm = {
  code: "",
  name: "",
  type: "percentage",
  amount: "",
  usage_limit: "",
  subscription_cycles: "",
  expires_on: "",
  restricted_to: []
}

export const discountRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const discounts = yield* Discounts
    const products = yield* Products

    const statusOf = (f: Words, d: Discount, now: DateTime.Utc) =>
      isExpired(d, now) ? f.t.discounts.status.expired : isUsedUp(d) ? f.t.discounts.status.usedUp : f.t.discounts.status.active

    /** The discounts; after a refused new discount, its fields as typed and the reason. */
    const discountsPage = (
      f: Pages.SignedFrame,
      scope: Scope,
      notice: { readonly error?: string; readonly typed?: DiscountForm } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const cursor = (yield* kit.query).get("cursor") ?? undefined
        const list = yield* attempt(discounts.list(scope, { limit: 50, cursor }))
        if (Either.isLeft(list)) return kit.page(400, Pages.notFoundPage(f), f.nonce)
        const catalog = (yield* products.list(scope, { status: "active", limit: 100 })).items
        const names = new Map<string, Product>(catalog.map((p) => [p.product_id, p]))
        const now = yield* DateTime.now
        const write = can(f.user.role, "write")
        const typed = notice.typed ?? emptyForm
        const action = (d: Discount, path: string, text: string) =>
          html`<form class="inline" method="post" action="${Pages.modePath(f)}/discounts/${d.discount_id}/${path}"><input type="hidden" name="csrf_token" value="${f.csrf}"><button class="link" type="submit">${text}</button></form>`
        const t = f.t.discounts
        return kit.page(status, Pages.chrome(f, t.title, html`
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
<div class="card"><table><thead><tr><th>${t.code}</th><th>${t.takesOff}</th><th>${t.use}</th></tr></thead><tbody>${
          // Three columns, each of a few short lines: the table fits a 390 px phone without scrolling sideways.
          list.right.items.map((d) =>
            html`<tr><td data-label="${t.code}"><strong>${d.code}</strong>${d.name === null ? "" : html`<br><small>${d.name}</small>`}<br><small><code>${d.discount_id}</code></small></td>
<td data-label="${t.takesOff}">${termsText(f, d)}<br><small>${d.restricted_to.length === 0 ? t.allProducts : d.restricted_to.map((id, i) => html`${i > 0 ? ", " : ""}${names.get(id)?.name ?? id}`)}</small>${
              d.subscription_cycles === null ? "" : html`<br><small>${t.cycles(d.subscription_cycles)}</small>`
            }</td>
<td data-label="${t.use}"><span data-testid="used">${t.used(d.times_used, d.usage_limit)}</span><br><small>${d.expires_at === null ? t.neverEnds : t.ends(Pages.when(f, d.expires_at))}</small><br><small>${statusOf(f, d, now)}</small>${
              write
                ? html`<br>${isExpired(d, now) ? action(d, "enable", t.enable) : action(d, "disable", t.disable)} ${action(d, "delete", t.delete)}`
                : ""
            }</td></tr>`
          )
        }</tbody></table>${list.right.items.length === 0 ? html`<p class="muted">${t.none}</p>` : ""}${
          list.right.next_cursor === null ? "" : html`<p><a href="${Pages.modePath(f)}/discounts?cursor=${list.right.next_cursor}">${t.older}</a></p>`
        }</div>${
          write
            ? html`<div class="card"><h2>${t.form.heading}</h2>${
              Pages.onceForm(f, `${Pages.modePath(f)}/discounts`, html`
<label for="d_code">${t.form.code}</label><input id="d_code" name="code" value="${typed.code}" autocomplete="off">
<label for="d_name">${t.form.name(Pages.limitText(f, nameLimit))}</label><input id="d_name" name="name" value="${typed.name}">
<label for="d_type">${t.form.type}</label><select id="d_type" name="type">${
                [["percentage", t.form.percentage], ["flat", t.form.flat]].map(([value, text]) =>
                  html`<option value="${value}"${raw(typed.type === value ? " selected" : "")}>${text}</option>`
                )
              }</select>
<label for="d_amount">${t.form.amount}</label><input id="d_amount" name="amount" inputmode="decimal" value="${typed.amount}" required>
<label for="d_limit">${t.form.usageLimit}</label><input id="d_limit" name="usage_limit" inputmode="numeric" value="${typed.usage_limit}">
<label for="d_cycles">${t.form.cycles}</label><input id="d_cycles" name="subscription_cycles" inputmode="numeric" value="${typed.subscription_cycles}">
<label for="d_expires">${t.form.lastDay(f.timeZone)}</label><input id="d_expires" name="expires_on" value="${typed.expires_on}" placeholder="2026-12-31">
<fieldset><legend>${t.form.appliesTo}</legend>${
                catalog.length === 0
                  ? html`<p class="muted">${t.form.noProducts}</p>`
                  : catalog.map((p) =>
                    html`<label class="check"><input type="checkbox" name="restricted_to" value="${p.product_id}"${raw(typed.restricted_to.includes(p.product_id) ? " checked" : "")}> ${p.name}</label>`
                  )
              }</fieldset>
<p><button type="submit">${t.form.create}</button></p>`, { back: `${Pages.modePath(f)}/discounts`, once: typed.once })
            }</div>`
            : ""
        }`), f.nonce)
      })

    yield* kit.get("/dashboard/:mode/discounts", kit.withUser((_, f, scope) => discountsPage(f, scope)))

    yield* kit.post("/dashboard/:mode/discounts", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.discounts.cannotCreate(f.t.frame.roles[signed.user.role])), f.nonce)
        const typed: DiscountForm = {
          once: kit.field(params, onceField),
          code: kit.field(params, "code"),
          name: kit.field(params, "name"),
          type: kit.field(params, "type"),
          amount: kit.field(params, "amount"),
          usage_limit: kit.field(params, "usage_limit"),
          subscription_cycles: kit.field(params, "subscription_cycles"),
          expires_on: kit.field(params, "expires_on"),
          restricted_to: UrlParams.getAll(params, "restricted_to")
        }
        const refuse = (error: string) => discountsPage(f, scope, { error, typed }, 400)
        const amount = typed.type === "flat" ? parseAed(typed.amount) : parsePercent(typed.amount)
        if (amount === undefined || amount <= 0) {
          return yield* refuse(typed.type === "flat" ? f.t.discounts.refusals.flat : f.t.discounts.refusals.percent)
        }
        const usageLimit = parseCount(typed.usage_limit)
        if (usageLimit === undefined) return yield* refuse(f.t.discounts.refusals.usageLimit)
        const cycles = parseCount(typed.subscription_cycles)
        if (cycles === undefined) return yield* refuse(f.t.discounts.refusals.cycles)
        const lastDay = typed.expires_on.trim() === "" ? null : parseDay(typed.expires_on, f.timeZone)
        if (lastDay === undefined) return yield* refuse(f.t.discounts.refusals.lastDay)
        const posted = {
          ...(typed.code === "" ? {} : { code: typed.code }),
          ...(typed.name === "" ? {} : { name: typed.name }),
          type: typed.type,
          amount,
          usage_limit: usageLimit,
          subscription_cycles: cycles,
          // The end of the last day: the code works all of it.
          expires_at: lastDay === null ? null : DateTime.formatIso(lastDay.end),
          restricted_to: typed.restricted_to
        }
        const input = decodeDiscount(posted)
        if (Either.isLeft(input)) return yield* refuse(Pages.refused(f, describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(input.left) })))
        const made = yield* attempt(kit.makeOnce(signed, scope, params, {
          kind: "created_discounts",
          action: "discount.create",
          input: posted,
          create: discounts.create(scope, input.right),
          idOf: (d) => d.discount_id,
          find: (id) => lookup(discounts.get(scope, id as DiscountId))
        }))
        if (Either.isLeft(made)) return yield* refuse(Pages.refused(f, made.left.message))
        if (made.right === undefined) return yield* discountsPage(f, scope, { error: f.t.frame.spentForm, typed: { ...typed, once: "" } }, 400)
        // Posted twice, both posts answer with the one discount: its code, made up by the first when none was given.
        return kit.done(f, `${Pages.modePath(f)}/discounts`, f.t.discounts.done.created(made.right.code))
      })))

    /** Disable (its expiry set to now), enable again (no expiry) or delete one of the scope's discounts. */
    const change = (what: "disable" | "enable" | "delete") =>
      kit.withPost((signed, f, scope) =>
        Effect.gen(function*() {
          if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.discounts.cannotChange(f.t.frame.roles[signed.user.role])), f.nonce)
          const id = discountIdOf(yield* kit.param("id"))
          if (id === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
          const change = what === "delete"
            ? Effect.map(discounts.delete(scope, id), () => f.t.discounts.done.deleted)
            : Effect.map(
              discounts.update(scope, id, { expires_at: what === "disable" ? yield* DateTime.now : null }),
              (d) => (what === "disable" ? f.t.discounts.done.disabled(d.code) : f.t.discounts.done.enabled(d.code))
            )
          const done = yield* attempt(kit.audited(signed, `discount.${what}`, id, scope.livemode, change))
          if (Either.isLeft(done)) {
            return done.left._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* discountsPage(f, scope, { error: Pages.refused(f, done.left.message) }, 409)
          }
          return kit.done(f, `${Pages.modePath(f)}/discounts`, done.right)
        })
      )
    yield* kit.post("/dashboard/:mode/discounts/:id/disable", change("disable"))
    yield* kit.post("/dashboard/:mode/discounts/:id/enable", change("enable"))
    yield* kit.post("/dashboard/:mode/discounts/:id/delete", change("delete"))
  })

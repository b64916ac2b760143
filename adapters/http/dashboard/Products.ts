/**
 * The dashboard's products pages: products (list, create, edit, archive), a checkout link made for a product (its
 * `checkout_url` to copy), and the checkout sessions (list, a session). Changes need `write` (owners and admins);
 * each goes to the audit log.
 */
import * as UrlParams from "@effect/platform/UrlParams"
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import { Checkout } from "../../../src/application/Checkout.js"
import { Products } from "../../../src/application/Products.js"
import { can } from "../../../src/domain/DashboardUser.js"
import { CheckoutSessionId, parseId, ProductId } from "../../../src/domain/Ids.js"
import {
  checkTaxation,
  everyInterval,
  maxTrialDays,
  type Product,
  type Taxation,
  ProductCreate,
  ProductDescription,
  ProductName,
  ProductUpdate
} from "../../../src/domain/Product.js"
import { exemptionReasons } from "../../einvoice/PintAe.js"
import { categories } from "../documents/TaxDocumentPage.js"
import { unchanged } from "../html/Forms.js"
import { html } from "../html/Html.js"
import { describeDecodeError } from "../SchemaIssues.js"
import * as Confirm from "./Confirm.js"
import { confirmLink } from "./Confirm.js"
import * as Pages from "./Pages.js"
import { parseAed } from "./Parse.js"
import type { Kit, Scope } from "./Kit.js"
import { type FieldErrors, fieldErrorsOf, selectField, textField } from "./Fields.js"
import * as PlanPolicyForm from "./PlanPolicyForm.js"

const productIdOf = parseId(ProductId)
const sessionIdOf = parseId(CheckoutSessionId)
const decodeProduct = Schema.decodeUnknownEither(ProductCreate, { onExcessProperty: "error", errors: "all" })
const decodeProductUpdate = Schema.decodeUnknownEither(ProductUpdate, { onExcessProperty: "error", errors: "all" })

/** The product edit form's fields, as shown or as typed. */
interface ProductForm extends TaxationForm, TrialForm, PlanPolicyForm.PlanChangeForm {
  readonly name: string
  readonly price: string
  readonly description: string
}

/** A recurring product's trial as its forms show it: days, and a paid trial's price in AED (empty: free). */
interface TrialForm {
  readonly trial_period_days: string
  readonly trial_amount: string
}
const trialForm = (p: Product): TrialForm => ({
  trial_period_days: String(p.trial_period_days),
  trial_amount: p.trial_amount === null ? "" : (p.trial_amount / 100).toFixed(2)
})
const typedTrial = (kit: Kit, params: Parameters<Kit["field"]>[0]): TrialForm => ({
  trial_period_days: kit.field(params, "trial_period_days"),
  trial_amount: kit.field(params, "trial_amount")
})
/**
 * The form's trial as the API's fields, or why it cannot be: days as typed (digits; anything else is left for the
 * API's schema to refuse in its words), an empty price a free trial. A field the post does not carry is left out.
 */
const trialInput = (t: TrialForm, params: UrlParams.UrlParams): Either.Either<Record<string, unknown>, string> => {
  const sent = (name: keyof TrialForm) => Option.isSome(UrlParams.getFirst(params, name))
  const amount = t.trial_amount === "" ? null : parseAed(t.trial_amount)
  if (amount === undefined) return Either.left("Enter the trial's price in AED, e.g. 10.00, or leave it empty for a free trial")
  return Either.right({
    ...(sent("trial_period_days") ? { trial_period_days: /^[0-9]{1,3}$/.test(t.trial_period_days) ? Number(t.trial_period_days) : t.trial_period_days } : {}),
    ...(sent("trial_amount") ? { trial_amount: amount } : {})
  })
}
/** The trial fields of a product form. */
const trialControls = (shown: TrialForm) =>
  html`<fieldset><legend>Trial (recurring products)</legend>
<label for="trial_period_days">Trial days (0 to ${maxTrialDays}; 0 for none)</label><input id="trial_period_days" name="trial_period_days" inputmode="numeric" value="${shown.trial_period_days}">
<label for="trial_amount">A paid trial's charge per unit, AED (empty for a free trial)</label><input id="trial_amount" name="trial_amount" inputmode="decimal" value="${shown.trial_amount}">
</fieldset>`
/** A product's trial in words. */
const trialText = (p: Product) =>
  p.trial_period_days === 0
    ? "none"
    : `${p.trial_period_days} days, ${p.trial_amount === null ? "free" : `${Pages.money(p.trial_amount)} per unit`}`

/** How a product meets VAT (docs/tax-documents.md), as its forms show it: an empty code or reason is none. */
interface TaxationForm {
  readonly tax_category: string
  readonly tax_exemption_code: string
  readonly item_type: string
  readonly item_code: string
}
const taxationFields = ["tax_category", "tax_exemption_code", "item_type", "item_code"] as const
const taxationForm = (p: Product): TaxationForm => ({
  tax_category: p.tax_category,
  tax_exemption_code: p.tax_exemption_code ?? "",
  item_type: p.item_type,
  item_code: p.item_code ?? ""
})
const typedTaxation = (kit: Kit, params: Parameters<Kit["field"]>[0]): TaxationForm => ({
  tax_category: kit.field(params, "tax_category"),
  tax_exemption_code: kit.field(params, "tax_exemption_code"),
  item_type: kit.field(params, "item_type"),
  item_code: kit.field(params, "item_code")
})
/**
 * The form's taxation as the API's fields: an empty code or reason is none; a field the post does not carry at all
 * is left out, as the API leaves it (unchanged on an edit, the default on a new product).
 */
const taxationInput = (t: TaxationForm, params: UrlParams.UrlParams) => {
  const sent = (name: (typeof taxationFields)[number]) => Option.isSome(UrlParams.getFirst(params, name))
  return {
    ...(sent("tax_category") ? { tax_category: t.tax_category } : {}),
    ...(sent("tax_exemption_code") ? { tax_exemption_code: t.tax_exemption_code === "" ? null : t.tax_exemption_code } : {}),
    ...(sent("item_type") ? { item_type: t.item_type } : {}),
    ...(sent("item_code") ? { item_code: t.item_code === "" ? null : t.item_code } : {})
  }
}
/** A decode's issues about the taxation fields, each next to its field. */
const taxationErrors = (error: ParseResult.ParseError): FieldErrors =>
  fieldErrorsOf(ParseResult.ArrayFormatter.formatErrorSync(error), (path) =>
    (taxationFields as ReadonlyArray<string>).includes(path[0] ?? "") ? path[0] : undefined)
/** The exemption reason against the category (the rule is the domain's: a reason exactly when exempt). */
const exemptionError = (decoded: { readonly [K in keyof Taxation]?: Taxation[K] | undefined }): FieldErrors => {
  const taxation: Taxation = {
    tax_category: decoded.tax_category ?? "S",
    tax_exemption_code: decoded.tax_exemption_code ?? null,
    item_type: decoded.item_type ?? "S",
    item_code: decoded.item_code ?? null
  }
  return Either.isRight(checkTaxation(taxation))
    ? {}
    : {
      tax_exemption_code: taxation.tax_exemption_code === null
        ? "An exempt product needs the reason it is exempt"
        : "Only an exempt product has an exemption reason: choose None, or the category Exempt"
    }
}
const categoryOptions: ReadonlyArray<readonly [string, string]> = Object.entries(categories).map(([code, name]) =>
  [code, `${code}: ${name.en}${code === "S" ? " (5 %)" : ""}`]
)
const exemptionOptions: ReadonlyArray<readonly [string, string]> = [
  ["", "None (not exempt)"],
  ...Object.entries(exemptionReasons).map(([code, text]) => [code, `${code}: ${text}`] as const)
]
const itemTypeOptions: ReadonlyArray<readonly [string, string]> = [["S", "Services"], ["G", "Goods"]]

/** The taxation fields of a product form. */
const taxationControls = (shown: TaxationForm, errors: FieldErrors) =>
  html`<fieldset><legend>VAT</legend>
${selectField({ name: "tax_category", label: "Tax category", value: shown.tax_category, options: categoryOptions, errors })}
${selectField({ name: "tax_exemption_code", label: "Exemption reason (exempt products only)", value: shown.tax_exemption_code, options: exemptionOptions, errors })}
${selectField({ name: "item_type", label: "Item type", value: shown.item_type, options: itemTypeOptions, errors })}
${textField({ name: "item_code", label: "Item code (optional: a service accounting code or an HS code)", value: shown.item_code, errors, attributes: `inputmode="decimal" autocomplete="off"` })}
</fieldset>`
const nameLimit = Pages.limitOf(ProductName)
const descriptionLimit = Pages.limitOf(ProductDescription)
/** The new-product form's billing choices. */
const billings: ReadonlyArray<readonly [string, string]> = [
  ["one_time", "One-time"],
  ["month", "Monthly"],
  ["year", "Yearly"],
  ["week", "Weekly"],
  ["day", "Daily"]
]
const productForm = (p: Product): ProductForm => ({
  name: p.name,
  price: (p.price / 100).toFixed(2),
  description: p.description,
  ...taxationForm(p),
  ...trialForm(p),
  ...PlanPolicyForm.planChangeForm(p)
})
const newTaxation: TaxationForm = { tax_category: "S", tax_exemption_code: "", item_type: "S", item_code: "" }
const newTrial: TrialForm = { trial_period_days: "0", trial_amount: "" }

export const productRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const products = yield* Products
    const checkout = yield* Checkout

    /** The products; after a refused new product, its fields as typed. */
    const productsPage = (
      f: Pages.SignedFrame,
      scope: Scope,
      notice: { readonly error?: string; readonly typed?: ProductForm & { readonly billing: string }; readonly errors?: FieldErrors } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const list = yield* products.list(scope, { limit: 100 })
        const write = can(f.user.role, "write")
        return kit.page(status, Pages.chrome(f, "Products", html`
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
<div class="card"><table><thead><tr><th>Product</th><th class="num">Price</th><th>Billing</th><th>Status</th><th></th></tr></thead><tbody>${
          list.items.map((p) =>
            html`<tr><td><a href="${Pages.modePath(f)}/products/${p.product_id}">${p.name}</a> <small><code>${p.product_id}</code></small></td><td class="num">${Pages.money(p.price)}</td>
<td>${
              p.billing === "recurring" && p.billing_interval !== null
                ? `${everyInterval(p.billing_interval, p.interval_count ?? 1)}${p.trial_period_days === 0 ? "" : `, ${p.trial_period_days}-day trial`}`
                : "one-time"
            }</td><td>${Pages.badge(f, p.status)}</td><td>${
              write && p.status === "active"
                ? Pages.form(f, `${Pages.modePath(f)}/products/${p.product_id}/checkout`, html`<button class="link" type="submit">Make a checkout link</button>`)
                : ""
            }${
              !write
                ? ""
                : p.status === "archived"
                ? Pages.form(f, `${Pages.modePath(f)}/products/${p.product_id}/status`, html`<input type="hidden" name="status" value="active"><button class="link" type="submit">Make active</button>`)
                : confirmLink(`${Pages.modePath(f)}/products/${p.product_id}/archive`, "Archive…", { label: `Archive ${p.name}` })
            }</td></tr>`
          )
        }</tbody></table></div>${
          write
            ? html`<div class="card"><h2>New product</h2>${
              Pages.form(f, `${Pages.modePath(f)}/products`, html`
<label for="name">Name (${Pages.limitText(f, nameLimit)})</label><input id="name" name="name" value="${notice.typed?.name ?? ""}" required>
<label for="price">Price in AED</label><input id="price" name="price" inputmode="decimal" value="${notice.typed?.price ?? ""}" required>
<label for="billing">Billing</label><select id="billing" name="billing">${
                billings.map(([value, text]) => html`<option value="${value}"${notice.typed?.billing === value ? " selected" : ""}>${text}</option>`)
              }</select>
<label for="description">Description (${Pages.limitText(f, descriptionLimit)})</label>${Pages.textarea({ id: "description", name: "description", value: notice.typed?.description ?? "" })}
${trialControls(notice.typed ?? newTrial)}
${taxationControls(notice.typed ?? newTaxation, notice.errors ?? {})}
${PlanPolicyForm.planChangeControls(notice.typed ?? PlanPolicyForm.newPlanChange, notice.errors ?? {})}
<p><button type="submit">Create product</button></p>`)
            }</div>`
            : ""
        }`), f.nonce)
      })

    yield* kit.get("/dashboard/:mode/products", kit.withUser((_, f, scope) => productsPage(f, scope)))

    yield* kit.post("/dashboard/:mode/products", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot create products.`), f.nonce)
        const typed = {
          name: kit.field(params, "name"),
          price: kit.field(params, "price"),
          billing: kit.field(params, "billing"),
          description: kit.field(params, "description"),
          ...typedTaxation(kit, params),
          ...typedTrial(kit, params),
          ...PlanPolicyForm.typedPlanChange((name) => kit.field(params, name))
        }
        const refuse = (error: string, errors?: FieldErrors) => productsPage(f, scope, { error, typed, ...(errors === undefined ? {} : { errors }) }, 400)
        const price = parseAed(typed.price)
        if (price === undefined) return yield* refuse("Enter the price in AED, e.g. 65.00")
        const trial = trialInput(typed, params)
        if (Either.isLeft(trial)) return yield* refuse(trial.left)
        const taxation = taxationInput(typed, params)
        const input = decodeProduct({
          name: typed.name,
          price,
          currency: "AED",
          // An empty description is none (the API's default).
          ...(typed.description === "" ? {} : { description: typed.description }),
          ...(typed.billing === "one_time" ? {} : { billing: "recurring", billing_interval: typed.billing }),
          ...trial.right,
          ...taxation,
          ...PlanPolicyForm.planChangeInput(typed, params)
        })
        if (Either.isLeft(input)) {
          return yield* refuse(describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(input.left) }), {
            ...taxationErrors(input.left),
            ...PlanPolicyForm.planChangeErrors(input.left)
          })
        }
        const exemption = { ...exemptionError(input.right), ...PlanPolicyForm.billingErrors(input.right.billing ?? "one_time", input.right) }
        if (Object.keys(exemption).length > 0) return yield* refuse("The product was not created: correct the fields marked below.", exemption)
        const created = yield* Effect.either(products.create(scope, input.right))
        if (Either.isLeft(created)) return yield* refuse(created.left.message)
        yield* kit.audit(signed, "product.create", created.right.product_id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/products`, `Created ${created.right.name}.`)
      })))

    /** A product's page; after a refused edit, with the refusal and the form as typed. */
    const productPage = (
      f: Pages.SignedFrame,
      scope: Scope,
      refused?: { readonly error: string; readonly typed: ProductForm; readonly errors?: FieldErrors }
    ) =>
      Effect.gen(function*() {
        const id = productIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : Either.getOrUndefined(yield* Effect.either(products.get(scope, id)))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const shown = refused?.typed ?? productForm(found)
        return kit.page(refused === undefined ? 200 : 400, Pages.chrome(f, found.name, html`
${refused === undefined ? "" : html`<p class="alert" role="alert">${refused.error}</p>`}
<div class="card"><table><tr><th>Id</th><td><code>${found.product_id}</code></td></tr><tr><th>Price</th><td>${Pages.money(found.price)}</td></tr>
<tr><th>Status</th><td>${Pages.badge(f, found.status)}</td></tr><tr><th>Description</th><td class="text">${found.description}</td></tr>
<tr><th>VAT</th><td>${found.tax_category}: ${categories[found.tax_category].en}${found.tax_exemption_code === null ? "" : ` (${found.tax_exemption_code}: ${exemptionReasons[found.tax_exemption_code]})`}</td></tr>
<tr><th>Item</th><td>${found.item_type === "G" ? "Goods" : "Services"}${found.item_code === null ? "" : html`, code <code>${found.item_code}</code>`}</td></tr>
${found.billing === "recurring" ? html`<tr><th>Trial</th><td>${trialText(found)}</td></tr><tr><th>Plan changes</th><td>${PlanPolicyForm.policyText(found.plan_change_policy)}</td></tr><tr><th>Customer portal</th><td>${found.offered_in_portal ? "offered as a plan to change to" : "not offered"}</td></tr>` : ""}</table>${
          can(f.user.role, "write")
            ? Pages.form(f, `${Pages.modePath(f)}/products/${found.product_id}`, html`
<label for="p_name">Name (${Pages.limitText(f, nameLimit)})</label><input id="p_name" name="name" required value="${shown.name}">
<label for="p_price">Price in AED</label><input id="p_price" name="price" inputmode="decimal" required value="${shown.price}">
<label for="p_description">Description (${Pages.limitText(f, descriptionLimit)})</label>${Pages.textarea({ id: "p_description", name: "description", value: shown.description })}
${found.billing === "recurring" ? trialControls(shown) : ""}
${taxationControls(shown, refused?.errors ?? {})}
${found.billing === "recurring" ? PlanPolicyForm.planChangeControls(shown, refused?.errors ?? {}) : ""}
<p><button type="submit">Save product</button></p>`)
            : ""
        }</div>`), f.nonce)
      })

    yield* kit.get("/dashboard/:mode/products/:id", kit.withUser((_, f, scope) => productPage(f, scope)))

    /**
     * Saves the edit form. A field sent back as the form showed it is kept as stored, byte for byte (a browser sends
     * a textarea's line breaks as CRLF, and drops them from an input); anything else is taken exactly as typed, or
     * refused by the API's own schema.
     */
    yield* kit.post("/dashboard/:mode/products/:id", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot change products.`), f.nonce)
        const id = productIdOf(yield* kit.param("id"))
        if (id === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const found = Either.getOrUndefined(yield* Effect.either(products.get(scope, id)))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const typed: ProductForm = {
          name: kit.field(params, "name"),
          price: kit.field(params, "price"),
          description: kit.field(params, "description"),
          ...typedTaxation(kit, params),
          ...typedTrial(kit, params),
          ...PlanPolicyForm.typedPlanChange((name) => kit.field(params, name))
        }
        const refuse = (error: string, errors?: FieldErrors) => productPage(f, scope, { error, typed, ...(errors === undefined ? {} : { errors }) })
        const price = parseAed(typed.price)
        if (price === undefined) return yield* refuse("Enter the price in AED, e.g. 65.00")
        const trial = trialInput(typed, params)
        if (Either.isLeft(trial)) return yield* refuse(trial.left)
        const taxation = taxationInput(typed, params)
        const patch = decodeProductUpdate({
          name: unchanged(typed.name, found.name, "input"),
          price,
          description: unchanged(typed.description, found.description, "textarea"),
          ...trial.right,
          ...taxation,
          ...PlanPolicyForm.planChangeInput(typed, params)
        })
        if (Either.isLeft(patch)) {
          return yield* refuse(describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(patch.left) }), {
            ...taxationErrors(patch.left),
            ...PlanPolicyForm.planChangeErrors(patch.left)
          })
        }
        // Checked here when the form sent both (it always does), so the refusal sits at the field; else the use case checks.
        const exemption = patch.right.tax_category !== undefined && patch.right.tax_exemption_code !== undefined
          ? exemptionError(patch.right)
          : {}
        if (Object.keys(exemption).length > 0) return yield* refuse("The product was not saved: correct the fields marked below.", exemption)
        const updated = yield* Effect.either(products.update(scope, id, patch.right))
        if (Either.isLeft(updated)) {
          const error = updated.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* refuse(error.message)
        }
        yield* kit.audit(signed, "product.update", id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/products/${id}`, "Saved.")
      })))

    /** What archiving product `p` does (the rules are `CheckoutSession.price`'s and `PlanChange`'s: only active products sell). */
    const archiving = (f: Pages.SignedFrame, p: { readonly product_id: string; readonly name: string; readonly billing: string }): Confirm.Confirmation => ({
      title: `Archive ${p.name}?`,
      what: [
        "No new checkout can be started for it: the API and the dashboard refuse new checkout sessions and links for an archived product.",
        "Checkout links already made for it can still be paid until they expire (24 hours after they were made).",
        ...(p.billing === "recurring"
          ? ["Subscriptions already on it keep renewing at their price; customers can no longer switch to it in the portal."]
          : []),
        "Its payments, invoices and history stay. You can make it active again at any time."
      ],
      action: `${Pages.modePath(f)}/products/${p.product_id}/status`,
      fields: { status: "archived" },
      button: "Archive the product",
      back: `${Pages.modePath(f)}/products`
    })

    yield* kit.get("/dashboard/:mode/products/:id/archive", kit.withUser((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot change products.`), f.nonce)
        const id = productIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : Either.getOrUndefined(yield* Effect.either(products.get(scope, id)))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        return kit.page(200, Confirm.confirmPage(f, archiving(f, found)), f.nonce)
      })))

    yield* kit.post("/dashboard/:mode/products/:id/status", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot change products.`), f.nonce)
        const id = productIdOf(yield* kit.param("id"))
        const status = kit.field(params, "status")
        if (id === undefined || (status !== "active" && status !== "archived")) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        if (status === "archived" && !Confirm.isConfirmed(kit.field(params, Confirm.confirmField))) {
          const found = Either.getOrUndefined(yield* Effect.either(products.get(scope, id)))
          if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
          return kit.page(400, Confirm.confirmPage(f, archiving(f, found), true), f.nonce)
        }
        const updated = yield* Effect.either(products.update(scope, id, { status }))
        if (Either.isLeft(updated)) {
          const error = updated.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* productsPage(f, scope, { error: error.message }, 400)
        }
        yield* kit.audit(signed, status === "archived" ? "product.archive" : "product.activate", id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/products`, status === "archived" ? "Archived." : "Active again.")
      })))

    yield* kit.post("/dashboard/:mode/products/:id/checkout", kit.withPost((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot make checkout links.`), f.nonce)
        const id = productIdOf(yield* kit.param("id"))
        // Only this scope's product: another account's or mode's is not found.
        if (id === undefined || Either.isLeft(yield* Effect.either(products.get(scope, id)))) {
          return kit.page(404, Pages.notFoundPage(f), f.nonce)
        }
        const session = yield* Effect.either(checkout.create(scope, { product_cart: [{ product_id: id, quantity: 1 }] }))
        if (Either.isLeft(session)) return yield* productsPage(f, scope, { error: session.left.message }, 400)
        yield* kit.audit(signed, "checkout_session.create", session.right.session_id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/checkout-sessions/${session.right.session_id}`, "Checkout link made: copy its URL below.")
      })))

    yield* kit.get("/dashboard/:mode/checkout-sessions", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const cursor = (yield* kit.query).get("cursor") ?? undefined
        const list = yield* Effect.either(checkout.list(scope, { limit: 50, cursor }))
        if (Either.isLeft(list)) return kit.page(400, Pages.notFoundPage(f), f.nonce)
        return kit.page(200, Pages.chrome(f, "Checkout sessions", html`<div class="card"><table><thead><tr><th>Session</th><th>Status</th><th class="num">Total</th><th>Created</th></tr></thead><tbody>${
          list.right.items.map((c) =>
            html`<tr><td><a href="${Pages.modePath(f)}/checkout-sessions/${c.session_id}"><code>${c.session_id}</code></a></td><td>${Pages.badge(f, c.status)}</td><td class="num">${Pages.money(c.total_amount)}</td><td>${Pages.when(f, c.created_at)}</td></tr>`
          )
        }</tbody></table>${list.right.items.length === 0 ? html`<p class="muted">No checkout sessions.</p>` : ""}${
          list.right.next_cursor === null ? "" : html`<p><a href="${Pages.modePath(f)}/checkout-sessions?cursor=${list.right.next_cursor}">Older sessions →</a></p>`
        }</div>`), f.nonce)
      })))

    yield* kit.get("/dashboard/:mode/checkout-sessions/:id", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const id = sessionIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : Either.getOrUndefined(yield* Effect.either(checkout.get(scope, id)))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        return kit.page(200, Pages.chrome(f, "Checkout session", html`<div class="card"><table>
<tr><th>Id</th><td><code>${found.session_id}</code></td></tr><tr><th>Status</th><td>${Pages.badge(f, found.status)}</td></tr>
<tr><th>Checkout URL</th><td><code id="checkout-url">${found.checkout_url}</code></td></tr>
<tr><th>Total</th><td>${Pages.money(found.total_amount)}</td></tr>${
          found.discounts.map((d) => html`<tr><th>Discount</th><td>${Pages.appliedDiscountText(f, d)}</td></tr>`)
        }<tr><th>Expires</th><td>${Pages.when(f, found.expires_at)}</td></tr>
<tr><th>Payment</th><td>${found.payment_id === null ? "" : html`<a href="${Pages.modePath(f)}/payments/${found.payment_id}"><code>${found.payment_id}</code></a>`}</td></tr>
</table><table><tbody>${
          found.product_cart.map((l) => html`<tr><td>${l.name}</td><td class="num">${l.quantity} × ${Pages.money(l.unit_amount)}</td></tr>`)
        }</tbody></table></div>`), f.nonce)
      })))
  })

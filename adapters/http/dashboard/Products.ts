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
  maxTrialDays,
  type Product,
  type Taxation,
  ProductCreate,
  ProductDescription,
  ProductName,
  ProductUpdate
} from "../../../src/domain/Product.js"
import type { ExemptionCode } from "../../../src/domain/Vat.js"
import { exemptionReasons } from "../../einvoice/PintAe.js"
import { categories } from "../documents/TaxDocumentPage.js"
import { onceField, unchanged } from "../html/Forms.js"
import { attempt, lookup } from "../html/Attempt.js"
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
const trialInput = (f: Pages.Frame, t: TrialForm, params: UrlParams.UrlParams): Either.Either<Record<string, unknown>, string> => {
  const sent = (name: keyof TrialForm) => Option.isSome(UrlParams.getFirst(params, name))
  const amount = t.trial_amount === "" ? null : parseAed(t.trial_amount)
  if (amount === undefined) return Either.left(f.t.products.refusals.trialPrice)
  return Either.right({
    ...(sent("trial_period_days") ? { trial_period_days: /^[0-9]{1,3}$/.test(t.trial_period_days) ? Number(t.trial_period_days) : t.trial_period_days } : {}),
    ...(sent("trial_amount") ? { trial_amount: amount } : {})
  })
}
/** The trial fields of a product form. */
const trialControls = (f: Pages.Frame, shown: TrialForm) =>
  html`<fieldset><legend>${f.t.products.form.trialLegend}</legend>
<label for="trial_period_days">${f.t.products.form.trialDays(maxTrialDays)}</label><input id="trial_period_days" name="trial_period_days" inputmode="numeric" value="${shown.trial_period_days}">
<label for="trial_amount">${f.t.products.form.trialAmount}</label><input id="trial_amount" name="trial_amount" inputmode="decimal" value="${shown.trial_amount}">
</fieldset>`
/** A product's trial in words. */
const trialText = (f: Pages.Frame, p: Product) =>
  p.trial_period_days === 0
    ? f.t.products.page.noTrial
    : f.t.products.page.trialText(p.trial_period_days, p.trial_amount === null ? null : Pages.amount(f, p.trial_amount))

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
const exemptionError = (f: Pages.Frame, decoded: { readonly [K in keyof Taxation]?: Taxation[K] | undefined }): FieldErrors => {
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
        ? f.t.products.refusals.exemptNeedsReason
        : f.t.products.refusals.onlyExemptHasReason
    }
}
type Options = ReadonlyArray<readonly [string, string]>
const categoryOptions = (f: Pages.Frame): Options =>
  Object.entries(categories).map(([code, name]) => [code, f.t.products.form.categoryOption(code, name[f.locale], code === "S")])
/** An exemption reason: its code and its words. */
const exemptionText = (f: Pages.Frame, code: ExemptionCode) => `${code}: ${f.t.products.form.exemptionReasons[code]}`
const exemptionOptions = (f: Pages.Frame): Options => [
  ["", f.t.products.form.notExempt],
  ...Object.keys(exemptionReasons).map((code) => [code, exemptionText(f, code as ExemptionCode)] as const)
]
const itemTypeOptions = (f: Pages.Frame): Options => [["S", f.t.products.form.services], ["G", f.t.products.form.goods]]

/** The taxation fields of a product form; `errors` already in the page's language. */
const taxationControls = (f: Pages.Frame, shown: TaxationForm, errors: FieldErrors) => {
  const t = f.t.products.form
  return html`<fieldset><legend>${t.vatLegend}</legend>
${selectField({ name: "tax_category", label: t.taxCategory, value: shown.tax_category, options: categoryOptions(f), errors })}
${selectField({ name: "tax_exemption_code", label: t.exemptionReason, value: shown.tax_exemption_code, options: exemptionOptions(f), errors })}
${selectField({ name: "item_type", label: t.itemType, value: shown.item_type, options: itemTypeOptions(f), errors })}
${textField({ name: "item_code", label: t.itemCode, value: shown.item_code, errors, attributes: `inputmode="decimal" autocomplete="off"` })}
</fieldset>`
}
const nameLimit = Pages.limitOf(ProductName)
const descriptionLimit = Pages.limitOf(ProductDescription)
/** The new-product form's billing choices, in this order. */
const billings = ["one_time", "month", "year", "week", "day"] as const
const productForm = (p: Product): ProductForm => ({
  name: p.name,
  price: (p.price / 100).toFixed(2),
  description: p.description,
  ...taxationForm(p),
  ...trialForm(p),
  ...PlanPolicyForm.planChangeForm(p)
})
/** A product's billing in the list: its interval and trial, or one-time. */
const billingText = (f: Pages.Frame, p: Product) => {
  if (p.billing !== "recurring" || p.billing_interval === null) return f.t.products.list.oneTime
  const every = f.t.products.list.every(p.billing_interval, p.interval_count ?? 1)
  return p.trial_period_days === 0 ? every : f.t.products.list.withTrial(every, p.trial_period_days)
}

/** A product form the API's schema refused: the refusal in the page's words, and each field's own under it. */
const decodeRefusal = (f: Pages.Frame, error: ParseResult.ParseError): readonly [string, FieldErrors] => [
  Pages.refused(f, describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(error) })),
  Pages.fieldErrorsIn(f, { ...taxationErrors(error), ...PlanPolicyForm.planChangeErrors(error) })
]

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
      notice: {
        readonly error?: string
        /** As typed, with the form's one-time token (kept: a refused post made nothing). */
        readonly typed?: ProductForm & { readonly billing: string; readonly once?: string }
        readonly errors?: FieldErrors
      } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const list = yield* products.list(scope, { limit: 100 })
        const write = can(f.user.role, "write")
        const t = f.t.products
        return kit.page(status, Pages.chrome(f, t.list.title, html`
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
<div class="card"><table><thead><tr><th>${t.list.product}</th><th class="num">${t.list.price}</th><th>${t.list.billing}</th><th>${t.list.status}</th><th></th></tr></thead><tbody>${
          list.items.map((p) =>
            html`<tr><td><a href="${Pages.modePath(f)}/products/${p.product_id}">${p.name}</a> <small><code>${p.product_id}</code></small></td><td class="num" data-label="${t.list.price}">${Pages.amount(f, p.price)}</td>
<td data-label="${t.list.billing}">${billingText(f, p)}</td><td data-label="${t.list.status}">${Pages.badge(f, p.status)}</td><td>${
              write && p.status === "active"
                ? Pages.form(f, `${Pages.modePath(f)}/products/${p.product_id}/checkout`, html`<button class="link" type="submit">${t.list.makeCheckoutLink}</button>`)
                : ""
            }${
              !write
                ? ""
                : p.status === "archived"
                ? Pages.form(f, `${Pages.modePath(f)}/products/${p.product_id}/status`, html`<input type="hidden" name="status" value="active"><button class="link" type="submit">${t.list.makeActive}</button>`)
                : confirmLink(`${Pages.modePath(f)}/products/${p.product_id}/archive`, t.list.archive, { label: t.list.archiveLabel(p.name) })
            }</td></tr>`
          )
        }</tbody></table></div>${
          write
            ? html`<div class="card"><h2>${t.list.newProduct}</h2>${
              Pages.onceForm(f, `${Pages.modePath(f)}/products`, html`
<label for="name">${t.form.name(Pages.limitText(f, nameLimit))}</label><input id="name" name="name" value="${notice.typed?.name ?? ""}" required>
<label for="price">${t.form.priceInAed}</label><input id="price" name="price" inputmode="decimal" value="${notice.typed?.price ?? ""}" required>
<label for="billing">${t.form.billing}</label><select id="billing" name="billing">${
                billings.map((value) => html`<option value="${value}"${notice.typed?.billing === value ? " selected" : ""}>${t.form.billings[value]}</option>`)
              }</select>
<label for="description">${t.form.description(Pages.limitText(f, descriptionLimit))}</label>${Pages.textarea({ id: "description", name: "description", value: notice.typed?.description ?? "" })}
${trialControls(f, notice.typed ?? newTrial)}
${taxationControls(f, notice.typed ?? newTaxation, notice.errors ?? {})}
${PlanPolicyForm.planChangeControls(f, notice.typed ?? PlanPolicyForm.newPlanChange, notice.errors ?? {})}
<p><button type="submit">${t.list.create}</button></p>`, { back: `${Pages.modePath(f)}/products`, once: notice.typed?.once })
            }</div>`
            : ""
        }`), f.nonce)
      })

    yield* kit.get("/dashboard/:mode/products", kit.withUser((_, f, scope) => productsPage(f, scope)))

    yield* kit.post("/dashboard/:mode/products", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.products.cannotCreate(f.t.frame.roles[signed.user.role])), f.nonce)
        const typed = {
          once: kit.field(params, onceField),
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
        if (price === undefined) return yield* refuse(f.t.products.refusals.price)
        const trial = trialInput(f, typed, params)
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
        if (Either.isLeft(input)) return yield* refuse(...decodeRefusal(f, input.left))
        const exemption = { ...exemptionError(f, input.right), ...PlanPolicyForm.billingErrors(f, input.right.billing ?? "one_time", input.right) }
        if (Object.keys(exemption).length > 0) return yield* refuse(f.t.products.list.notCreated, exemption)
        const made = yield* attempt(kit.makeOnce(signed, scope, params, {
          kind: "created_products",
          action: "product.create",
          input: input.right,
          create: products.create(scope, input.right),
          idOf: (p) => p.product_id,
          find: (id) => lookup(products.get(scope, id as ProductId))
        }))
        if (Either.isLeft(made)) return yield* refuse(Pages.refused(f, made.left.message))
        if (made.right === undefined) return yield* productsPage(f, scope, { error: f.t.frame.spentForm, typed: { ...typed, once: "" } }, 400)
        // Both posts of one form made this product, of the name they both gave.
        return kit.done(f, `${Pages.modePath(f)}/products`, f.t.products.list.created(input.right.name))
      })))

    /** A product's page; after a refused edit, with the refusal and the form as typed. */
    const productPage = (
      f: Pages.SignedFrame,
      scope: Scope,
      refused?: { readonly error: string; readonly typed: ProductForm; readonly errors?: FieldErrors }
    ) =>
      Effect.gen(function*() {
        const id = productIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(products.get(scope, id))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const shown = refused?.typed ?? productForm(found)
        const t = f.t.products
        return kit.page(refused === undefined ? 200 : 400, Pages.chrome(f, found.name, html`
${refused === undefined ? "" : html`<p class="alert" role="alert">${refused.error}</p>`}
<div class="card"><table><tr><th>${t.page.id}</th><td><code>${found.product_id}</code></td></tr><tr><th>${t.page.price}</th><td>${Pages.amount(f, found.price)}</td></tr>
<tr><th>${t.page.status}</th><td>${Pages.badge(f, found.status)}</td></tr><tr><th>${t.page.description}</th><td class="text">${found.description}</td></tr>
<tr><th>${t.page.vat}</th><td>${t.form.categoryOption(found.tax_category, categories[found.tax_category][f.locale], false)}${found.tax_exemption_code === null ? "" : ` (${exemptionText(f, found.tax_exemption_code)})`}</td></tr>
<tr><th>${t.page.item}</th><td>${found.item_type === "G" ? t.form.goods : t.form.services}${found.item_code === null ? "" : html`${t.page.itemCode} <code>${found.item_code}</code>`}</td></tr>
${
          found.billing === "recurring"
            ? html`<tr><th>${t.page.trial}</th><td>${trialText(f, found)}</td></tr><tr><th>${t.page.planChanges}</th><td>${PlanPolicyForm.policyText(f, found.plan_change_policy)}</td></tr><tr><th>${t.page.customerPortal}</th><td>${found.offered_in_portal ? t.page.offered : t.page.notOffered}</td></tr>`
            : ""
        }</table>${
          can(f.user.role, "write")
            ? Pages.form(f, `${Pages.modePath(f)}/products/${found.product_id}`, html`
<label for="p_name">${t.form.name(Pages.limitText(f, nameLimit))}</label><input id="p_name" name="name" required value="${shown.name}">
<label for="p_price">${t.form.priceInAed}</label><input id="p_price" name="price" inputmode="decimal" required value="${shown.price}">
<label for="p_description">${t.form.description(Pages.limitText(f, descriptionLimit))}</label>${Pages.textarea({ id: "p_description", name: "description", value: shown.description })}
${found.billing === "recurring" ? trialControls(f, shown) : ""}
${taxationControls(f, shown, refused?.errors ?? {})}
${found.billing === "recurring" ? PlanPolicyForm.planChangeControls(f, shown, refused?.errors ?? {}) : ""}
<p><button type="submit">${t.form.save}</button></p>`)
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
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.products.cannotChange(f.t.frame.roles[signed.user.role])), f.nonce)
        const id = productIdOf(yield* kit.param("id"))
        if (id === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const found = yield* lookup(products.get(scope, id))
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
        if (price === undefined) return yield* refuse(f.t.products.refusals.price)
        const trial = trialInput(f, typed, params)
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
        if (Either.isLeft(patch)) return yield* refuse(...decodeRefusal(f, patch.left))
        // Checked here when the form sent both (it always does), so the refusal sits at the field; else the use case checks.
        const exemption = patch.right.tax_category !== undefined && patch.right.tax_exemption_code !== undefined
          ? exemptionError(f, patch.right)
          : {}
        if (Object.keys(exemption).length > 0) return yield* refuse(f.t.products.form.notSaved, exemption)
        const updated = yield* attempt(kit.audited(signed, "product.update", id, scope.livemode, products.update(scope, id, patch.right)))
        if (Either.isLeft(updated)) {
          const error = updated.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* refuse(Pages.refused(f, error.message))
        }
        return kit.done(f, `${Pages.modePath(f)}/products/${id}`, f.t.products.form.saved)
      })))

    /** What archiving product `p` does (the rules are `CheckoutSession.price`'s and `PlanChange`'s: only active products sell). */
    const archiving = (f: Pages.SignedFrame, p: { readonly product_id: string; readonly name: string; readonly billing: string }): Confirm.Confirmation => ({
      title: f.t.products.archive.title(p.name),
      what: [
        f.t.products.archive.noNewCheckout,
        f.t.products.archive.linksStillPaid,
        ...(p.billing === "recurring" ? [f.t.products.archive.subscriptionsKeep] : []),
        f.t.products.archive.historyStays
      ],
      action: `${Pages.modePath(f)}/products/${p.product_id}/status`,
      fields: { status: "archived" },
      button: f.t.products.archive.button,
      back: `${Pages.modePath(f)}/products`
    })

    yield* kit.get("/dashboard/:mode/products/:id/archive", kit.withUser((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.products.cannotChange(f.t.frame.roles[signed.user.role])), f.nonce)
        const id = productIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(products.get(scope, id))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        return kit.page(200, Confirm.confirmPage(f, archiving(f, found)), f.nonce)
      })))

    yield* kit.post("/dashboard/:mode/products/:id/status", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.products.cannotChange(f.t.frame.roles[signed.user.role])), f.nonce)
        const id = productIdOf(yield* kit.param("id"))
        const status = kit.field(params, "status")
        if (id === undefined || (status !== "active" && status !== "archived")) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        if (status === "archived" && !Confirm.isConfirmed(kit.field(params, Confirm.confirmField))) {
          const found = yield* lookup(products.get(scope, id))
          if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
          return kit.page(400, Confirm.confirmPage(f, archiving(f, found), true), f.nonce)
        }
        const action = status === "archived" ? "product.archive" : "product.activate"
        const updated = yield* attempt(kit.audited(signed, action, id, scope.livemode, products.update(scope, id, { status })))
        if (Either.isLeft(updated)) {
          const error = updated.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* productsPage(f, scope, { error: Pages.refused(f, error.message) }, 400)
        }
        return kit.done(f, `${Pages.modePath(f)}/products`, status === "archived" ? f.t.products.archive.archived : f.t.products.archive.activeAgain)
      })))

    yield* kit.post("/dashboard/:mode/products/:id/checkout", kit.withPost((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, f.t.products.cannotMakeLinks(f.t.frame.roles[signed.user.role])), f.nonce)
        const id = productIdOf(yield* kit.param("id"))
        // Only this scope's product: another account's or mode's is not found.
        if (id === undefined || Either.isLeft(yield* attempt(products.get(scope, id)))) {
          return kit.page(404, Pages.notFoundPage(f), f.nonce)
        }
        const session = yield* attempt(checkout.create(scope, { product_cart: [{ product_id: id, quantity: 1 }] }))
        if (Either.isLeft(session)) return yield* productsPage(f, scope, { error: Pages.refused(f, session.left.message) }, 400)
        yield* kit.audit(signed, "checkout_session.create", session.right.session_id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/checkout-sessions/${session.right.session_id}`, f.t.products.checkoutLinkMade)
      })))

    yield* kit.get("/dashboard/:mode/checkout-sessions", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const cursor = (yield* kit.query).get("cursor") ?? undefined
        const list = yield* attempt(checkout.list(scope, { limit: 50, cursor }))
        if (Either.isLeft(list)) return kit.page(400, Pages.notFoundPage(f), f.nonce)
        const t = f.t.products.sessions
        return kit.page(200, Pages.chrome(f, t.title, html`<div class="card"><table><thead><tr><th>${t.session}</th><th>${t.status}</th><th class="num">${t.total}</th><th>${t.created}</th></tr></thead><tbody>${
          list.right.items.map((c) =>
            html`<tr><td><a href="${Pages.modePath(f)}/checkout-sessions/${c.session_id}"><code>${c.session_id}</code></a></td><td data-label="${t.status}">${Pages.badge(f, c.status)}</td><td class="num" data-label="${t.total}">${Pages.amount(f, c.total_amount)}</td><td data-label="${t.created}">${Pages.when(f, c.created_at)}</td></tr>`
          )
        }</tbody></table>${list.right.items.length === 0 ? html`<p class="muted">${t.none}</p>` : ""}${
          list.right.next_cursor === null ? "" : html`<p><a href="${Pages.modePath(f)}/checkout-sessions?cursor=${list.right.next_cursor}">${t.older}</a></p>`
        }</div>`), f.nonce)
      })))

    yield* kit.get("/dashboard/:mode/checkout-sessions/:id", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const id = sessionIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(checkout.get(scope, id))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const t = f.t.products.session
        return kit.page(200, Pages.chrome(f, t.title, html`<div class="card"><table>
<tr><th>${t.id}</th><td><code>${found.session_id}</code></td></tr><tr><th>${t.status}</th><td>${Pages.badge(f, found.status)}</td></tr>
<tr><th>${t.checkoutUrl}</th><td><code id="checkout-url">${found.checkout_url}</code></td></tr>
<tr><th>${t.total}</th><td>${Pages.amount(f, found.total_amount)}</td></tr>${
          found.discounts.map((d) => html`<tr><th>${t.discount}</th><td>${Pages.appliedDiscountText(f, d)}</td></tr>`)
        }<tr><th>${t.expires}</th><td>${Pages.when(f, found.expires_at)}</td></tr>
<tr><th>${t.payment}</th><td>${found.payment_id === null ? "" : html`<a href="${Pages.modePath(f)}/payments/${found.payment_id}"><code>${found.payment_id}</code></a>`}</td></tr>
</table><table><tbody>${
          found.product_cart.map((l) => html`<tr><td>${l.name}</td><td class="num">${l.quantity} × ${Pages.amount(f, l.unit_amount)}</td></tr>`)
        }</tbody></table></div>`), f.nonce)
      })))
  })

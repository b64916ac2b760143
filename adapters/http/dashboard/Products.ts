/**
 * The dashboard's products pages: products (list, create, edit, archive), a checkout link made for a product (its
 * `checkout_url` to copy), and the checkout sessions (list, a session). Changes need `write` (owners and admins);
 * each goes to the audit log.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import { Checkout } from "../../../src/application/Checkout.js"
import { Products } from "../../../src/application/Products.js"
import { can } from "../../../src/domain/DashboardUser.js"
import { CheckoutSessionId, parseId, ProductId } from "../../../src/domain/Ids.js"
import { type Product, ProductCreate, ProductDescription, ProductName, ProductUpdate } from "../../../src/domain/Product.js"
import { unchanged } from "../html/Forms.js"
import { html } from "../html/Html.js"
import { describeDecodeError } from "../SchemaIssues.js"
import * as Pages from "./Pages.js"
import { parseAed } from "./Parse.js"
import type { Kit, Scope } from "./Kit.js"

const productIdOf = parseId(ProductId)
const sessionIdOf = parseId(CheckoutSessionId)
const decodeProduct = Schema.decodeUnknownEither(ProductCreate, { onExcessProperty: "error", errors: "all" })
const decodeProductUpdate = Schema.decodeUnknownEither(ProductUpdate, { onExcessProperty: "error", errors: "all" })

/** The product edit form's fields, as shown or as typed. */
interface ProductForm {
  readonly name: string
  readonly price: string
  readonly description: string
}
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
const productForm = (p: Product): ProductForm => ({ name: p.name, price: (p.price / 100).toFixed(2), description: p.description })

export const productRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const products = yield* Products
    const checkout = yield* Checkout

    /** The products; after a refused new product, its fields as typed. */
    const productsPage = (
      f: Pages.SignedFrame,
      scope: Scope,
      notice: { readonly error?: string; readonly typed?: ProductForm & { readonly billing: string } } = {},
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
<td>${p.billing === "recurring" ? `every ${p.interval_count === 1 ? "" : `${p.interval_count} `}${p.billing_interval}` : "one-time"}</td><td>${p.status}</td><td>${
              write && p.status === "active"
                ? Pages.form(f, `${Pages.modePath(f)}/products/${p.product_id}/checkout`, html`<button class="link" type="submit">Make a checkout link</button>`)
                : ""
            }${
              write
                ? Pages.form(f, `${Pages.modePath(f)}/products/${p.product_id}/status`, html`<input type="hidden" name="status" value="${p.status === "archived" ? "active" : "archived"}"><button class="link" type="submit">${p.status === "archived" ? "Make active" : "Archive"}</button>`)
                : ""
            }</td></tr>`
          )
        }</tbody></table></div>${
          write
            ? html`<div class="card"><h2>New product</h2>${
              Pages.form(f, `${Pages.modePath(f)}/products`, html`
<label for="name">Name (${nameLimit})</label><input id="name" name="name" value="${notice.typed?.name ?? ""}" required>
<label for="price">Price in AED</label><input id="price" name="price" inputmode="decimal" value="${notice.typed?.price ?? ""}" required>
<label for="billing">Billing</label><select id="billing" name="billing">${
                billings.map(([value, text]) => html`<option value="${value}"${notice.typed?.billing === value ? " selected" : ""}>${text}</option>`)
              }</select>
<label for="description">Description (${descriptionLimit})</label>${Pages.textarea({ id: "description", name: "description", value: notice.typed?.description ?? "" })}
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
          description: kit.field(params, "description")
        }
        const refuse = (error: string) => productsPage(f, scope, { error, typed }, 400)
        const price = parseAed(typed.price)
        if (price === undefined) return yield* refuse("Enter the price in AED, e.g. 65.00")
        const input = decodeProduct({
          name: typed.name,
          price,
          currency: "AED",
          // An empty description is none (the API's default).
          ...(typed.description === "" ? {} : { description: typed.description }),
          ...(typed.billing === "one_time" ? {} : { billing: "recurring", billing_interval: typed.billing })
        })
        if (Either.isLeft(input)) return yield* refuse(describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(input.left) }))
        const created = yield* Effect.either(products.create(scope, input.right))
        if (Either.isLeft(created)) return yield* refuse(created.left.message)
        yield* kit.audit(signed, "product.create", created.right.product_id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/products`, `Created ${created.right.name}.`)
      })))

    /** A product's page; after a refused edit, with the refusal and the form as typed. */
    const productPage = (f: Pages.SignedFrame, scope: Scope, refused?: { readonly error: string; readonly typed: ProductForm }) =>
      Effect.gen(function*() {
        const id = productIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : Either.getOrUndefined(yield* Effect.either(products.get(scope, id)))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const shown = refused?.typed ?? productForm(found)
        return kit.page(refused === undefined ? 200 : 400, Pages.chrome(f, found.name, html`
${refused === undefined ? "" : html`<p class="alert" role="alert">${refused.error}</p>`}
<div class="card"><table><tr><th>Id</th><td><code>${found.product_id}</code></td></tr><tr><th>Price</th><td>${Pages.money(found.price)}</td></tr>
<tr><th>Status</th><td>${found.status}</td></tr><tr><th>Description</th><td class="text">${found.description}</td></tr></table>${
          can(f.user.role, "write")
            ? Pages.form(f, `${Pages.modePath(f)}/products/${found.product_id}`, html`
<label for="p_name">Name (${nameLimit})</label><input id="p_name" name="name" required value="${shown.name}">
<label for="p_price">Price in AED</label><input id="p_price" name="price" inputmode="decimal" required value="${shown.price}">
<label for="p_description">Description (${descriptionLimit})</label>${Pages.textarea({ id: "p_description", name: "description", value: shown.description })}
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
        const typed: ProductForm = { name: kit.field(params, "name"), price: kit.field(params, "price"), description: kit.field(params, "description") }
        const refuse = (error: string) => productPage(f, scope, { error, typed })
        const price = parseAed(typed.price)
        if (price === undefined) return yield* refuse("Enter the price in AED, e.g. 65.00")
        const patch = decodeProductUpdate({
          name: unchanged(typed.name, found.name, "input"),
          price,
          description: unchanged(typed.description, found.description, "textarea")
        })
        if (Either.isLeft(patch)) return yield* refuse(describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(patch.left) }))
        const updated = yield* Effect.either(products.update(scope, id, patch.right))
        if (Either.isLeft(updated)) {
          const error = updated.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* refuse(error.message)
        }
        yield* kit.audit(signed, "product.update", id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/products/${id}`, "Saved.")
      })))

    yield* kit.post("/dashboard/:mode/products/:id/status", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "write")) return kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot change products.`), f.nonce)
        const id = productIdOf(yield* kit.param("id"))
        const status = kit.field(params, "status")
        if (id === undefined || (status !== "active" && status !== "archived")) return kit.page(404, Pages.notFoundPage(f), f.nonce)
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
            html`<tr><td><a href="${Pages.modePath(f)}/checkout-sessions/${c.session_id}"><code>${c.session_id}</code></a></td><td>${c.status}</td><td class="num">${Pages.money(c.total_amount)}</td><td>${Pages.when(c.created_at)}</td></tr>`
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
<tr><th>Id</th><td><code>${found.session_id}</code></td></tr><tr><th>Status</th><td>${found.status}</td></tr>
<tr><th>Checkout URL</th><td><code id="checkout-url">${found.checkout_url}</code></td></tr>
<tr><th>Total</th><td>${Pages.money(found.total_amount)}</td></tr><tr><th>Expires</th><td>${Pages.when(found.expires_at)}</td></tr>
<tr><th>Payment</th><td>${found.payment_id === null ? "" : html`<a href="${Pages.modePath(f)}/payments/${found.payment_id}"><code>${found.payment_id}</code></a>`}</td></tr>
</table><table><tbody>${
          found.product_cart.map((l) => html`<tr><td>${l.name}</td><td class="num">${l.quantity} × ${Pages.money(l.unit_amount)}</td></tr>`)
        }</tbody></table></div>`), f.nonce)
      })))
  })

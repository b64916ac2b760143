/**
 * The unit of work of a request with an `Idempotency-Key`: the objects it creates are not written as it runs but
 * collected, and written with the key's answer in one transaction (`IdempotencyService`), so an object exists if and
 * only if its answer does. Collecting instead of holding a transaction open across the work is what lets the answers
 * and objects of concurrent requests be written together: one transaction and a few statements for a burst.
 *
 * A use case creates through `create`: staged under a key, written at once otherwise. Under a key a use case writes
 * nothing else: what is not staged would commit without the answer.
 */
import { Context, Data, Effect, Option } from "effect"
import type { CheckoutSession } from "../domain/CheckoutSession.js"
import type { Customer } from "../domain/Customer.js"
import type { Discount } from "../domain/Discount.js"
import type { PortalSession } from "../domain/PortalSession.js"
import type { Product } from "../domain/Product.js"
import type { WebhookEndpoint } from "../domain/WebhookEndpoint.js"
import type { StoreUnavailable } from "../domain/Errors.js"
import { CheckoutSessionRepository, type CheckoutSessionRepositoryShape } from "../ports/repositories/CheckoutSessionRepository.js"
import { CustomerRepository, type CustomerRepositoryShape } from "../ports/repositories/CustomerRepository.js"
import { DiscountRepository, type DiscountRepositoryShape } from "../ports/repositories/DiscountRepository.js"
import { PortalSessionRepository, type PortalSessionRepositoryShape } from "../ports/repositories/PortalSessionRepository.js"
import { ProductRepository, type ProductRepositoryShape } from "../ports/repositories/ProductRepository.js"
import { WebhookRepository, type WebhookRepositoryShape } from "../ports/repositories/WebhookRepository.js"

/** A new object, as a keyed request's work creates it. */
export type Created = Data.TaggedEnum<{
  Product: { readonly product: Product }
  Customer: { readonly customer: Customer }
  CheckoutSession: { readonly session: CheckoutSession }
  WebhookEndpoint: { readonly endpoint: WebhookEndpoint }
  PortalSession: { readonly session: PortalSession }
  Discount: { readonly discount: Discount }
}>
export const Created = Data.taggedEnum<Created>()

/** Present while a keyed request's work runs: where its objects go until they are written with the answer. */
export class UnitOfWork extends Context.Tag("fils/UnitOfWork")<UnitOfWork, {
  readonly stage: (created: Created) => Effect.Effect<void>
}>() {}

/** Stages `created` in the running unit of work; without one, writes it now with `write`. */
export const create = <E, R>(created: Created, write: Effect.Effect<void, E, R>): Effect.Effect<void, E, R> =>
  Effect.flatMap(
    Effect.serviceOption(UnitOfWork),
    Option.match({ onNone: () => write, onSome: (unit) => unit.stage(created) })
  )

/** Whether a unit of work is running: its objects are staged, so they need no transaction of their own. */
export const isStaging: Effect.Effect<boolean> = Effect.map(Effect.serviceOption(UnitOfWork), Option.isSome)

/**
 * Writes the objects of several units of work, grouped by kind (one statement per kind where the store has one);
 * inside the transaction of their answers.
 */
export interface Writers {
  readonly customers: CustomerRepositoryShape
  readonly discounts: DiscountRepositoryShape
  readonly portalSessions: PortalSessionRepositoryShape
  readonly products: ProductRepositoryShape
  readonly sessions: CheckoutSessionRepositoryShape
  readonly webhooks: WebhookRepositoryShape
}

/** The repositories `writeAll` writes to, from the context. */
export const writers: Effect.Effect<
  Writers,
  never,
  | CustomerRepository
  | DiscountRepository
  | PortalSessionRepository
  | ProductRepository
  | CheckoutSessionRepository
  | WebhookRepository
> = Effect.all({
  customers: CustomerRepository,
  discounts: DiscountRepository,
  portalSessions: PortalSessionRepository,
  products: ProductRepository,
  sessions: CheckoutSessionRepository,
  webhooks: WebhookRepository
})

export const writeAll = (repos: Writers, created: ReadonlyArray<Created>): Effect.Effect<void, StoreUnavailable> => {
  const products: Array<Product> = []
  const sessions: Array<CheckoutSession> = []
  const one: Array<Effect.Effect<void, StoreUnavailable>> = []
  for (const item of created) {
    Created.$match(item, {
      Product: ({ product }) => void products.push(product),
      CheckoutSession: ({ session }) => void sessions.push(session),
      // A checkout's new customer is written before its session.
      Customer: ({ customer }) => void one.push(repos.customers.insert(customer)),
      WebhookEndpoint: ({ endpoint }) => void one.push(repos.webhooks.insert(endpoint)),
      PortalSession: ({ session }) => void one.push(repos.portalSessions.insert(session)),
      // Its code was free when the work ran; one taken since fails the commit (the request answers 500, its key
      // is released, and a retry is refused with the taken code).
      Discount: ({ discount }) =>
        void one.push(Effect.flatMap(repos.discounts.insert(discount), (written) =>
          written ? Effect.void : Effect.dieMessage(`discount code ${discount.code} was taken while the request ran`)))
    })
  }
  return Effect.all([
    Effect.all(one, { discard: true }),
    products.length === 0 ? Effect.void : repos.products.insertAll(products),
    sessions.length === 0 ? Effect.void : repos.sessions.insertAll(sessions)
  ], { discard: true })
}

/**
 * Discount codes (docs/discounts.md): create, read, list, change and delete a scope's discounts, and find the
 * discount a code names for a cart (`redeemableCode`, which checkout uses). A code is unique per account and mode
 * whatever its case: the store's rule, so two requests at once cannot both take one.
 */
import { DateTime, Effect, Option, Random } from "effect"
import type { Scope } from "../domain/Account.js"
import * as Discount from "../domain/Discount.js"
import { DiscountCodeTaken, InvalidRequest, notFound } from "../domain/Errors.js"
import type { DiscountId, ProductId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import { Transactions } from "../ports/Transactions.js"
import { DiscountRepository, type DiscountRepositoryShape } from "../ports/repositories/DiscountRepository.js"
import { ProductRepository } from "../ports/repositories/ProductRepository.js"
import { newId } from "./Ids.js"
import * as UnitOfWork from "./UnitOfWork.js"

export interface DiscountListParams {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** What `DELETE /discounts/{id}` answers. */
export interface DiscountDeleted {
  readonly object: "discount"
  readonly discount_id: DiscountId
  readonly deleted: true
}

/** A code made up for a discount created without one: `Discount.generatedCodeLength` of `Discount.codeAlphabet`. */
const randomCode = Effect.map(
  Effect.all(Array.from({ length: Discount.generatedCodeLength }, () => Random.nextIntBetween(0, Discount.codeAlphabet.length))),
  (picks) => picks.map((i) => Discount.codeAlphabet[i]).join("")
)

/** A code as typed could be a code at all (letters, digits, `-`, `_`): anything else names no discount. */
const couldBeCode = (typed: string) => /^[A-Za-z0-9_-]{1,100}$/.test(typed.trim())

/**
 * The discount `typed` names in `scope`, if a cart of `productIds` may redeem it now (`Discount.redeemable`); refused
 * with the reason otherwise, in the typed code's words.
 */
export const redeemableCode = (
  discounts: DiscountRepositoryShape,
  scope: Scope,
  typed: string,
  productIds: ReadonlyArray<ProductId>
) =>
  Effect.gen(function*() {
    const found = couldBeCode(typed) ? yield* discounts.findByCode(scope, typed) : Option.none()
    if (Option.isNone(found)) return yield* new Discount.DiscountNotRedeemable({ discount_code: typed, reason: "unknown" })
    return yield* Discount.redeemable(found.value, typed, yield* DateTime.now, productIds)
  })

export class Discounts extends Effect.Service<Discounts>()("fils/Discounts", {
  effect: Effect.gen(function*() {
    const discountRepo = yield* DiscountRepository
    const productRepo = yield* ProductRepository
    const transactions = yield* Transactions

    /** A discount is restricted to products of its own scope: one that is not there is named. */
    const checkProducts = (scope: Scope, ids: ReadonlyArray<ProductId>) =>
      Effect.gen(function*() {
        if (ids.length === 0) return
        const found = new Set((yield* productRepo.getAll(scope, ids)).map((p) => p.product_id))
        const missing = ids.findIndex((id) => !found.has(id))
        if (missing !== -1) {
          return yield* new InvalidRequest({ message: `restricted_to.${missing}: no such product '${ids[missing]}'` })
        }
      })

    const create = Effect.fn("Discounts.create")(function*(scope: Scope, input: Discount.DiscountCreate) {
      const discount = yield* Discount.create(input, {
        id: yield* newId<DiscountId>(prefixes.discount),
        accountId: scope.accountId,
        livemode: scope.livemode,
        code: input.code ?? (yield* randomCode),
        now: yield* DateTime.now
      })
      yield* checkProducts(scope, discount.restricted_to)
      const taken = new DiscountCodeTaken({ discount_code: discount.code })
      // Under an Idempotency-Key the discount is written with the key's answer (`UnitOfWork`): the code is looked up
      // first so that a taken one is refused in words; the store's rule still decides at the write.
      if (yield* UnitOfWork.isStaging) {
        if (Option.isSome(yield* discountRepo.findByCode(scope, discount.code))) return yield* taken
      }
      yield* UnitOfWork.create(
        UnitOfWork.Created.Discount({ discount }),
        Effect.flatMap(discountRepo.insert(discount), (written) => (written ? Effect.void : Effect.fail(taken)))
      )
      return discount
    })

    const get = Effect.fn("Discounts.get")(function*(scope: Scope, id: DiscountId) {
      const found = yield* discountRepo.get(scope, id)
      return Option.isSome(found) ? found.value : yield* notFound("discount", id)
    })

    const list = Effect.fn("Discounts.list")(function*(scope: Scope, params: DiscountListParams) {
      const key = Pagination.listKey("discounts", {})
      const page = yield* Pagination.pageRequest(key, params)
      return Pagination.toList(key, yield* discountRepo.list(scope, page), Discount.position)
    })

    /** `PATCH`: the fields given change (`Discount.update`); a discount being redeemed meanwhile waits for it. */
    const update = Effect.fn("Discounts.update")(function*(scope: Scope, id: DiscountId, patch: Discount.DiscountUpdate) {
      return yield* transactions.transact(Effect.gen(function*() {
        const current = Option.getOrNull(yield* discountRepo.lock(scope, id)) ?? (yield* notFound("discount", id))
        const next = yield* Discount.update(current, patch)
        if (next === current) return current
        if (patch.restricted_to !== undefined) yield* checkProducts(scope, next.restricted_to)
        if (!(yield* discountRepo.update(next))) return yield* new DiscountCodeTaken({ discount_code: next.code })
        return next
      }))
    })

    /**
     * Deletes it for good: its code can no longer be redeemed (a checkout that carries it is refused at payment) and
     * may be given to another discount. Subscriptions started with it keep it for the cycles they have left.
     */
    const remove = Effect.fn("Discounts.delete")(function*(scope: Scope, id: DiscountId) {
      if (!(yield* discountRepo.delete(scope, id))) return yield* notFound("discount", id)
      return { object: "discount", discount_id: id, deleted: true } satisfies DiscountDeleted
    })

    /** The discount `code` names for a cart of `productIds` (docs/discounts.md), as checkout would take it now. */
    const redeemable = (scope: Scope, code: string, productIds: ReadonlyArray<ProductId>) =>
      redeemableCode(discountRepo, scope, code, productIds)

    return { create, get, list, update, delete: remove, redeemable } as const
  })
}) {}

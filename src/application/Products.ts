/** Products: create, read, update and list, in the caller's scope. */
import { DateTime, Effect, Option } from "effect"
import type { Scope } from "../domain/Account.js"
import { notFound } from "../domain/Errors.js"
import type { ProductId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import * as Product from "../domain/Product.js"
import { Transactions } from "../ports/Transactions.js"
import { ProductRepository } from "../ports/repositories/ProductRepository.js"
import { batched } from "./Batched.js"
import { newId } from "./Ids.js"
import * as UnitOfWork from "./UnitOfWork.js"
import { whenTraced } from "./Spans.js"

export interface ProductListParams extends Product.ProductFilter {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}


export class Products extends Effect.Service<Products>()("fils/Products", {
  scoped: Effect.gen(function*() {
    const productRepo = yield* ProductRepository
    const transactions = yield* Transactions
    // Products created together are written together: one statement and one commit for a burst, not one each.
    // Each caller still waits for the write that carries its own. A caller in a transaction writes in it: a batch
    // runs outside it. Under an Idempotency-Key the product is written with the key's answer (`UnitOfWork`).
    const batch = yield* batched(productRepo.insertAll, { max: 100 })
    const insert = (product: Product.Product) =>
      UnitOfWork.create(
        UnitOfWork.Created.Product({ product }),
        Effect.flatMap(transactions.inTransaction, (inside) => inside ? productRepo.insert(product) : batch(product))
      )

    const create = whenTraced("Products.create", Effect.fnUntraced(function*(scope: Scope, input: Product.ProductCreate) {
      const product = yield* Product.create(input, {
        id: yield* newId<ProductId>(prefixes.product),
        accountId: scope.accountId,
        livemode: scope.livemode,
        now: yield* DateTime.now
      })
      yield* insert(product)
      return product
    }))

    const get = Effect.fn("Products.get")(function*(scope: Scope, id: ProductId) {
      const found = yield* productRepo.get(scope, id)
      return Option.isSome(found) ? found.value : yield* notFound("product", id)
    })

    const update = Effect.fn("Products.update")(function*(scope: Scope, id: ProductId, patch: Product.ProductUpdate) {
      return yield* transactions.transact(Effect.gen(function*() {
        // Locked: two updates at once take turns, and the second applies its patch to what the first wrote.
        const current = Option.getOrNull(yield* productRepo.lock(scope, id)) ?? (yield* notFound("product", id))
        const next = yield* Product.update(current, patch, yield* DateTime.now)
        if (next !== current) yield* productRepo.update(next)
        return next
      }))
    })

    const list = Effect.fn("Products.list")(function*(scope: Scope, params: ProductListParams) {
      const key = Pagination.listKey("products", { status: params.status, billing: params.billing })
      const page = yield* Pagination.pageRequest(key, params)
      const result = yield* productRepo.list(scope, { status: params.status, billing: params.billing }, page)
      return Pagination.toList(key, result, Product.position)
    })

    return { create, get, update, list } as const
  })
}) {}

/**
 * The catalog: a scope's products.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { ProductId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { Product, ProductFilter } from "../../domain/Product.js"
import type { Op } from "./Op.js"

export interface ProductsRepo {
  readonly insert: (product: Product) => Op<void>
  /** Several at once, in one write (products created together: `Products.create` gathers them). */
  readonly insertAll: (products: ReadonlyArray<Product>) => Op<void>
  readonly get: (scope: Scope, id: ProductId) => Op<Option.Option<Product>>
  /** `get`, locking the row until the transaction ends (inside `transact`): an update reads with it. */
  readonly lock: (scope: Scope, id: ProductId) => Op<Option.Option<Product>>
  /** Several of the scope at once (a cart's), in one statement: those that exist, in no particular order. */
  readonly getAll: (scope: Scope, ids: ReadonlyArray<ProductId>) => Op<ReadonlyArray<Product>>
  /**
   * By id alone, several at once, in one statement: those that exist, each once, in byte order of their ids. For
   * reads gathered from several scopes (`batchedReads`), which keep each caller's own.
   */
  readonly findAll: (ids: ReadonlyArray<ProductId>) => Op<ReadonlyArray<Product>>
  readonly update: (product: Product) => Op<void>
  readonly list: (scope: Scope, filter: ProductFilter, page: PageRequest) => Op<Page<Product>>
}

/** The catalog: a scope's products. */
export type ProductRepositoryShape = ProductsRepo

export class ProductRepository extends Context.Tag("fils/ProductRepository")<ProductRepository, ProductRepositoryShape>() {}

/**
 * Discount codes: a scope's discounts, found by id or by code (docs/discounts.md).
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { Discount } from "../../domain/Discount.js"
import type { DiscountId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { Op } from "./Op.js"

export interface DiscountsRepo {
  /**
   * Writes a new discount; `false`, writing nothing, when another discount of its scope has its code (compared as
   * `Discount.codeKey`: a rule of the store, so two merchants' requests at once cannot both take a code).
   */
  readonly insert: (discount: Discount) => Op<boolean>
  readonly get: (scope: Scope, id: DiscountId) => Op<Option.Option<Discount>>
  /** `get`, locking the row until the transaction ends (inside `transact`): a change or a redemption reads with it. */
  readonly lock: (scope: Scope, id: DiscountId) => Op<Option.Option<Discount>>
  /**
   * By id alone, several at once, locked inside a transaction in byte order of their ids: those that exist (the
   * discounts whose uses the payments being recorded held).
   */
  readonly lockAll: (ids: ReadonlyArray<DiscountId>) => Op<ReadonlyArray<Discount>>
  /** The scope's discount with the code `code` (compared as `Discount.codeKey`), if any. */
  readonly findByCode: (scope: Scope, code: string) => Op<Option.Option<Discount>>
  /** Saves a changed discount; `false`, saving nothing, when its new code is another discount's of the scope. */
  readonly update: (discount: Discount) => Op<boolean>
  /** Deletes it for good; `false` when the scope has no such discount. */
  readonly delete: (scope: Scope, id: DiscountId) => Op<boolean>
  /** Newest first. */
  readonly list: (scope: Scope, page: PageRequest) => Op<Page<Discount>>
}

export type DiscountRepositoryShape = DiscountsRepo

export class DiscountRepository extends Context.Tag("fils/DiscountRepository")<DiscountRepository, DiscountRepositoryShape>() {}

/**
 * The store's transactions: a unit of work that commits whole or not at all. A port of its own, so that a use case
 * that writes several aggregates together names it, and one that does not, does not.
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { StoreUnavailable } from "../domain/Errors.js"

export interface TransactionsShape {
  /**
   * Runs `effect` as one transaction: all of its writes commit together or none do. Nested calls join the outer
   * transaction.
   */
  readonly transact: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>
  /**
   * Whether the current fiber runs inside `transact`. Writes gathered into batches (`Batched.ts`) run on a fiber of
   * their own, outside any caller's transaction, so a caller inside one writes directly instead.
   */
  readonly inTransaction: Effect.Effect<boolean>
}

export class Transactions extends Context.Tag("fils/Transactions")<Transactions, TransactionsShape>() {}

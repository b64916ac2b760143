/**
 * Test clocks, with what is attached to them (docs/api.md, "Test clocks"): the customers created on a clock, and
 * their checkout sessions, payments and subscriptions.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { CustomerId, TestClockId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { Plan, TestClock } from "../../domain/TestClock.js"
import type { Op } from "./Op.js"

export interface TestClocksRepo {
  readonly insert: (clock: TestClock) => Op<void>
  readonly get: (scope: Scope, id: TestClockId) => Op<Option.Option<TestClock>>
  /** `get`, locking the row until the transaction ends (inside `transact`): advances of one clock take turns. */
  readonly lock: (scope: Scope, id: TestClockId) => Op<Option.Option<TestClock>>
  readonly update: (clock: TestClock) => Op<void>
  readonly list: (scope: Scope, page: PageRequest) => Op<Page<TestClock>>
  /** The clock each of these customers is attached to (those on the real time are left out). Never locks. */
  readonly ofCustomers: (
    ids: ReadonlyArray<CustomerId>
  ) => Op<ReadonlyArray<{ readonly customer_id: CustomerId; readonly clock: TestClock }>>
  /** The schedules of the clock's subscriptions that are not cancelled, each once: what bounds one advance. */
  readonly plans: (id: TestClockId) => Op<ReadonlyArray<Plan>>
  /**
   * The earliest time work is due on the clock: a renewal, retry or period end of one of its subscriptions (as
   * `SubscriptionsRepo.claimDue` would take it), or the expiry of one of its open checkout sessions.
   */
  readonly nextDue: (id: TestClockId) => Op<Option.Option<DateTime.Utc>>
  /**
   * Deletes the clock and everything attached to it: its customers, and their checkout sessions, payments (with
   * their refunds and tax documents), subscriptions (with their renewal attempts) and portal sessions. The event
   * record stays. False when the scope has no such clock.
   */
  readonly delete: (scope: Scope, id: TestClockId) => Op<boolean>
}

/** Test clocks, with what is attached to them. */
export type TestClockRepositoryShape = TestClocksRepo

export class TestClockRepository extends Context.Tag("fils/TestClockRepository")<TestClockRepository, TestClockRepositoryShape>() {}

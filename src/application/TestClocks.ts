/**
 * Test clocks (docs/api.md, "Test clocks"), in test mode only: create, read, list, delete, and advance. An advance runs
 * the work due on the clock up to the new time, in order, through the same billing pass as the real time
 * (`Billing.runOnce`, as `billing run --at` does, but only the clock's objects): each pass runs at the instant the
 * next piece of work falls due, so a renewal is charged at its billing date and a retry on its day.
 */
import { DateTime, Duration, Effect, Either, Option } from "effect"
import type { Scope } from "../domain/Account.js"
import { notFound, NotFound } from "../domain/Errors.js"
import type { TestClockId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import * as TestClock from "../domain/TestClock.js"
import { Transactions } from "../ports/Transactions.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { TestClockRepository } from "../ports/repositories/TestClockRepository.js"
import { Billing, type BillingReport } from "./Billing.js"
import { newId } from "./Ids.js"

export interface TestClockListParams {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

export interface TestClockDeleted {
  readonly object: "test_clock"
  readonly test_clock_id: TestClockId
  readonly deleted: true
}

/** How long the runner of an advance holds it between passes (real time); another request takes over after. */
const lease = Duration.seconds(60)

/** How often a request for an advance that another request is running looks whether it has finished. */
const waitStep = Duration.millis(200)
/**
 * How long an advance keeps passing a second at a time over charges left `processing`, as a server's passes would:
 * the test cards settle in 2 s; one still processing after this is settled by a later pass (at the next due work or
 * the target).
 */
const settleSeconds = 5

const didSomething = (r: BillingReport) =>
  r.renewals_charged + r.subscriptions_ended + r.expired_sessions + r.settled_payments > 0

export class TestClocks extends Effect.Service<TestClocks>()("fils/TestClocks", {
  effect: Effect.gen(function*() {
    const clockRepo = yield* TestClockRepository
    const transactions = yield* Transactions
    const billing = yield* Billing
    const paymentRepo = yield* PaymentRepository

    /** Clocks exist in test mode only: in live mode there are none to name. */
    const testMode = (scope: Scope) =>
      scope.livemode
        ? Effect.fail(new NotFound({ message: "Test clocks exist in test mode only: use a test key (sk_test_…)" }))
        : Effect.void

    const create = Effect.fn("TestClocks.create")(function*(scope: Scope, input: TestClock.TestClockCreate) {
      yield* testMode(scope)
      const clock = TestClock.create(input, {
        id: yield* newId<TestClockId>(prefixes.testClock),
        accountId: scope.accountId,
        now: yield* DateTime.now
      })
      yield* clockRepo.insert(clock)
      return clock
    })

    const get = Effect.fn("TestClocks.get")(function*(scope: Scope, id: TestClockId) {
      yield* testMode(scope)
      return Option.getOrNull(yield* clockRepo.get(scope, id)) ?? (yield* notFound("test clock", id))
    })

    const list = Effect.fn("TestClocks.list")(function*(scope: Scope, params: TestClockListParams) {
      yield* testMode(scope)
      const key = Pagination.listKey("test_clocks", {})
      const page = yield* Pagination.pageRequest(key, params)
      return Pagination.toList(key, yield* clockRepo.list(scope, page), TestClock.position)
    })

    /** Deletes the clock and every object attached to it (the event record stays). */
    const remove = Effect.fn("TestClocks.remove")(function*(scope: Scope, id: TestClockId) {
      yield* testMode(scope)
      const deleted = yield* transactions.transact(clockRepo.delete(scope, id))
      if (!deleted) return yield* notFound("test clock", id)
      return { object: "test_clock", test_clock_id: id, deleted: true } satisfies TestClockDeleted
    })

    /** Holds the clock's advance for another lease, while it still goes to `target`. */
    const renewLease = (scope: Scope, id: TestClockId, target: DateTime.Utc) =>
      transactions.transact(Effect.gen(function*() {
        const clock = yield* clockRepo.lock(scope, id)
        if (Option.isNone(clock) || clock.value.advancing_to === null) return
        if (!DateTime.Equivalence(clock.value.advancing_to, target)) return
        yield* clockRepo.update({ ...clock.value, lease_until: DateTime.addDuration(yield* DateTime.now, lease) })
      }))

    /**
     * Charges left `processing` at `from` (a checkout paid with a card that settles later, or a renewal's) settle as
     * the server's passes would find them on real time: a pass a second after, for `settleSeconds` at most, before
     * the walk moves on, and never past the next due work or `target`.
     */
    const settleFrom = (id: TestClockId, from: DateTime.Utc, target: DateTime.Utc) =>
      Effect.gen(function*() {
        const processing = paymentRepo.listProcessing(1, false, id)
        // Usually none: then the next due work is not even looked up.
        if ((yield* processing).length === 0) return
        const next = yield* clockRepo.nextDue(id)
        const until = Option.isSome(next) && DateTime.lessThan(next.value, target) ? next.value : target
        for (let second = 1; second <= settleSeconds; second++) {
          const at = DateTime.add(from, { seconds: second })
          if (DateTime.greaterThan(at, until)) return
          if (second > 1 && (yield* processing).length === 0) return
          yield* billing.runOnce({ livemode: false, asOf: DateTime.toEpochMillis(at), clock: id })
        }
      })

    /**
     * The work due on the clock from `from` up to `target`, in order: a pass at each instant something falls due (a
     * renewal, a retry, a period end, a session's expiry) and the settling of the charges it left processing, then
     * one at `target` (charges answered meanwhile settle). A pass that could do nothing at an instant (the charge is
     * at the processor for another request) ends the walk.
     */
    const runDue = (scope: Scope, id: TestClockId, from: DateTime.Utc, target: DateTime.Utc) =>
      Effect.gen(function*() {
        yield* settleFrom(id, from, target)
        let last: DateTime.Utc | undefined
        for (;;) {
          const next = yield* clockRepo.nextDue(id)
          if (Option.isNone(next) || DateTime.greaterThan(next.value, target)) break
          const at = next.value
          const report = yield* billing.runOnce({ livemode: false, asOf: DateTime.toEpochMillis(at), clock: id })
          if (!didSomething(report) && last !== undefined && DateTime.Equivalence(last, at)) break
          last = at
          yield* settleFrom(id, at, target)
          yield* renewLease(scope, id, target)
        }
        yield* billing.runOnce({ livemode: false, asOf: DateTime.toEpochMillis(target), clock: id })
      })

    /**
     * `POST /test_clocks/{id}/advance`: forward only, at most two billing periods of the clock's shortest plan. The
     * clock reads `advancing` while the work runs and `ready` at the new time after. Asked again for the same time
     * while another request runs it, the answer is the clock as it stands (still `advancing`): the work is not run
     * twice. A request that finds the runner gone (its lease ran out) runs the rest of the work; each piece of it is
     * done once whoever runs it (the renewals' rule: one charge per subscription, period and attempt).
     */
    const advance = Effect.fn("TestClocks.advance")(function*(scope: Scope, id: TestClockId, input: TestClock.TestClockAdvance) {
      yield* testMode(scope)
      const target = input.frozen_time
      const taken = yield* transactions.transact(Effect.gen(function*() {
        const clock = Option.getOrNull(yield* clockRepo.lock(scope, id)) ?? (yield* notFound("test clock", id))
        const now = yield* DateTime.now
        const step = TestClock.advanceStep(clock, target, yield* clockRepo.plans(id), now)
        if (Either.isLeft(step)) return yield* step.left
        if (step.right !== "start" && step.right !== "run") return { clock, run: false, from: clock.frozen_time }
        const next = TestClock.startAdvance(clock, target, DateTime.addDuration(now, lease))
        yield* clockRepo.update(next)
        return { clock: next, run: true, from: clock.frozen_time }
      }))
      if (!taken.run) return taken.clock
      yield* runDue(scope, id, taken.from, target)
      return yield* transactions.transact(Effect.gen(function*() {
        const clock = Option.getOrNull(yield* clockRepo.lock(scope, id)) ?? (yield* notFound("test clock", id))
        // Deleted meanwhile, or already finished by a request that took over: as it is.
        if (clock.advancing_to === null || !DateTime.Equivalence(clock.advancing_to, target)) return clock
        const done = TestClock.finishAdvance(clock)
        yield* clockRepo.update(done)
        return done
      }))
    })

    /** Waits (real time) until the clock is `ready`, for a test or a tool that started an advance elsewhere. */
    const ready = (scope: Scope, id: TestClockId) =>
      Effect.gen(function*() {
        for (;;) {
          const clock = yield* get(scope, id)
          if (clock.status === "ready") return clock
          yield* Effect.sleep(waitStep)
        }
      })

    return { create, get, list, remove, advance, ready } as const
  }),
  dependencies: [Billing.Default]
}) {}

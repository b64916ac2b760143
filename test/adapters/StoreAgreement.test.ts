/**
 * Rules that both stores must express, each in its own language (a filter in memory, a `WHERE` in SQL), proven to
 * agree side by side over random data: which checkout sessions are due to expire (open, past their
 * expiry, and no charge still `processing`), which subscriptions are due (active at or past the next billing
 * date, on hold at or past the next retry, and their due attempt not already at the processor), and when a
 * delivery attempt's outcome still applies to its delivery (`Delivery.outcomeApplies`, over random claims,
 * records of current, stale and future attempts, redeliveries by hand and cancellations). The same data goes
 * into a memory store and a PostgreSQL store; both must claim the same rows in the same order, and the ones the
 * rule names.
 */
import { DateTime, Effect, ManagedRuntime, Option } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, expect, it } from "vitest"
import { makeStoreMemory } from "../../adapters/memory/StoreMemory.js"
import type { Account } from "../../src/domain/Account.js"
import type { AccountId } from "../../src/domain/Ids.js"
import { newId } from "../../src/application/Ids.js"
import { Store, type StoreShape } from "../../src/ports/Store.js"
import { postgresStore } from "../support/postgresStore.js"
import type { AttemptOutcome } from "../../src/domain/Delivery.js"
import { makeDelivery, makeEndpoint, makeEvent } from "./webhookStoreContract.js"
import * as Subscription from "../../src/domain/Subscription.js"
import type { PaymentId, SubscriptionId } from "../../src/domain/Ids.js"
import {
  advance,
  at,
  dueAt,
  failedOf,
  makePayment,
  makeSession,
  startSubscription,
  subscriptionParents,
  succeededOf
} from "./storeContract.js"

let sqlRuntime: ManagedRuntime.ManagedRuntime<Store, never>
let sql: StoreShape
beforeAll(async () => {
  sqlRuntime = ManagedRuntime.make(await postgresStore())
  sql = await sqlRuntime.runPromise(Store)
}, 60_000)
afterAll(async () => {
  await sqlRuntime?.dispose()
})

type Charge = "none" | "processing" | "succeeded" | "failed"
interface SessionSpec {
  readonly expiresIn: number
  /** (`complete` sessions are left out: the schema ties them to their payment, and they are never claimed either.) */
  readonly status: "open" | "expired"
  readonly charge: Charge
  readonly livemode: boolean
}

const specArb: fc.Arbitrary<SessionSpec> = fc.record({
  // Around the instant of the claim: past, exactly at it, and still to come.
  expiresIn: fc.oneof(fc.integer({ min: -3_600_000, max: 3_600_000 }), fc.constantFrom(-1, 0, 1)),
  status: fc.constantFrom("open" as const, "open" as const, "expired" as const),
  charge: fc.constantFrom("none" as const, "processing" as const, "succeeded" as const, "failed" as const),
  livemode: fc.boolean()
})

let runs = 0

/** An account created at `createdAt`, live payments on (rows of both modes are made). */
const newAccount = (createdAt: number) =>
  Effect.map(newId<AccountId>("acct"), (account_id): Account => ({
    account_id,
    business_name: "Agreement",
    support_email: null,
    live_payments_enabled: true,
    tax_profile: null,
    time_zone: "Asia/Dubai",
    two_factor_required: false,
    created_at: at(createdAt)
  }))
/** How many rows were claimed and left, over a property's runs: both must occur for the comparison to mean anything. */
const seen = { claimed: 0, left: 0 }

/** Both stores claimed the same ids in the same order, and the ones the rule names; counted towards `seen`. */
const agree = (inMemory: ReadonlyArray<string>, inSql: ReadonlyArray<string>, expected: ReadonlyArray<string>, rows: number) => {
  expect(inSql).toEqual(inMemory)
  expect([...inMemory].sort()).toEqual([...expected].sort())
  seen.claimed += inMemory.length
  seen.left += rows - inMemory.length
}

/** After a property: neither side of the rule went unexercised. */
const bothSidesExercised = () => {
  expect(seen.claimed).toBeGreaterThan(10)
  expect(seen.left).toBeGreaterThan(10)
  seen.claimed = seen.left = 0
}

it("sessions.claimExpired: both stores claim the same sessions, in the same order", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(specArb, { minLength: 1, maxLength: 12 }), fc.option(fc.boolean(), { nil: undefined }), async (specs, livemode) => {
      // Each run in its own stretch of time, long before anything else in the database, so claims see only its rows.
      const now = Date.UTC(1975, 0, 1) + ++runs * 86_400_000
      const data = await Effect.runPromise(Effect.gen(function*() {
        const account = yield* newAccount(now - 2 * 86_400_000)
        const rows = yield* Effect.forEach(specs, (spec) =>
          Effect.gen(function*() {
            const scope = { accountId: account.account_id, livemode: spec.livemode }
            const session = yield* makeSession(scope, { ...dueAt(now + spec.expiresIn), status: spec.status })
            const payment = spec.charge === "none"
              ? undefined
              : yield* makePayment(scope, { checkout_session_id: session.session_id, created_at: at(now - 60_000) })
            const charged = payment === undefined || spec.charge === "processing"
              ? payment
              : spec.charge === "succeeded"
              ? succeededOf(payment)
              : failedOf(payment)
            return { session, payment: charged }
          }))
        return { account, rows }
      }))
      const claim = (store: StoreShape) =>
        Effect.runPromise(Effect.gen(function*() {
          yield* store.accounts.insert(data.account)
          for (const { payment, session } of data.rows) {
            yield* store.sessions.insert(session)
            if (payment !== undefined) yield* store.payments.insert(payment)
          }
          const claimed = yield* store.transact(store.sessions.claimExpired(DateTime.unsafeMake(now), 1_000, livemode))
          const ours = new Set(data.rows.map((r) => r.session.session_id))
          return claimed.map((s) => s.session_id).filter((id) => ours.has(id))
        }))
      const memory = await Effect.runPromise(makeStoreMemory)
      const [inMemory, inSql] = [await claim(memory), await claim(sql)]
      const expected = data.rows
        .filter(({ payment, session }) =>
          session.status === "open" && DateTime.toEpochMillis(session.expires_at) <= now &&
          payment?.status !== "processing" && (livemode === undefined || session.livemode === livemode)
        )
        .map((r) => r.session.session_id)
      agree(inMemory, inSql, expected, data.rows.length)
    }),
    { numRuns: 50 }
  )
  bothSidesExercised()
}, 120_000)

interface SubscriptionSpec {
  /** When the first payment was made, in days before the claim. */
  readonly paidDaysAgo: number
  readonly path: "active" | "on_hold" | "cancelled" | "ending"
  readonly attemptRecorded: boolean
  readonly livemode: boolean
}

const subscriptionSpecArb: fc.Arbitrary<SubscriptionSpec> = fc.record({
  paidDaysAgo: fc.integer({ min: 0, max: 70 }),
  path: fc.constantFrom("active" as const, "on_hold" as const, "cancelled" as const, "ending" as const),
  // Most without an attempt recorded, so that enough rows are due: the rule claims only a few of the combinations.
  attemptRecorded: fc.constantFrom(false, false, true),
  livemode: fc.boolean()
})

it("subscriptions.claimDue: both stores claim the same subscriptions, in the same order", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(subscriptionSpecArb, { minLength: 1, maxLength: 16 }), fc.option(fc.boolean(), { nil: undefined }), async (specs, livemode) => {
      const now = Date.UTC(1970, 6, 1) + ++runs * 400 * 86_400_000
      const memory = await Effect.runPromise(makeStoreMemory)
      const data = await Effect.runPromise(Effect.gen(function*() {
        const account = yield* newAccount(now - 200 * 86_400_000)
        yield* memory.accounts.insert(account)
        const parentsOf = {
          false: yield* subscriptionParents(memory, { accountId: account.account_id, livemode: false }),
          true: yield* subscriptionParents(memory, { accountId: account.account_id, livemode: true })
        }
        const rows = yield* Effect.forEach(specs, (spec) =>
          Effect.gen(function*() {
            const paidAt = now - spec.paidDaysAgo * 86_400_000
            let sub = yield* startSubscription(parentsOf[`${spec.livemode}`], { paidAt })
            const renewal = DateTime.toEpochMillis(sub.next_billing_date)
            if (spec.path === "on_hold") sub = advance(sub, { _tag: "ChargeFailed" }, renewal)
            if (spec.path === "cancelled") sub = advance(sub, { _tag: "Cancel" }, paidAt + 1_000)
            if (spec.path === "ending") sub = advance(sub, { _tag: "SetCancelAtPeriodEnd", value: true }, paidAt + 1_000)
            // The due attempt already at the processor (another server charging it): a payment and its attempt row.
            const payment = spec.attemptRecorded && sub.status !== "cancelled"
              ? Subscription.renewalPayment(sub, yield* newId<PaymentId>("pay"), at(now - 1_000))
              : undefined
            return { sub, payment }
          }))
        return { account, parents: Object.values(parentsOf), rows }
      }))
      const claim = (store: StoreShape, fresh: boolean) =>
        Effect.runPromise(Effect.gen(function*() {
          if (fresh) {
            yield* store.accounts.insert(data.account)
            for (const { customer, product } of data.parents) {
              yield* store.products.insert(product)
              yield* store.customers.insert(customer)
            }
          }
          yield* store.transact(Effect.gen(function*() {
            for (const { payment, sub } of data.rows) {
              yield* store.subscriptions.insert(sub)
              if (payment === undefined) continue
              yield* store.subscriptions.recordAttempt({
                subscription_id: sub.subscription_id,
                ...Subscription.dueAttempt(sub),
                payment_id: payment.payment_id
              })
              yield* store.payments.insert(payment)
            }
          }))
          const claimed = yield* store.transact(store.subscriptions.claimDue(DateTime.unsafeMake(now), 1_000, livemode))
          const ours = new Set<SubscriptionId>(data.rows.map((r) => r.sub.subscription_id))
          return claimed.map((s) => s.subscription_id).filter((id) => ours.has(id))
        }))
      const [inMemory, inSql] = [await claim(memory, false), await claim(sql, true)]
      const expected = data.rows.filter(({ payment, sub }) => {
        const due = Subscription.dueAt(sub)
        return due !== null && DateTime.toEpochMillis(due) <= now && payment === undefined &&
          (livemode === undefined || sub.livemode === livemode)
      }).map((r) => r.sub.subscription_id)
      agree(inMemory, inSql, expected, data.rows.length)
    }),
    { numRuns: 60 }
  )
  bothSidesExercised()
}, 120_000)

// A delivery attempt's outcome -------------------------------------------------------------------------------------

type DeliveryStep =
  | { readonly _tag: "Claim"; readonly leaseSeconds: number }
  | { readonly _tag: "Record"; readonly attemptOffset: -1 | 0 | 1; readonly outcome: "ok" | "error" | "refused"; readonly last: boolean }
  | { readonly _tag: "Retry" }
  | { readonly _tag: "Cancel" }

const deliveryStepArb: fc.Arbitrary<DeliveryStep> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Claim" as const), leaseSeconds: fc.integer({ min: 1, max: 60 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constant("Record" as const),
      attemptOffset: fc.constantFrom(-1 as const, 0 as const, 0 as const, 1 as const),
      outcome: fc.constantFrom("ok" as const, "error" as const, "refused" as const),
      last: fc.boolean()
    })
  },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Retry" as const) }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "Cancel" as const }) }
)

// A claim answered by its own attempt is the only way an outcome applies; drawn alone, the two rarely meet in that
// order, so the pair is drawn as one step too (roughly half the records then apply).
const attemptArb: fc.Arbitrary<ReadonlyArray<DeliveryStep>> = fc.record({
  leaseSeconds: fc.integer({ min: 8, max: 60 }),
  outcome: fc.constantFrom("ok" as const, "error" as const, "refused" as const),
  last: fc.boolean()
}).map(({ last, leaseSeconds, outcome }) => [
  { _tag: "Claim", leaseSeconds },
  { _tag: "Record", attemptOffset: 0, outcome, last }
])

const deliveryStepsArb: fc.Arbitrary<ReadonlyArray<DeliveryStep>> = fc.array(
  fc.oneof({ weight: 2, arbitrary: deliveryStepArb.map((step) => [step]) }, { weight: 1, arbitrary: attemptArb }),
  { minLength: 1, maxLength: 10 }
).map((groups) => groups.flat())

const outcomes: Record<"ok" | "error" | "refused", AttemptOutcome> = {
  ok: { ok: true, statusCode: 200, error: null, durationMillis: 12 },
  error: { ok: false, statusCode: 500, error: null, durationMillis: 31 },
  refused: { ok: false, statusCode: null, error: "connection refused", durationMillis: 2 }
}
const deliverySeen = { applied: 0, ignored: 0 }

it("deliveries.recordAttempt: an attempt's outcome changes the delivery alike in both stores, or is ignored alike", async () => {
  await fc.assert(
    fc.asyncProperty(deliveryStepsArb, async (steps) => {
      // Each run in its own stretch of time, after every earlier run's, so claims see only its delivery.
      const start = Date.UTC(1980, 0, 1) + ++runs * 86_400_000
      const data = await Effect.runPromise(Effect.gen(function*() {
        const account = yield* newAccount(start - 86_400_000)
        const scope = { accountId: account.account_id, livemode: false }
        const endpoint = yield* makeEndpoint(scope, { created_at: at(start - 1000) })
        const event = yield* makeEvent(scope, { created_at: at(start) })
        const delivery = yield* makeDelivery(event, endpoint)
        return { account, endpoint, event, delivery }
      }))
      const play = (store: StoreShape) =>
        Effect.runPromise(Effect.gen(function*() {
          yield* store.accounts.insert(data.account)
          yield* store.webhooks.insert(data.endpoint)
          yield* store.events.insert(data.event)
          yield* store.deliveries.enqueue([data.delivery])
          const id = data.delivery.delivery_id
          const trace: Array<unknown> = []
          let now = start
          for (const step of steps) {
            now += 7_000
            const before = Option.getOrThrow(yield* store.deliveries.get(id))
            switch (step._tag) {
              case "Claim": {
                const claimed = yield* store.deliveries.claimDue(at(now), 100, step.leaseSeconds * 1000)
                trace.push(claimed.filter((c) => c.delivery.delivery_id === id).map((c) => c.attempt))
                break
              }
              case "Record":
                yield* store.deliveries.recordAttempt({
                  deliveryId: id,
                  attempt: Math.max(1, before.attempts + step.attemptOffset),
                  startedAt: at(now - 1_000),
                  outcome: outcomes[step.outcome],
                  nextAttemptAt: step.last ? undefined : at(now + 5_000)
                })
                break
              case "Retry":
                yield* store.deliveries.retry(id, at(now))
                break
              case "Cancel":
                yield* store.deliveries.cancelFor(data.endpoint.webhook_id)
                break
            }
            const after = Option.getOrThrow(yield* store.deliveries.get(id))
            if (step._tag === "Record") {
              const changed = after.status !== before.status || after.updated_at.epochMillis !== before.updated_at.epochMillis
              changed ? deliverySeen.applied++ : deliverySeen.ignored++
            }
            trace.push(after)
          }
          trace.push(yield* store.deliveries.attemptsOf(id))
          // Leave nothing due for later runs' claims.
          yield* store.deliveries.cancelFor(data.endpoint.webhook_id)
          return JSON.parse(JSON.stringify(trace))
        }))
      const memory = await Effect.runPromise(makeStoreMemory)
      const [inMemory, inSql] = [await play(memory), await play(sql)]
      expect(inSql).toEqual(inMemory)
    }),
    {
      numRuns: 40,
      // Always among the runs: an attempt reported after an operator's redelivery (lease dropped), after a
      // cancellation, and after the delivery was claimed again (a later attempt).
      examples: [
        [[{ _tag: "Claim", leaseSeconds: 30 }, { _tag: "Retry" }, { _tag: "Record", attemptOffset: 0, outcome: "ok", last: false }]],
        [[{ _tag: "Claim", leaseSeconds: 30 }, { _tag: "Cancel" }, { _tag: "Record", attemptOffset: 0, outcome: "error", last: true }]],
        [[
          { _tag: "Claim", leaseSeconds: 1 },
          { _tag: "Claim", leaseSeconds: 30 },
          { _tag: "Record", attemptOffset: -1, outcome: "ok", last: false }
        ]]
      ]
    }
  )
  // Both sides of the rule were exercised (memory and SQL counted alike, so halves are what each saw).
  expect(deliverySeen.applied).toBeGreaterThan(10)
  expect(deliverySeen.ignored).toBeGreaterThan(10)
}, 180_000)

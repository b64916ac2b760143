/**
 * The PaymentProcessor port's contract (src/ports/PaymentProcessor.ts) as checks any adapter runs against itself:
 * idempotency by reference, lookups (and `None` being final), refunds bounded by the charge, movements listed once
 * each, and cards saved without a charge. Framework-neutral: each check is an Effect that fails with `ContractViolation`; run them in any test
 * runner, e.g. with @effect/vitest:
 *
 *   for (const check of ProcessorContract.checks) {
 *     it.effect(check.name, () => check.run({ processor: makeMyProcessor, card: sandboxCard }))
 *   }
 *
 * Checks run on the real clock. The simulated processor passes them on both of its ledgers (test/adapters/ProcessorContract.test.ts).
 */
import { Data, DateTime, Effect, Option, Redacted } from "effect"
import { newId } from "../../src/application/Ids.js"
import type { ChargeOutcome } from "../../src/domain/Payment.js"
import type { CardDetails, Movement, PaymentProcessorShape } from "../../src/ports/PaymentProcessor.js"

export class ContractViolation extends Data.TaggedError("ContractViolation")<{ readonly message: string }> {}

export interface Fixtures {
  /** A fresh processor (or one shared: every check uses references of its own). */
  readonly processor: Effect.Effect<PaymentProcessorShape, unknown>
  /** A card the processor charges successfully at once (a sandbox's test card). */
  readonly card: CardDetails
  /** The amount to charge, in minor units (default 10 000). */
  readonly amount?: number
}

export interface Check {
  readonly name: string
  readonly run: (fixtures: Fixtures) => Effect.Effect<void, unknown>
}

const expect = (condition: boolean, message: string) =>
  condition ? Effect.void : Effect.fail(new ContractViolation({ message }))

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

const paymentRef = newId<string>("pay")
const refundRef = newId<string>("ref")

/** A successful charge under a new reference, as checks start from. */
const charged = (fixtures: Fixtures) =>
  Effect.gen(function*() {
    const processor = yield* fixtures.processor
    const request = { reference: yield* paymentRef, amount: fixtures.amount ?? 10_000, currency: "AED", livemode: false }
    const result = yield* processor.chargeCard(request, fixtures.card)
    yield* expect(result.outcome._tag === "Succeeded", `the fixture card must succeed; got ${JSON.stringify(result.outcome)}`)
    return { processor, request, result }
  })

const outcomeOf = (m: Movement): ChargeOutcome | Movement["outcome"] => m.outcome

export const checks: ReadonlyArray<Check> = [
  {
    name: "a charge is found by a lookup of its reference, with its charge id, amount and outcome",
    run: (fixtures) =>
      Effect.gen(function*() {
        const { processor, request, result } = yield* charged(fixtures)
        const found = yield* processor.lookup(request.reference)
        yield* expect(Option.isSome(found), "lookup found nothing under the charge's reference")
        const movement = Option.getOrThrow(found)
        yield* expect(movement._tag === "Charge", "lookup of a charge's reference must answer a charge")
        yield* expect(movement._tag === "Charge" && movement.chargeId === result.chargeId, "lookup answered another charge id")
        yield* expect(movement.amount === request.amount, "lookup answered another amount")
        yield* expect(same(outcomeOf(movement), result.outcome), "lookup answered another outcome")
      })
  },
  {
    name: "a second charge under the same reference moves no money: it answers with the first charge",
    run: (fixtures) =>
      Effect.gen(function*() {
        const { processor, request, result } = yield* charged(fixtures)
        const again = yield* processor.chargeCard(request, fixtures.card)
        yield* expect(again.chargeId === result.chargeId, "a retried charge made a second charge")
        const moved = (yield* processor.movements(DateTime.unsafeMake(0)))
          .filter((m) => m.reference === request.reference)
        yield* expect(moved.length === 1, `${moved.length} movements under one reference`)
      })
  },
  {
    name: "a lookup of a reference never used answers None, and None is final: a charge under it takes nothing",
    run: (fixtures) =>
      Effect.gen(function*() {
        const processor = yield* fixtures.processor
        const reference = yield* paymentRef
        yield* expect(Option.isNone(yield* processor.lookup(reference)), "lookup of an unused reference found something")
        const late = yield* Effect.either(
          processor.chargeCard({ reference, amount: fixtures.amount ?? 10_000, currency: "AED", livemode: false }, fixtures.card)
        )
        yield* expect(
          late._tag === "Left" || late.right.outcome._tag !== "Succeeded",
          "a charge under a reference a lookup answered None for took money"
        )
        const after = yield* processor.lookup(reference)
        yield* expect(
          Option.isNone(after) || Option.getOrThrow(after).outcome._tag !== "Succeeded",
          "money was taken under a reference after a lookup answered None"
        )
      })
  },
  {
    name: "a refund returns money once per reference; retried, it answers with the same refund",
    run: (fixtures) =>
      Effect.gen(function*() {
        const { processor, request, result } = yield* charged(fixtures)
        const reference = yield* refundRef
        const first = yield* processor.refund(result.chargeId, 1_000, reference)
        yield* expect(first.outcome._tag === "Succeeded", `a refund of part was not made: ${JSON.stringify(first.outcome)}`)
        const again = yield* processor.refund(result.chargeId, 1_000, reference)
        yield* expect(again.refundId === first.refundId, "a retried refund made a second refund")
        const found = yield* processor.lookup(reference)
        yield* expect(
          Option.isSome(found) && Option.getOrThrow(found)._tag === "Refund" &&
            Option.getOrThrow(found).outcome._tag === "Succeeded",
          "lookup of the refund's reference did not find the refund"
        )
        const refunds = (yield* processor.movements(DateTime.unsafeMake(0)))
          .filter((m) => m._tag === "Refund" && m.chargeId === result.chargeId)
        yield* expect(refunds.length === 1 && refunds[0]!.amount === 1_000, "the refund was not listed once")
        yield* expect(request.amount > 1_000, "the fixture amount must exceed 1 000")
      })
  },
  {
    name: "refunds never return more than the charge took, over all of them",
    run: (fixtures) =>
      Effect.gen(function*() {
        const { processor, request, result } = yield* charged(fixtures)
        const most = yield* processor.refund(result.chargeId, request.amount - 1, yield* refundRef)
        yield* expect(most.outcome._tag === "Succeeded", "a refund of all but one was not made")
        const over = yield* processor.refund(result.chargeId, 2, yield* refundRef)
        yield* expect(over.outcome._tag === "Refused", "a refund past what remains was made")
        const last = yield* processor.refund(result.chargeId, 1, yield* refundRef)
        yield* expect(last.outcome._tag === "Succeeded", "a refund of what remains was not made")
        const returned = (yield* processor.movements(DateTime.unsafeMake(0)))
          .filter((m) => m._tag === "Refund" && m.chargeId === result.chargeId && m.outcome._tag === "Succeeded")
          .reduce((sum, m) => sum + m.amount, 0)
        yield* expect(returned === request.amount, `refunds returned ${returned} of ${request.amount}`)
      })
  },
  {
    name: "movements since an instant list what was made from then on, each once, oldest first",
    run: (fixtures) =>
      Effect.gen(function*() {
        const processor = yield* fixtures.processor
        const before = yield* charged({ ...fixtures, processor: Effect.succeed(processor) })
        const moved = yield* processor.movements(DateTime.unsafeMake(0))
        const mine = moved.find((m) => m.reference === before.request.reference)
        yield* expect(mine !== undefined, "the charge is not among the movements")
        const since = DateTime.add(mine!.createdAt, { millis: 1 })
        // Past that instant for sure (checks run on the real clock).
        yield* Effect.sleep("5 millis")
        const after = yield* charged({ ...fixtures, processor: Effect.succeed(processor) })
        const refund = yield* refundRef
        yield* processor.refund(after.result.chargeId, 500, refund)
        const later = yield* processor.movements(since)
        yield* expect(!later.some((m) => m.reference === before.request.reference), "a movement before `since` was listed")
        const refs = later.map((m) => m.reference)
        yield* expect(refs.filter((r) => r === after.request.reference).length === 1, "the later charge was not listed once")
        yield* expect(refs.filter((r) => r === refund).length === 1, "the refund was not listed once")
        yield* expect(refs.indexOf(after.request.reference) < refs.indexOf(refund), "movements are not oldest first")
        const times = later.map((m) => DateTime.toEpochMillis(m.createdAt))
        yield* expect(times.every((t, i) => i === 0 || times[i - 1]! <= t), "movements are not oldest first")
      })
  },
  {
    name: "a saved card's token is charged under its own reference, once per reference",
    run: (fixtures) =>
      Effect.gen(function*() {
        const { processor, request, result } = yield* charged(fixtures)
        if (result.card === null) return
        const renewal = { ...request, reference: yield* paymentRef }
        const first = yield* processor.chargeToken(renewal, result.card.token)
        yield* expect(first.outcome._tag === "Succeeded", "the saved card's token was not charged")
        yield* expect(first.chargeId !== result.chargeId, "the renewal answered the first charge")
        const again = yield* processor.chargeToken(renewal, result.card.token)
        yield* expect(again.chargeId === first.chargeId, "a retried renewal made a second charge")
      })
  },
  {
    name: "a card saved without a charge moves no money, and its token is charged later",
    run: (fixtures) =>
      Effect.gen(function*() {
        const processor = yield* fixtures.processor
        const before = yield* DateTime.now
        const saved = yield* processor.saveCard(fixtures.card, { livemode: false })
        if (saved._tag === "Refused") return yield* new ContractViolation({ message: `the fixture card was refused: ${saved.code}` })
        const digits = Redacted.value(fixtures.card.number).replace(/[\s-]/g, "")
        yield* expect(saved.card.last4 === digits.slice(-4), "the saved card's last four digits differ from the card's")
        yield* expect(!JSON.stringify(saved.card).includes(digits), "the saved card holds the card number")
        const moved = yield* processor.movements(before)
        yield* expect(moved.length === 0, "saving the card moved money")
        const request = { reference: yield* paymentRef, amount: fixtures.amount ?? 10_000, currency: "AED", livemode: false }
        const charge = yield* processor.chargeToken(request, saved.card.token)
        yield* expect(charge.outcome._tag === "Succeeded", "the saved card's token was not charged")
      })
  }
]

/** Runs every check against `fixtures`: the names of those that failed, with why (empty when the adapter keeps the contract). */
export const verify = (fixtures: Fixtures) =>
  Effect.forEach(checks, (check) =>
    Effect.map(Effect.either(check.run(fixtures)), (result) =>
      result._tag === "Right" ? [] : [{ check: check.name, failure: result.left }]), { concurrency: 1 }).pipe(
    Effect.map((all) => all.flat())
  )

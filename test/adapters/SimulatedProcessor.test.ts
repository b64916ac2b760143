/**
 * The simulated processor and its test cards (docs/decisions.md §4, docs/checkout.md), with TestClock driving asynchronous
 * settlement: each card's outcome, idempotency by reference, lookups, refunds and the fault cards.
 * The port's general contract runs against it in ProcessorContract.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, DateTime, Effect, Option, Redacted, TestClock } from "effect"
import { makeSimulatedProcessorMemory, SimulatedProcessor } from "../../adapters/processor/SimulatedProcessor.js"
import type { ChargeOutcome } from "../../src/domain/Payment.js"
import { type CardDetails, PaymentProcessor } from "../../src/ports/PaymentProcessor.js"

let references = 0
/** A new reference per charge: the same one would answer with the charge already made under it. */
const request = () => ({ reference: `pay_t${references++}`, amount: 34900, currency: "AED", livemode: false })
const configOf = (entries: Record<string, string>) => ConfigProvider.fromMap(new Map(Object.entries(entries)))
const card = (number: string): CardDetails => ({ number: Redacted.make(number), expMonth: 12, expYear: 2030, cvc: Redacted.make("123") })
/** A fresh processor (its own ledger) per test. */
const fresh = makeSimulatedProcessorMemory({ live: false })

const immediate: ReadonlyArray<readonly [string, ChargeOutcome]> = [
  ["4242424242424242", { _tag: "Succeeded" }],
  ["5555555555554444", { _tag: "Succeeded" }],
  ["4000000000000002", { _tag: "Failed", code: "card_declined" }],
  ["4000000000009995", { _tag: "Failed", code: "insufficient_funds" }],
  ["4000000000000069", { _tag: "Failed", code: "expired_card" }],
  ["4000000000000341", { _tag: "Succeeded" }],
  ["4000000000000119", { _tag: "Failed", code: "processing_error" }],
  ["4000000000005126", { _tag: "Succeeded" }],
  ["4000000000001034", { _tag: "Succeeded" }],
  // Any other Luhn-valid number succeeds.
  ["4111111111111111", { _tag: "Succeeded" }],
  ["378282246310005", { _tag: "Succeeded" }],
  ["6011111111111117", { _tag: "Succeeded" }]
]

describe("SimulatedProcessor.chargeCard", () => {
  it.effect("every immediate test card gives exactly its outcome", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      for (const [number, outcome] of immediate) {
        const r = yield* processor.chargeCard(request(), card(number))
        assert.deepStrictEqual(r.outcome, outcome, number)
        assert.match(r.chargeId, /^ch_sim_/)
      }
    }))

  it.effect("spaces and dashes in the number do not change the outcome", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const r = yield* processor.chargeCard(request(), card("4000 0000 0000 0002"))
      assert.deepStrictEqual(r.outcome, { _tag: "Failed", code: "card_declined" })
      const ok = yield* processor.chargeCard(request(), card("4242-4242-4242-4242"))
      assert.deepStrictEqual(ok.outcome, { _tag: "Succeeded" })
      assert.strictEqual(ok.card?.last4, "4242")
    }))

  it.effect("keeps brand, last4, expiry and an opaque token — never the number", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const brands: ReadonlyArray<readonly [string, string]> = [
        ["4242424242424242", "visa"],
        ["5555555555554444", "mastercard"],
        ["2223003122003222", "mastercard"],
        ["378282246310005", "amex"],
        ["6011111111111117", "unknown"]
      ]
      for (const [number, brand] of brands) {
        const r = yield* processor.chargeCard(request(), { number: Redacted.make(number), expMonth: 7, expYear: 2031, cvc: Redacted.make("999") })
        assert.isNotNull(r.card)
        assert.strictEqual(r.card!.brand, brand, number)
        assert.strictEqual(r.card!.last4, number.slice(-4))
        assert.strictEqual(r.card!.exp_month, 7)
        assert.strictEqual(r.card!.exp_year, 2031)
        assert.match(r.card!.token, /^tok_sim_/)
        assert.notInclude(JSON.stringify(r), number)
        // The charge id and token are random digits, so the CVC is looked for everywhere else.
        const { chargeId: _chargeId, ...rest } = r
        const text = JSON.stringify({ ...rest, card: { ...r.card, token: undefined } })
        assert.notInclude(text, "999")
      }
      // Every charge gets its own token and charge id.
      const a = yield* processor.chargeCard(request(), card("4242424242424242"))
      const b = yield* processor.chargeCard(request(), card("4242424242424242"))
      assert.notStrictEqual(a.card!.token, b.card!.token)
      assert.notStrictEqual(a.chargeId, b.chargeId)
    }))

  it.effect("a declined card still reports the card", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const r = yield* processor.chargeCard(request(), card("4000000000009995"))
      assert.strictEqual(r.card?.last4, "9995")
      assert.strictEqual(r.card?.brand, "visa")
    }))
})

describe("SimulatedProcessor.chargeToken", () => {
  it.effect("the 0341 card succeeds first; its token is declined on every later charge", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const first = yield* processor.chargeCard(request(), card("4000000000000341"))
      assert.deepStrictEqual(first.outcome, { _tag: "Succeeded" })
      for (let i = 0; i < 3; i++) {
        const renewal = yield* processor.chargeToken(request(), first.card!.token)
        assert.deepStrictEqual(renewal.outcome, { _tag: "Failed", code: "card_declined" })
        assert.isNull(renewal.card)
      }
    }))

  it.effect("tokens of the other succeeding cards renew successfully; an unknown token fails", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      for (const number of ["4242424242424242", "5555555555554444", "4111111111111111"]) {
        const first = yield* processor.chargeCard(request(), card(number))
        const renewal = yield* processor.chargeToken(request(), first.card!.token)
        assert.deepStrictEqual(renewal.outcome, { _tag: "Succeeded" }, number)
        assert.notStrictEqual(renewal.chargeId, first.chargeId)
      }
      const unknown = yield* processor.chargeToken(request(), "tok_other_123")
      assert.strictEqual(unknown.outcome._tag, "Failed")
    }))
})

describe("SimulatedProcessor asynchronous cards", () => {
  const cases = [
    ["4000000000000259", { _tag: "Succeeded" }],
    ["4000000000000267", { _tag: "Failed", code: "card_declined" }]
  ] as const

  for (const [number, settled] of cases) {
    it.effect(`${number} is processing, then settles as ${settled._tag} once 2 s have passed (not before)`, () =>
      Effect.gen(function*() {
      const processor = yield* fresh
        yield* TestClock.adjust("10 seconds") // start away from zero
        const { reference } = request()
        const r = yield* processor.chargeCard({ ...request(), reference }, card(number))
        assert.deepStrictEqual(r.outcome, { _tag: "Processing" })
        assert.strictEqual(r.card?.last4, number.slice(-4))

        const outcome = () =>
          Effect.map(processor.lookup(reference), (m) => Option.getOrThrow(m).outcome)
        assert.deepStrictEqual(yield* outcome(), { _tag: "Processing" })
        yield* TestClock.adjust("1999 millis")
        assert.deepStrictEqual(yield* outcome(), { _tag: "Processing" }, "not settled before 2 s")
        yield* TestClock.adjust("1 millis")
        assert.deepStrictEqual(yield* outcome(), settled)
        yield* TestClock.adjust("1 hour")
        assert.deepStrictEqual(yield* outcome(), settled, "stays settled")
      }))
  }

  it.effect("a charge settles by its own clock: later charges settle later", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const first = request()
      const second = request()
      const outcome = (reference: string) => Effect.map(processor.lookup(reference), (m) => Option.getOrThrow(m).outcome._tag)
      yield* processor.chargeCard(first, card("4000000000000259"))
      yield* TestClock.adjust("1500 millis")
      yield* processor.chargeCard(second, card("4000000000000259"))
      yield* TestClock.adjust("500 millis")
      assert.deepStrictEqual([yield* outcome(first.reference), yield* outcome(second.reference)], ["Succeeded", "Processing"])
      yield* TestClock.adjust("1500 millis")
      assert.strictEqual(yield* outcome(second.reference), "Succeeded")
    }))
})

describe("SimulatedProcessor layer", () => {
  it.effect("takes live charges only when FILS_SIMULATED_LIVE is true", () =>
    Effect.gen(function*() {
      const off = yield* Effect.provide(PaymentProcessor, SimulatedProcessor)
      assert.isFalse(off.supportsLive)
      const on = yield* Effect.provide(PaymentProcessor, SimulatedProcessor).pipe(
        Effect.withConfigProvider(configOf({ FILS_SIMULATED_LIVE: "true" }))
      )
      assert.isTrue(on.supportsLive)
    }).pipe(Effect.withConfigProvider(configOf({}))))
})

describe("SimulatedProcessor fault cards", () => {
  it.effect("1000: the charge is taken, then the answer is lost; a lookup finds it, and a retry charges nothing more", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const r = request()
      const lost = yield* Effect.flip(processor.chargeCard(r, card("4000000000001000")))
      assert.strictEqual(lost._tag, "ProcessorUnavailable")
      const found = Option.getOrThrow(yield* processor.lookup(r.reference))
      assert.strictEqual(found._tag, "Charge")
      assert.deepStrictEqual(found.outcome, { _tag: "Succeeded" })
      assert.strictEqual(found.amount, r.amount)
      if (found._tag === "Charge") assert.strictEqual(found.card?.last4, "1000")
      const again = yield* processor.chargeCard(r, card("4000000000001000"))
      assert.strictEqual(again.chargeId, found._tag === "Charge" ? found.chargeId : "")
      const moved = yield* processor.movements(DateTime.unsafeMake(0))
      assert.strictEqual(moved.filter((m) => m.reference === r.reference).length, 1, "one charge under the reference")
    }))

  it.effect("1018: unreachable, nothing taken; the lookup says none and closes the reference", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const r = request()
      const down = yield* Effect.flip(processor.chargeCard(r, card("4000000000001018")))
      assert.strictEqual(down._tag, "ProcessorUnavailable")
      assert.isTrue(Option.isNone(yield* processor.lookup(r.reference)))
      // A call under the closed reference arriving late takes nothing.
      const late = yield* processor.chargeCard(r, card("4242424242424242"))
      assert.strictEqual(late.outcome._tag, "Failed")
      assert.deepStrictEqual(yield* processor.movements(DateTime.unsafeMake(0)), [])
    }))

  it.effect("5126: charges succeed; every refund is refused and returns nothing", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const charged = yield* processor.chargeCard(request(), card("4000000000005126"))
      assert.deepStrictEqual(charged.outcome, { _tag: "Succeeded" })
      for (const reference of ["ref_a", "ref_b"]) {
        const r = yield* processor.refund(charged.chargeId, 100, reference)
        assert.strictEqual(r.outcome._tag, "Refused")
        const found = Option.getOrThrow(yield* processor.lookup(reference))
        assert.strictEqual(found.outcome._tag, "Refused")
      }
      // Renewals on its saved card behave the same way.
      const renewal = yield* processor.chargeToken(request(), charged.card!.token)
      assert.strictEqual((yield* processor.refund(renewal.chargeId, 100, "ref_c")).outcome._tag, "Refused")
    }))

  it.effect("1034: the first refund's answer is lost after the money moved; later refunds answer", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const charged = yield* processor.chargeCard(request(), card("4000000000001034"))
      const lost = yield* Effect.flip(processor.refund(charged.chargeId, 1_000, "ref_first"))
      assert.strictEqual(lost._tag, "ProcessorUnavailable")
      const found = Option.getOrThrow(yield* processor.lookup("ref_first"))
      assert.deepStrictEqual(found.outcome, { _tag: "Succeeded" })
      // The same reference again answers with the refund made, returning nothing more.
      const again = yield* processor.refund(charged.chargeId, 1_000, "ref_first")
      assert.deepStrictEqual(again.outcome, { _tag: "Succeeded" })
      const second = yield* processor.refund(charged.chargeId, 2_000, "ref_second")
      assert.deepStrictEqual(second.outcome, { _tag: "Succeeded" })
      const refunds = (yield* processor.movements(DateTime.unsafeMake(0))).filter((m) => m._tag === "Refund")
      assert.deepStrictEqual(refunds.map((m) => m.amount), [1_000, 2_000])
    }))

  it.effect("saved cards keep their fault for renewals: 1000 loses the answer, 1018 is unreachable", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const lostCard = yield* Effect.flip(processor.chargeCard(request(), card("4000000000001000")))
      assert.strictEqual(lostCard._tag, "ProcessorUnavailable")
      // The checkout's card is reported by the lookup, with the token renewals use.
      const movements = yield* processor.movements(DateTime.unsafeMake(0))
      const saved = movements[0]!._tag === "Charge" ? movements[0]!.card!.token : ""
      const renewal = request()
      assert.strictEqual((yield* Effect.flip(processor.chargeToken(renewal, saved)))._tag, "ProcessorUnavailable")
      assert.deepStrictEqual(Option.getOrThrow(yield* processor.lookup(renewal.reference)).outcome, { _tag: "Succeeded" })

      const first = request()
      yield* Effect.flip(processor.chargeCard(first, card("4000000000001018")))
      assert.isTrue(Option.isNone(yield* processor.lookup(first.reference)))
    }))

  it.effect("a refund never returns more than the charge took, over all its refunds", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const r = request()
      const charged = yield* processor.chargeCard(r, card("4242424242424242"))
      assert.deepStrictEqual((yield* processor.refund(charged.chargeId, r.amount - 1, "ref_1")).outcome, { _tag: "Succeeded" })
      assert.strictEqual((yield* processor.refund(charged.chargeId, 2, "ref_2")).outcome._tag, "Refused")
      assert.deepStrictEqual((yield* processor.refund(charged.chargeId, 1, "ref_3")).outcome, { _tag: "Succeeded" })
      assert.strictEqual((yield* processor.refund("ch_sim_unknown", 1, "ref_4")).outcome._tag, "Refused")
      const declined = yield* processor.chargeCard(request(), card("4000000000000002"))
      assert.strictEqual((yield* processor.refund(declined.chargeId, 1, "ref_5")).outcome._tag, "Refused")
    }))
})

describe("SimulatedProcessor.saveCard", () => {
  it.effect("refuses the cards an issuer refuses when asked to verify them, and charges nothing", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const refused: ReadonlyArray<readonly [string, string]> = [
        ["4000000000000002", "card_declined"],
        ["4000 0000 0000 0069", "expired_card"],
        ["4000000000000119", "processing_error"]
      ]
      for (const [number, code] of refused) {
        assert.deepStrictEqual(yield* processor.saveCard(card(number), { livemode: false }), { _tag: "Refused", code })
      }
      assert.deepStrictEqual(yield* processor.movements(DateTime.unsafeMake(0)), [])
    }))

  it.effect("saves 4242, 0341 and 9995 without a charge; their tokens then behave as the cards do later", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      const later: ReadonlyArray<readonly [string, ChargeOutcome]> = [
        ["4242424242424242", { _tag: "Succeeded" }],
        ["4000000000000341", { _tag: "Failed", code: "card_declined" }],
        ["4000000000009995", { _tag: "Failed", code: "insufficient_funds" }]
      ]
      for (const [number, outcome] of later) {
        const saved = yield* processor.saveCard(card(number), { livemode: false })
        assert.strictEqual(saved._tag, "Saved", number)
        if (saved._tag !== "Saved") continue
        assert.deepStrictEqual(
          { brand: saved.card.brand, last4: saved.card.last4, exp_month: saved.card.exp_month, exp_year: saved.card.exp_year },
          { brand: "visa", last4: number.slice(-4), exp_month: 12, exp_year: 2030 }
        )
        assert.notInclude(saved.card.token, number)
        assert.strictEqual((yield* processor.movements(DateTime.unsafeMake(0))).length, later.indexOf(later.find(([n]) => n === number)!))
        const charge = yield* processor.chargeToken(request(), saved.card.token)
        assert.deepStrictEqual(charge.outcome, outcome, number)
      }
    }))

  it.effect("an unreachable processor (1018) and a lost answer (1000) fail as unavailable", () =>
    Effect.gen(function*() {
      const processor = yield* fresh
      for (const number of ["4000000000001018", "4000000000001000"]) {
        const result = yield* Effect.flip(processor.saveCard(card(number), { livemode: false }))
        assert.strictEqual(result._tag, "ProcessorUnavailable")
      }
    }))
})

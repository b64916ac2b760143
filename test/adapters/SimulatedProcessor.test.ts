/** The simulated processor and its test cards (decisions.md §4), with TestClock driving asynchronous settlement. */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, TestClock } from "effect"
import { makeSimulatedProcessor, SimulatedProcessor } from "../../adapters/processor/SimulatedProcessor.js"
import type { ChargeOutcome } from "../../src/domain/Payment.js"
import { type CardDetails, PaymentProcessor } from "../../src/ports/PaymentProcessor.js"

const processor = makeSimulatedProcessor({ live: false })
const request = { reference: "pay_0", amount: 34900, currency: "AED", livemode: false }
const configOf = (entries: Record<string, string>) => ConfigProvider.fromMap(new Map(Object.entries(entries)))
const card = (number: string): CardDetails => ({ number, expMonth: 12, expYear: 2030, cvc: "123" })

const immediate: ReadonlyArray<readonly [string, ChargeOutcome]> = [
  ["4242424242424242", { _tag: "Succeeded" }],
  ["5555555555554444", { _tag: "Succeeded" }],
  ["4000000000000002", { _tag: "Failed", code: "card_declined" }],
  ["4000000000009995", { _tag: "Failed", code: "insufficient_funds" }],
  ["4000000000000069", { _tag: "Failed", code: "expired_card" }],
  ["4000000000000341", { _tag: "Succeeded" }],
  ["4000000000000119", { _tag: "Failed", code: "processing_error" }],
  // Any other Luhn-valid number succeeds.
  ["4111111111111111", { _tag: "Succeeded" }],
  ["378282246310005", { _tag: "Succeeded" }],
  ["6011111111111117", { _tag: "Succeeded" }]
]

describe("SimulatedProcessor.chargeCard", () => {
  it.effect("every immediate test card gives exactly its outcome", () =>
    Effect.gen(function*() {
      for (const [number, outcome] of immediate) {
        const r = yield* processor.chargeCard(request, card(number))
        assert.deepStrictEqual(r.outcome, outcome, number)
        assert.match(r.chargeId, /^ch_sim_/)
      }
    }))

  it.effect("spaces and dashes in the number do not change the outcome", () =>
    Effect.gen(function*() {
      const r = yield* processor.chargeCard(request, card("4000 0000 0000 0002"))
      assert.deepStrictEqual(r.outcome, { _tag: "Failed", code: "card_declined" })
      const ok = yield* processor.chargeCard(request, card("4242-4242-4242-4242"))
      assert.deepStrictEqual(ok.outcome, { _tag: "Succeeded" })
      assert.strictEqual(ok.card?.last4, "4242")
    }))

  it.effect("keeps brand, last4, expiry and an opaque token — never the number", () =>
    Effect.gen(function*() {
      const brands: ReadonlyArray<readonly [string, string]> = [
        ["4242424242424242", "visa"],
        ["5555555555554444", "mastercard"],
        ["2223003122003222", "mastercard"],
        ["378282246310005", "amex"],
        ["6011111111111117", "unknown"]
      ]
      for (const [number, brand] of brands) {
        const r = yield* processor.chargeCard(request, { number, expMonth: 7, expYear: 2031, cvc: "999" })
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
      const a = yield* processor.chargeCard(request, card("4242424242424242"))
      const b = yield* processor.chargeCard(request, card("4242424242424242"))
      assert.notStrictEqual(a.card!.token, b.card!.token)
      assert.notStrictEqual(a.chargeId, b.chargeId)
    }))

  it.effect("a declined card still reports the card", () =>
    Effect.gen(function*() {
      const r = yield* processor.chargeCard(request, card("4000000000009995"))
      assert.strictEqual(r.card?.last4, "9995")
      assert.strictEqual(r.card?.brand, "visa")
    }))
})

describe("SimulatedProcessor.chargeToken", () => {
  it.effect("the 0341 card succeeds first; its token is declined on every later charge", () =>
    Effect.gen(function*() {
      const first = yield* processor.chargeCard(request, card("4000000000000341"))
      assert.deepStrictEqual(first.outcome, { _tag: "Succeeded" })
      for (let i = 0; i < 3; i++) {
        const renewal = yield* processor.chargeToken(request, first.card!.token)
        assert.deepStrictEqual(renewal.outcome, { _tag: "Failed", code: "card_declined" })
        assert.isNull(renewal.card)
      }
    }))

  it.effect("tokens of the other succeeding cards renew successfully; an unknown token fails", () =>
    Effect.gen(function*() {
      for (const number of ["4242424242424242", "5555555555554444", "4111111111111111"]) {
        const first = yield* processor.chargeCard(request, card(number))
        const renewal = yield* processor.chargeToken(request, first.card!.token)
        assert.deepStrictEqual(renewal.outcome, { _tag: "Succeeded" }, number)
        assert.notStrictEqual(renewal.chargeId, first.chargeId)
      }
      const unknown = yield* processor.chargeToken(request, "tok_other_123")
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
        yield* TestClock.adjust("10 seconds") // start away from zero
        const r = yield* processor.chargeCard(request, card(number))
        assert.deepStrictEqual(r.outcome, { _tag: "Processing" })
        assert.strictEqual(r.card?.last4, number.slice(-4))

        const outcome = () => processor.settlements([r.chargeId])
        let now = yield* outcome()
        assert.deepStrictEqual(now, [{ chargeId: r.chargeId, outcome: { _tag: "Processing" } }])
        yield* TestClock.adjust("1999 millis")
        now = yield* outcome()
        assert.deepStrictEqual(now[0]!.outcome, { _tag: "Processing" }, "not settled before 2 s")
        yield* TestClock.adjust("1 millis")
        now = yield* outcome()
        assert.deepStrictEqual(now, [{ chargeId: r.chargeId, outcome: settled }])
        yield* TestClock.adjust("1 hour")
        assert.deepStrictEqual((yield* outcome())[0]!.outcome, settled, "stays settled")
      }))
  }

  it.effect("settlements answers every id asked, in order; unknown ids stay processing", () =>
    Effect.gen(function*() {
      const a = yield* processor.chargeCard(request, card("4000000000000259"))
      const b = yield* processor.chargeCard(request, card("4000000000000267"))
      yield* TestClock.adjust("3 seconds")
      const out = yield* processor.settlements([b.chargeId, "ch_unknown", a.chargeId])
      assert.deepStrictEqual(out, [
        { chargeId: b.chargeId, outcome: { _tag: "Failed", code: "card_declined" } },
        { chargeId: "ch_unknown", outcome: { _tag: "Processing" } },
        { chargeId: a.chargeId, outcome: { _tag: "Succeeded" } }
      ])
      assert.deepStrictEqual(yield* processor.settlements([]), [])
    }))

  it.effect("a charge settles by its own clock: later charges settle later", () =>
    Effect.gen(function*() {
      const first = yield* processor.chargeCard(request, card("4000000000000259"))
      yield* TestClock.adjust("1500 millis")
      const second = yield* processor.chargeCard(request, card("4000000000000259"))
      yield* TestClock.adjust("500 millis")
      const out = yield* processor.settlements([first.chargeId, second.chargeId])
      assert.deepStrictEqual(out.map((s) => s.outcome._tag), ["Succeeded", "Processing"])
      yield* TestClock.adjust("1500 millis")
      const later = yield* processor.settlements([second.chargeId])
      assert.strictEqual(later[0]!.outcome._tag, "Succeeded")
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

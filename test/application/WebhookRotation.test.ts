/**
 * Rotating an endpoint's signing secret: deliveries are signed with the new secret and, for 24 hours, with
 * the old one beside it (`webhook-signature` with two signatures, as Standard Webhooks allows), so a receiver that
 * holds either verifies them; then with the new one only. The merchant is shown only the new secret.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Redacted, TestClock } from "effect"
import * as StandardWebhooks from "../../adapters/crypto/StandardWebhooks.js"
import * as FilsTest from "../../adapters/testing/FilsTest.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Deliveries } from "../../src/application/Deliveries.js"
import { Products } from "../../src/application/Products.js"
import { Webhooks } from "../../src/application/Webhooks.js"
import * as WebhookEndpoint from "../../src/domain/WebhookEndpoint.js"
import { Store } from "../../src/ports/Store.js"
import { assertHidden } from "../support/secrets.js"

const secret = Redacted.make
const values = (secrets: ReadonlyArray<Redacted.Redacted<string>>) => secrets.map(Redacted.value)

describe("WebhookEndpoint.rotate", () => {
  it("signs with the new and the old secret for 24 hours, then with the new one; a second rotation keeps each retired secret for its own 24 hours", () => {
    const now = DateTime.unsafeMake(Date.UTC(2026, 10, 25, 12))
    const endpoint = { secret: secret("whsec_old") } as WebhookEndpoint.WebhookEndpoint
    const rotated = WebhookEndpoint.rotate(endpoint, secret("whsec_new"), now)
    assert.strictEqual(Redacted.value(WebhookEndpoint.currentSecret(rotated.secret)), "whsec_new")
    assert.deepStrictEqual(values(WebhookEndpoint.signingSecrets(rotated.secret, now)), ["whsec_new", "whsec_old"])
    assert.deepStrictEqual(values(WebhookEndpoint.signingSecrets(rotated.secret, DateTime.add(now, { hours: 23, minutes: 59 }))), ["whsec_new", "whsec_old"])
    assert.deepStrictEqual(values(WebhookEndpoint.signingSecrets(rotated.secret, DateTime.add(now, { hours: 24 }))), ["whsec_new"])
    const again = WebhookEndpoint.rotate(rotated, secret("whsec_newer"), DateTime.add(now, { hours: 1 }))
    assert.strictEqual(Redacted.value(WebhookEndpoint.currentSecret(again.secret)), "whsec_newer")
    assert.deepStrictEqual(values(WebhookEndpoint.signingSecrets(again.secret, DateTime.add(now, { hours: 2 }))), ["whsec_newer", "whsec_new", "whsec_old"])
    assert.deepStrictEqual(values(WebhookEndpoint.signingSecrets(again.secret, DateTime.add(now, { hours: 23, minutes: 59 }))), ["whsec_newer", "whsec_new", "whsec_old"])
    assert.deepStrictEqual(values(WebhookEndpoint.signingSecrets(again.secret, DateTime.add(now, { hours: 24 }))), ["whsec_newer", "whsec_new"])
    assert.deepStrictEqual(values(WebhookEndpoint.signingSecrets(again.secret, DateTime.add(now, { hours: 25 }))), ["whsec_newer"])
    // A third rotation once the first retired secret ended: only those still signing are kept.
    const third = WebhookEndpoint.rotate(again, secret("whsec_newest"), DateTime.add(now, { hours: 24, minutes: 30 }))
    assert.strictEqual(Redacted.value(third.secret).split("|").length, 5)
    assert.deepStrictEqual(values(WebhookEndpoint.signingSecrets(third.secret, DateTime.add(now, { hours: 24, minutes: 30 }))), ["whsec_newest", "whsec_newer", "whsec_new"])
    assert.deepStrictEqual(values(WebhookEndpoint.signingSecrets(secret("whsec_plain"), now)), ["whsec_plain"])
    // However many secrets the endpoint holds, printing it shows none.
    assertHidden(third, ["whsec_"], "the rotated endpoint")
  })
})

describe("Webhooks.rotateSecret", () => {
  it.effect("deliveries verify with either secret for a day after the rotation, then with the new one only", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 10, 25, 12))
      const shop = yield* FilsTest.account()
      const webhooks = yield* Webhooks
      const deliveries = yield* Deliveries
      const recorder = yield* FilsTest.WebhookRecorder
      const created = yield* webhooks.create(shop.test, { url: "https://hooks.example.ae/fils" })
      const old = Redacted.value(created.secret)
      const rotated = yield* webhooks.rotateSecret(shop.test, created.webhook_id)
      const fresh = Redacted.value(rotated.secret)
      assert.notStrictEqual(fresh, old)
      const shown = yield* webhooks.secret(shop.test, created.webhook_id)
      assert.strictEqual(Redacted.value(shown.secret), fresh, "only the new secret is shown")
      const stored = yield* Effect.flatMap(Store, (s) => s.webhooks.get(shop.test, created.webhook_id))
      assert.isTrue(stored._tag === "Some" && Redacted.value(stored.value.secret).startsWith(`${fresh}|${old}|`))
      // The secrets are Redacted until the one response that shows them (`WebhookEndpoint.withSecret`).
      for (const [value, what] of [[created, "the created endpoint"], [rotated, "the rotation"], [shown, "the secret read"], [stored, "the stored endpoint"]] as const) {
        assertHidden(value, [old, fresh], what)
      }
      assert.strictEqual(WebhookEndpoint.withSecret(created).secret, old)

      // An event the endpoint hears (a payment), delivered now: two signatures, each secret verifies.
      const product = yield* (yield* Products).create(shop.test, { name: "Beans", price: 6_500, currency: "AED" })
      const sell = Effect.flatMap(
        (yield* Checkout).create(shop.test, { product_cart: [{ product_id: product.product_id, quantity: 1 }] }),
        (session) => FilsTest.pay(session.session_id)
      )
      yield* sell
      yield* deliveries.dispatchOnce()
      const first = (yield* recorder.sent).at(-1)!
      assert.strictEqual(first.headers["webhook-signature"]!.split(" ").length, 2)
      const seconds = Math.floor(Date.UTC(2026, 10, 25, 12) / 1000)
      for (const secret of [fresh, old]) {
        assert.doesNotThrow(() => StandardWebhooks.verify({ secret, headers: first.headers, body: first.body, now: seconds }), secret)
      }

      // A day later: the new secret only.
      yield* TestClock.adjust("24 hours")
      yield* sell
      yield* deliveries.dispatchOnce()
      const later = (yield* recorder.sent).at(-1)!
      assert.strictEqual(later.headers["webhook-signature"]!.split(" ").length, 1)
      const now = seconds + 24 * 3600
      assert.doesNotThrow(() => StandardWebhooks.verify({ secret: fresh, headers: later.headers, body: later.body, now }))
      assert.throws(() => StandardWebhooks.verify({ secret: old, headers: later.headers, body: later.body, now }))
    }).pipe(Effect.provide(FilsTest.layer())))

  it.effect("two rotations within a day: a delivery verifies with each of the three secrets until each one's own day ends", () =>
    Effect.gen(function*() {
      const start = Date.UTC(2026, 10, 25, 12)
      yield* TestClock.setTime(start)
      const shop = yield* FilsTest.account()
      const webhooks = yield* Webhooks
      const deliveries = yield* Deliveries
      const recorder = yield* FilsTest.WebhookRecorder
      const created = yield* webhooks.create(shop.test, { url: "https://hooks.example.ae/fils" })
      const second = Redacted.value((yield* webhooks.rotateSecret(shop.test, created.webhook_id)).secret)
      yield* TestClock.adjust("6 hours")
      const third = Redacted.value((yield* webhooks.rotateSecret(shop.test, created.webhook_id)).secret)
      const product = yield* (yield* Products).create(shop.test, { name: "Beans", price: 6_500, currency: "AED" })
      const checkout = yield* Checkout
      const sell = Effect.gen(function*() {
        const session = yield* checkout.create(shop.test, { product_cart: [{ product_id: product.product_id, quantity: 1 }] })
        yield* FilsTest.pay(session.session_id)
        yield* deliveries.dispatchOnce()
        return (yield* recorder.sent).at(-1)!
      })
      const verifies = (sent: { readonly headers: Record<string, string>; readonly body: string }, secret: string, now: number) => {
        try {
          StandardWebhooks.verify({ secret, headers: sent.headers, body: sent.body, now })
          return true
        } catch {
          return false
        }
      }
      const secrets = [Redacted.value(created.secret), second, third]
      // Six hours after the first rotation: the original secret still verifies, beside the two after it.
      const soon = yield* sell
      assert.deepStrictEqual(secrets.map((s) => verifies(soon, s, Math.floor(start / 1000) + 6 * 3600)), [true, true, true])
      // The original's day ends 24 hours after the first rotation; the second's 24 hours after the second.
      yield* TestClock.adjust("19 hours")
      const later = yield* sell
      assert.deepStrictEqual(secrets.map((s) => verifies(later, s, Math.floor(start / 1000) + 25 * 3600)), [false, true, true])
      yield* TestClock.adjust("6 hours")
      const last = yield* sell
      assert.deepStrictEqual(secrets.map((s) => verifies(last, s, Math.floor(start / 1000) + 31 * 3600)), [false, false, true])
    }).pipe(Effect.provide(FilsTest.layer())))
})

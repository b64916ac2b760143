/**
 * The Signer port's Standard Webhooks pair on node:crypto (docs/decisions.md §7): `verifyWebhook` accepts what
 * `signWebhook` signs (and what the reference `standardwebhooks` package signs), returns the parsed body, and refuses
 * with a typed `WebhookSignatureInvalid` a changed body, id or timestamp, another secret, missing headers, and a
 * timestamp more than five minutes from the Effect Clock (a TestClock moves the window).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck, Redacted, TestClock } from "effect"
import { Webhook } from "standardwebhooks"
import { base32, SignerNode } from "../../adapters/crypto/SignerNode.js"
import { Signer, WebhookSignatureInvalid } from "../../src/ports/Signer.js"

const secretArb = FastCheck.uint8Array({ minLength: 24, maxLength: 24 }).map((b) =>
  Redacted.make(`whsec_${Buffer.from(b).toString("base64")}`)
)
const bodyArb = FastCheck.unicodeJsonValue().map((v) => JSON.stringify(v))
const idArb = FastCheck.stringMatching(/^evt_[0-9a-f]{32}$/)
const timestampArb = FastCheck.integer({ min: 1_000_000_000, max: 4_000_000_000 })

/** Signs with the port and returns the headers a receiver gets. */
const signed = (props: { secret: Redacted.Redacted<string>; id: string; timestamp: number; body: string }) =>
  Effect.map(Effect.flatMap(Signer, (s) => s.signWebhook(props)), (signature) => ({
    "webhook-id": props.id,
    "webhook-timestamp": String(props.timestamp),
    "webhook-signature": signature
  }))

const refusal = <A>(result: Either.Either<A, WebhookSignatureInvalid>): string => {
  if (Either.isRight(result)) return assert.fail("verified")
  assert.instanceOf(result.left, WebhookSignatureInvalid)
  return result.left.message
}

describe("Signer.verifyWebhook (SignerNode)", () => {
  it.effect.prop(
    "verifies what signWebhook signs and returns the body; refuses any change, another secret, or a stale timestamp",
    { secret: secretArb, other: secretArb, id: idArb, timestamp: timestampArb, body: bodyArb, skew: FastCheck.integer({ min: -300, max: 300 }) },
    ({ body, id, other, secret, skew, timestamp }) =>
      Effect.gen(function*() {
        const signer = yield* Signer
        const headers = yield* signed({ secret, id, timestamp, body })
        const now = timestamp + skew
        assert.deepStrictEqual(yield* signer.verifyWebhook({ secret, headers, body, now }), JSON.parse(body))

        const verify = (props: Partial<Parameters<typeof signer.verifyWebhook>[0]>) =>
          Effect.either(signer.verifyWebhook({ secret, headers, body, now, ...props }))
        assert.strictEqual(refusal(yield* verify({ body: `${body} ` })), "No matching signature")
        assert.strictEqual(refusal(yield* verify({ headers: { ...headers, "webhook-id": `${id}0` } })), "No matching signature")
        if (Redacted.value(other) !== Redacted.value(secret)) assert.strictEqual(refusal(yield* verify({ secret: other })), "No matching signature")
        assert.strictEqual(refusal(yield* verify({ now: timestamp + 301 })), "Timestamp outside the tolerance")
        assert.strictEqual(refusal(yield* verify({ now: timestamp - 301 })), "Timestamp outside the tolerance")
        assert.strictEqual(refusal(yield* verify({ headers: { "webhook-id": id } })), "Missing webhook headers")
      }).pipe(Effect.provide(SignerNode)),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect("interoperates with the reference standardwebhooks package; header names in any case", () =>
    Effect.gen(function*() {
      const signer = yield* Signer
      const secret = yield* signer.webhookSecret
      const body = JSON.stringify({ id: "evt_1", type: "payment.succeeded", data: { total_amount: 34900 } })
      const timestamp = new Date(1_800_000_000_000)
      const signature = new Webhook(Redacted.value(secret)).sign("msg_1", timestamp, body)
      const parsed = yield* signer.verifyWebhook({
        secret,
        headers: { "Webhook-Id": "msg_1", "WEBHOOK-TIMESTAMP": String(timestamp.getTime() / 1000), "webhook-signature": signature },
        body,
        now: timestamp.getTime() / 1000
      })
      assert.deepStrictEqual(parsed, JSON.parse(body))
    }).pipe(Effect.provide(SignerNode)))

  it.effect("without `now`, the tolerance is measured from the Effect Clock", () =>
    Effect.gen(function*() {
      const signer = yield* Signer
      const secret = yield* signer.webhookSecret
      const body = "{\"ok\":true}"
      yield* TestClock.setTime(1_800_000_000_000)
      const headers = yield* signed({ secret, id: "evt_clock", timestamp: 1_800_000_000, body })
      assert.deepStrictEqual(yield* signer.verifyWebhook({ secret, headers, body }), { ok: true })
      yield* TestClock.adjust("300 seconds")
      assert.deepStrictEqual(yield* signer.verifyWebhook({ secret, headers, body }), { ok: true })
      yield* TestClock.adjust("1 second")
      assert.strictEqual(
        refusal(yield* Effect.either(signer.verifyWebhook({ secret, headers, body }))),
        "Timestamp outside the tolerance"
      )
    }).pipe(Effect.provide(SignerNode)))
})

describe("SignerNode: TOTP (RFC 6238)", () => {
  it.effect("computes RFC 6238's SHA-1 test vectors (6 digits) from the base32 of its secret; new secrets are 20 bytes of base32", () =>
    Effect.gen(function*() {
      const signer = yield* Signer
      // Appendix B: the ASCII secret "12345678901234567890", base32; its 8-digit codes end in these 6.
      const secret = Redacted.make(base32(Buffer.from("12345678901234567890", "ascii")))
      assert.strictEqual(Redacted.value(secret), "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
      const codes = []
      for (const seconds of [59, 1111111109, 1111111111, 1234567890, 2000000000, 20000000000]) {
        codes.push(yield* signer.totpCode(secret, Math.floor(seconds / 30)))
      }
      assert.deepStrictEqual(codes, ["287082", "081804", "050471", "005924", "279037", "353130"])
      assert.match(Redacted.value(yield* signer.totpSecret), /^[A-Z2-7]{32}$/)
      assert.match(yield* signer.recoveryCode, /^[a-z2-7]{10}$/)
    }).pipe(Effect.provide(SignerNode)))
})

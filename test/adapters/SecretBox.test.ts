/**
 * The SecretBox over AES-256-GCM (adapters/crypto/SecretBox.ts): what is sealed opens to itself, any changed byte,
 * another key or another owner fails, older keys still open, and only well-formed keys are accepted from the
 * environment. Also the constant-time comparisons of secrets (form tokens, webhook signatures): right answers for
 * equal, unequal and different-length inputs, never an exception (node's timingSafeEqual throws on unequal lengths).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Exit, FastCheck as fc, Option } from "effect"
import { randomBytes } from "node:crypto"
import { keyIdFor, makeSecretBox, parseKey, secretBoxConfig } from "../../adapters/crypto/SecretBox.js"
import { sameSecret } from "../../adapters/crypto/SignerNode.js"
import { sign, verify } from "../../adapters/crypto/StandardWebhooks.js"
import { plaintextBox, sealedKeyId } from "../../src/ports/SecretBox.js"

const key = () => new Uint8Array(randomBytes(32))
const current = key()
const older = key()
const box = makeSecretBox(current)

const arbKey = fc.uint8Array({ minLength: 32, maxLength: 32 })
const arbSecret = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.constant("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
const arbContext = fc.string({ minLength: 1, maxLength: 40 })

const opened = (result: Either.Either<string, { readonly message: string }>) =>
  Either.match(result, { onLeft: (e) => `error: ${e.message}`, onRight: (plain) => `ok: ${plain}` })

/** The sealed value with bit `bit` of byte `index` (over nonce and ciphertext+tag, decoded) flipped. */
const flip = (sealed: string, index: number, bit: number): string => {
  const [p1, p2, keyId, nonceText, bodyText] = sealed.split(":")
  const bytes = Buffer.concat([Buffer.from(nonceText!, "base64url"), Buffer.from(bodyText!, "base64url")])
  const i = index % bytes.length
  bytes[i] = bytes[i]! ^ (1 << bit)
  return [p1, p2, keyId, bytes.subarray(0, 12).toString("base64url"), bytes.subarray(12).toString("base64url")].join(":")
}

describe("SecretBox (AES-256-GCM)", () => {
  it.effect.prop("open(seal(x)) = x, and the stored value never contains x", [arbSecret, arbContext], ([secret, context]) =>
    Effect.gen(function*() {
      const sealed = yield* box.seal(secret, context)
      assert.match(sealed, /^enc:v1:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/)
      assert.strictEqual(opened(box.open(sealed, context)), `ok: ${secret}`)
      if (secret.length >= 4) assert.notInclude(sealed, secret)
      assert.isTrue(box.isCurrent(sealed))
    }), { fastCheck: { numRuns: 200 } })

  it.effect.prop("any changed byte of nonce, ciphertext or tag fails", [arbSecret, fc.nat(), fc.integer({ min: 0, max: 7 })], ([
    secret,
    index,
    bit
  ]) =>
    Effect.gen(function*() {
      const sealed = yield* box.seal(secret, "wh_1")
      assert.match(opened(box.open(flip(sealed, index, bit), "wh_1")), /^error: .*failed authentication/)
    }), { fastCheck: { numRuns: 200 } })

  it.effect.prop("a value sealed for one owner does not open for another", [arbSecret, arbContext, arbContext], ([
    secret,
    a,
    b
  ]) =>
    Effect.gen(function*() {
      if (a === b) return
      const sealed = yield* box.seal(secret, a)
      assert.match(opened(box.open(sealed, b)), /^error: /)
    }))

  it.effect.prop("another key fails: by its id, and by authentication when the id is forged", [arbKey, arbSecret], ([
    other,
    secret
  ]) =>
    Effect.gen(function*() {
      if (Buffer.compare(Buffer.from(other), Buffer.from(current)) === 0) return
      const sealed = yield* box.seal(secret, "wh_1")
      const wrong = makeSecretBox(other)
      assert.match(opened(wrong.open(sealed, "wh_1")), /^error: a secret is sealed under key id .* which neither/)
      const forged = sealed.replace(`:${keyIdFor(current)}:`, `:${keyIdFor(other)}:`)
      assert.match(opened(wrong.open(forged, "wh_1")), /^error: .*failed authentication/)
      assert.isFalse(wrong.isCurrent(sealed))
    }), { fastCheck: { numRuns: 50 } })

  it.effect("a changed key id, version or layout fails", () =>
    Effect.gen(function*() {
      const sealed = yield* box.seal("whsec_abc", "wh_1")
      const id = keyIdFor(current)
      const otherId = id.slice(0, -1) + (id.endsWith("A") ? "B" : "A")
      assert.match(opened(box.open(sealed.replace(id, otherId), "wh_1")), /^error: /)
      assert.match(opened(box.open(sealed.replace("enc:v1:", "enc:v2:"), "wh_1")), /^error: .*unknown format/)
      assert.match(opened(box.open(sealed + ":x", "wh_1")), /^error: .*malformed/)
      assert.match(opened(box.open(sealed.slice(0, sealed.lastIndexOf(":")), "wh_1")), /^error: .*malformed/)
    }))

  it.effect.prop("previous keys open; new values are sealed under the current key", [arbSecret], ([secret]) =>
    Effect.gen(function*() {
      const old = makeSecretBox(older)
      const rotated = makeSecretBox(current, [older])
      const sealedOld = yield* old.seal(secret, "wh_9")
      assert.strictEqual(opened(rotated.open(sealedOld, "wh_9")), `ok: ${secret}`)
      assert.isFalse(rotated.isCurrent(sealedOld))
      const resealed = yield* rotated.seal(secret, "wh_9")
      assert.deepStrictEqual(sealedKeyId(resealed), Option.some(keyIdFor(current)))
      assert.isTrue(rotated.isCurrent(resealed))
      // The current key alone cannot open what the old one sealed.
      assert.match(opened(box.open(sealedOld, "wh_9")), /^error: /)
      // Decrypt-only (previous keys, no current one): opens, and writes plaintext.
      const decryptOnly = makeSecretBox(undefined, [older])
      assert.strictEqual(opened(decryptOnly.open(sealedOld, "wh_9")), `ok: ${secret}`)
      assert.strictEqual(yield* decryptOnly.seal(secret, "wh_9"), secret)
      assert.isFalse(decryptOnly.isCurrent(sealedOld))
    }), { fastCheck: { numRuns: 50 } })

  it.effect("two seals of one value differ (a fresh nonce each time)", () =>
    Effect.gen(function*() {
      const seen = new Set<string>()
      for (let i = 0; i < 200; i++) seen.add((yield* box.seal("whsec_same", "wh_1")).split(":")[3]!)
      assert.strictEqual(seen.size, 200)
    }))

  it.effect("plaintext stays readable; without a key values are written as they are and sealed ones refused", () =>
    Effect.gen(function*() {
      assert.strictEqual(opened(box.open("whsec_plain", "wh_1")), "ok: whsec_plain")
      assert.isFalse(box.isCurrent("whsec_plain"))
      assert.strictEqual(yield* plaintextBox.seal("whsec_plain", "wh_1"), "whsec_plain")
      assert.isTrue(plaintextBox.isCurrent("whsec_plain"))
      const sealed = yield* box.seal("whsec_plain", "wh_1")
      assert.match(opened(plaintextBox.open(sealed, "wh_1")), /FILS_SECRET_KEY is not set/)
    }))
})

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** The same bytes with the two spare bits of the last character set: decodes, but is not a key's canonical text. */
const nonCanonical = (text: string) => text.slice(0, 42) + alphabet[alphabet.indexOf(text[42]!) | 1]

describe("SecretBox keys from the environment", () => {
  const raw = randomBytes(32)
  const load = (env: Record<string, string>) =>
    Effect.exit(Effect.withConfigProvider(secretBoxConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

  it("accepts 32 bytes as hex, base64 and base64url; refuses every other form", () => {
    for (const text of [raw.toString("hex"), raw.toString("hex").toUpperCase(), raw.toString("base64"), raw.toString("base64url")]) {
      assert.deepStrictEqual(Buffer.from(parseKey(text) ?? []), raw, text)
    }
    const refused = [
      "",
      "secret",
      randomBytes(31).toString("hex"),
      randomBytes(33).toString("hex"),
      randomBytes(31).toString("base64"),
      randomBytes(33).toString("base64"),
      randomBytes(48).toString("base64"),
      raw.toString("hex").slice(0, 63) + "g",
      raw.toString("base64").replace(/^./, "*"),
      nonCanonical(raw.toString("base64url"))
    ]
    for (const text of refused) assert.isUndefined(parseKey(text), text)
  })

  it.effect("a malformed FILS_SECRET_KEY or FILS_SECRET_KEY_PREVIOUS is refused with a clear message", () =>
    Effect.gen(function*() {
      for (const [env, pattern] of [
        [{ FILS_SECRET_KEY: "hunter2" }, /FILS_SECRET_KEY is not a valid key: it must be 32 random bytes/],
        [{ FILS_SECRET_KEY: randomBytes(16).toString("hex") }, /FILS_SECRET_KEY is not a valid key/],
        [
          { FILS_SECRET_KEY: raw.toString("hex"), FILS_SECRET_KEY_PREVIOUS: `${randomBytes(32).toString("hex")},nope` },
          /FILS_SECRET_KEY_PREVIOUS \(key 2\) is not a valid key/
        ],
        [{ FILS_SECRET_KEY: `${raw.toString("hex")},${raw.toString("hex")}` }, /holds one key/]
      ] as const) {
        const exit = yield* load(env as Record<string, string>)
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(env))
        if (Exit.isFailure(exit)) assert.match(String(exit.cause), pattern)
      }
    }))

  it.effect("keys from the environment: current seals, previous open; none means plaintext", () =>
    Effect.gen(function*() {
      const previous = [randomBytes(32), randomBytes(32)]
      const sealedOld = yield* makeSecretBox(previous[1]).seal("whsec_x", "wh_1")
      const exit = yield* load({
        FILS_SECRET_KEY: raw.toString("base64"),
        FILS_SECRET_KEY_PREVIOUS: ` ${previous[0]!.toString("hex")} , ${previous[1]!.toString("base64url")} `
      })
      assert.isTrue(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) {
        const loaded = exit.value
        assert.deepStrictEqual(loaded.keyId, Option.some(keyIdFor(raw)))
        assert.deepStrictEqual(loaded.keyIds, [raw, ...previous].map(keyIdFor))
        assert.strictEqual(opened(loaded.open(sealedOld, "wh_1")), "ok: whsec_x")
      }
      const none = yield* load({ FILS_SECRET_KEY: "  " })
      assert.isTrue(Exit.isSuccess(none) && Option.isNone(none.value.keyId) && none.value.keyIds.length === 0)
    }))
})

describe("constant-time comparisons", () => {
  it.prop("sameSecret: true exactly for equal strings, whatever the lengths", [fc.string(), fc.string()], ([a, b]) => {
    assert.strictEqual(sameSecret(a, a), true)
    assert.strictEqual(sameSecret(a, b), a === b)
    assert.strictEqual(sameSecret(a, a + "x"), false)
    assert.strictEqual(sameSecret(a + "\u0000", a), false)
  }, { fastCheck: { numRuns: 500 } })

  it.prop("webhook signatures: the right one verifies; altered, shorter, longer or empty ones are refused cleanly", [
    fc.string({ minLength: 1, maxLength: 200 }),
    fc.string({ minLength: 0, maxLength: 60 })
  ], ([note, junk]) => {
    const body = JSON.stringify({ note })
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    const timestamp = Math.floor(Date.now() / 1000)
    const good = sign({ secret, id: "msg_1", timestamp, body })
    const check = (signature: string) => {
      try {
        verify({ secret, body, headers: { "webhook-id": "msg_1", "webhook-timestamp": String(timestamp), "webhook-signature": signature } })
        return "verified"
      } catch (error) {
        return (error as Error).name
      }
    }
    assert.strictEqual(check(good), "verified")
    const value = good.slice(3)
    const flipped = value.slice(0, 5) + (value[5] === "A" ? "B" : "A") + value.slice(6)
    for (const bad of [`v1,${flipped}`, `v1,${value.slice(0, -2)}`, `v1,${value}AA`, `v1,${junk}`, "v1,"]) {
      if (bad === good) continue
      assert.strictEqual(check(bad), "WebhookVerificationError", bad)
    }
  }, { fastCheck: { numRuns: 200 } })
})

/** The Signer port over node:crypto. */
import { Clock, Effect, Layer } from "effect"
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Signer, WebhookSignatureInvalid } from "../../src/ports/Signer.js"
import { newSecret, sign, verify } from "./StandardWebhooks.js"

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

/** Constant time whatever the inputs' lengths: their digests (always 32 bytes) are what is compared. */
export const sameSecret = (presented: string, expected: string): boolean =>
  timingSafeEqual(sha256(presented), sha256(expected))

/**
 * scrypt (memory-hard) with N = 2^15, r = 8, p = 1: 32 MiB and some 100 ms per hash, OWASP's floor for scrypt.
 * Stored as `scrypt$N$r$p$<salt>$<key>` (base64url).
 */
const kdf = { N: 32_768, r: 8, p: 1, keyLength: 32, maxmem: 64 * 1024 * 1024 }

const derive = (password: string, salt: Buffer, params: { readonly N: number; readonly r: number; readonly p: number }) =>
  Effect.async<Buffer, Error>((resume) => {
    scrypt(password.normalize("NFC"), salt, kdf.keyLength, { ...params, maxmem: kdf.maxmem }, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.fail(error)))
  })

export const hashPassword = (password: string) =>
  Effect.gen(function*() {
    const salt = randomBytes(16)
    const key = yield* Effect.orDie(derive(password, salt, kdf))
    return `scrypt$${kdf.N}$${kdf.r}$${kdf.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
  })

export const verifyPassword = (password: string, hash: string) => {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(hash)
  if (m === null) return Effect.succeed(false)
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (N > 1_048_576 || r > 32 || p > 16) return Effect.succeed(false)
  const expected = Buffer.from(m[5]!, "base64url")
  return derive(password, Buffer.from(m[4]!, "base64url"), { N, r, p }).pipe(
    Effect.map((key) => key.length === expected.length && timingSafeEqual(key, expected)),
    Effect.orElseSucceed(() => false)
  )
}

export const SignerNode = Layer.succeed(
  Signer,
  Signer.of({
    hashApiKey: (key) => Effect.sync(() => sha256Hex(key)),
    digest: (text) => Effect.sync(() => sha256Hex(text)),
    randomToken: (bytes) => Effect.sync(() => randomBytes(bytes).toString("base64url")),
    webhookSecret: Effect.sync(newSecret),
    hashPassword,
    verifyPassword,
    signWebhook: (props) => Effect.sync(() => sign(props)),
    sameSecret: (presented, expected) => Effect.sync(() => sameSecret(presented, expected)),
    verifyWebhook: ({ body, headers, now, secret }) =>
      Effect.flatMap(
        // The Effect Clock, not Date.now: a TestClock moves the tolerance window too.
        now === undefined ? Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000)) : Effect.succeed(now),
        (seconds) =>
          Effect.try({
            try: () => verify({ secret, headers, body, now: seconds }),
            catch: (error) => new WebhookSignatureInvalid({ message: error instanceof Error ? error.message : String(error) })
          })
      )
  })
)

/** The Signer port over node:crypto. */
import { Clock, Effect, Layer, Redacted } from "effect"
import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Signer, WebhookSignatureInvalid } from "../../src/ports/Signer.js"
import { newSecret, sign, verify } from "./StandardWebhooks.js"

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

/** Constant time whatever the inputs' lengths: their digests (always 32 bytes) are what is compared. */
export const sameSecret = (presented: string, expected: string): boolean =>
  timingSafeEqual(sha256(presented), sha256(expected))

/** scrypt's cost parameters. */
export interface Kdf {
  readonly N: number
  readonly r: number
  readonly p: number
}

/**
 * scrypt (memory-hard) with N = 2^17, r = 8, p = 1, as OWASP's password storage cheat sheet gives: 128 MiB and some
 * hundreds of milliseconds per hash. Stored as `scrypt$N$r$p$<salt>$<key>` (base64url), so hashes made with older
 * parameters still verify, and are made again on the next sign-in (`passwordHashOutdated`).
 */
export const owaspKdf: Kdf = { N: 131_072, r: 8, p: 1 }

const keyLength = 32

/** What scrypt needs (128·r·(N + p + 2) bytes), plus room: Node refuses to run past `maxmem` (32 MiB by default). */
const maxmemFor = ({ N, p, r }: Kdf) => 128 * r * (N + p + 2) + 1024 * 1024

/** At most two hashes at once per process: each holds 128 MiB while it runs. */
const hashing = Effect.unsafeMakeSemaphore(2)

const derive = (password: string, salt: Buffer, params: Kdf) =>
  hashing.withPermits(1)(Effect.async<Buffer, Error>((resume) => {
    scrypt(password.normalize("NFC"), salt, keyLength, { ...params, maxmem: maxmemFor(params) }, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.fail(error)))
  }))

const parsed = (hash: string) => {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(hash)
  if (m === null) return undefined
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (N > 1_048_576 || r > 32 || p > 16) return undefined
  return { params: { N, r, p }, salt: Buffer.from(m[4]!, "base64url"), key: Buffer.from(m[5]!, "base64url") }
}

/** Password hashing with `kdf` for new hashes; a stored hash verifies with the parameters it names. */
const passwords = (kdf: Kdf) => ({
  hashPassword: (password: Redacted.Redacted<string>) =>
    Effect.gen(function*() {
      const salt = randomBytes(16)
      const key = yield* Effect.orDie(derive(Redacted.value(password), salt, kdf))
      return `scrypt$${kdf.N}$${kdf.r}$${kdf.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
    }),
  verifyPassword: (password: Redacted.Redacted<string>, hash: string) => {
    const stored = parsed(hash)
    if (stored === undefined) return Effect.succeed(false)
    return derive(Redacted.value(password), stored.salt, stored.params).pipe(
      Effect.map((key) => key.length === stored.key.length && timingSafeEqual(key, stored.key)),
      Effect.orElseSucceed(() => false)
    )
  },
  /** Whether a stored hash was made with other parameters than `kdf`. */
  passwordHashOutdated: (hash: string): boolean => {
    const stored = parsed(hash)
    return stored === undefined || stored.params.N !== kdf.N || stored.params.r !== kdf.r || stored.params.p !== kdf.p
  }
})

const base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/** RFC 4648 base32, unpadded. */
export const base32 = (bytes: Uint8Array): string => {
  let bits = 0
  let value = 0
  let out = ""
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += base32Alphabet[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  return bits > 0 ? out + base32Alphabet[(value << (5 - bits)) & 31] : out
}

export const fromBase32 = (text: string): Buffer => {
  let bits = 0
  let value = 0
  const out: Array<number> = []
  for (const char of text.toUpperCase().replace(/=+$/, "")) {
    const index = base32Alphabet.indexOf(char)
    if (index < 0) throw new Error("not base32")
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

/** HOTP (RFC 4226) of `key` at `counter`: HMAC-SHA-1, dynamic truncation, `digits` decimal digits. */
export const hotp = (key: Uint8Array, counter: number, digits = 6): string => {
  const message = Buffer.alloc(8)
  message.writeBigUInt64BE(BigInt(counter))
  const mac = createHmac("sha1", key).update(message).digest()
  const offset = mac[mac.length - 1]! & 15
  const binary = mac.readUInt32BE(offset) & 0x7fffffff
  return String(binary % 10 ** digits).padStart(digits, "0")
}

/**
 * The Signer over node:crypto, hashing passwords with `kdf`. The product runs `SignerNode` (OWASP's parameters); a
 * cheaper `kdf` is for tests whose subject is not the hash's cost, which would otherwise spend most of their time in
 * scrypt.
 */
export const makeSignerNode = (kdf: Kdf) => Signer.of({
  hashApiKey: (key) => Effect.sync(() => sha256Hex(Redacted.value(key))),
  digest: (text) => Effect.sync(() => sha256Hex(text)),
  randomToken: (bytes) => Effect.sync(() => randomBytes(bytes).toString("base64url")),
  webhookSecret: Effect.sync(() => Redacted.make(newSecret())),
  totpSecret: Effect.sync(() => Redacted.make(base32(randomBytes(20)))),
  totpCode: (secret, step) => Effect.sync(() => hotp(fromBase32(Redacted.value(secret)), step)),
  keyedDigest: (key, text) => Effect.sync(() => createHmac("sha256", Redacted.value(key)).update(text, "utf8").digest("hex")),
  recoveryCode: Effect.sync(() => base32(randomBytes(7)).slice(0, 10).toLowerCase()),
  ...passwords(kdf),
  signWebhook: (props) => Effect.sync(() => sign({ ...props, secret: Redacted.value(props.secret) })),
  sameSecret: (presented, expected) => Effect.sync(() => sameSecret(presented, expected)),
  verifyWebhook: ({ body, headers, now, secret }) =>
    Effect.flatMap(
      // The Effect Clock, not Date.now: a TestClock moves the tolerance window too.
      now === undefined ? Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000)) : Effect.succeed(now),
      (seconds) =>
        Effect.try({
          try: () => verify({ secret: Redacted.value(secret), headers, body, now: seconds }),
          catch: (error) => new WebhookSignatureInvalid({ message: error instanceof Error ? error.message : String(error) })
        })
    )
})

export const SignerNode = Layer.succeed(Signer, makeSignerNode(owaspKdf))

/**
 * The Signer port: the cryptography the engine needs but must not implement itself (it imports only `effect`).
 * API-key hashing, secret generation and Standard Webhooks signatures: signing (deliveries) and verifying (receivers).
 * What is only ever a secret (an API key, a password, a webhook signing secret) comes and goes `Redacted`: the adapter
 * reads it to hash or sign it, and nowhere else is it plain text.
 */
import type { Effect, Redacted } from "effect"
import { Context, Data } from "effect"

/** A delivery that did not verify (missing headers, stale timestamp, no matching signature, not JSON): untrusted. */
export class WebhookSignatureInvalid extends Data.TaggedError("WebhookSignatureInvalid")<{ readonly message: string }> {}

export interface SignerShape {
  /** SHA-256 of an API key, lowercase hex: the only form in which keys are stored. */
  readonly hashApiKey: (key: Redacted.Redacted<string>) => Effect.Effect<string>
  /** `bytes` cryptographically random bytes, base64url without padding. */
  readonly randomToken: (bytes: number) => Effect.Effect<string>
  /** SHA-256 of any text, lowercase hex (request fingerprints; a link's or a cookie's secret, to find it by). */
  readonly digest: (text: string) => Effect.Effect<string>
  /**
   * Whether a presented secret (a form token, a key) equals the expected one, in time that depends on neither:
   * both are digested to equal length and compared in constant time.
   */
  readonly sameSecret: (presented: string, expected: string) => Effect.Effect<boolean>
  /**
   * A password's hash for storage, by a memory-hard KDF with a random salt; the parameters are part of the text, so
   * they can be raised later without breaking stored hashes.
   */
  readonly hashPassword: (password: Redacted.Redacted<string>) => Effect.Effect<string>
  /** Whether `password` is the one `hash` was made from (in constant time; false for a malformed hash). */
  readonly verifyPassword: (password: Redacted.Redacted<string>, hash: string) => Effect.Effect<boolean>
  /** Whether a stored password hash was made with other parameters than today's (made again at the next sign-in). */
  readonly passwordHashOutdated: (hash: string) => boolean
  /** A new webhook endpoint secret: `whsec_` + base64 of 24 random bytes. */
  readonly webhookSecret: Effect.Effect<Redacted.Redacted<string>>
  /** A new TOTP secret: 20 random bytes, base32 (RFC 4648, unpadded), as authenticator apps take it. */
  readonly totpSecret: Effect.Effect<Redacted.Redacted<string>>
  /** The TOTP code (RFC 6238: HMAC-SHA-1, 6 digits) of a base32 `secret` at `step`. */
  readonly totpCode: (secret: Redacted.Redacted<string>, step: number) => Effect.Effect<string>
  /**
   * HMAC-SHA-256 of `text` under `key`, lowercase hex: a digest nobody can recompute without the key (a short
   * secret, such as a recovery code, kept this way cannot be guessed offline from a copy of the database alone).
   */
  readonly keyedDigest: (key: Redacted.Redacted<string>, text: string) => Effect.Effect<string>
  /** A new recovery code: 10 random base32 characters (50 bits). */
  readonly recoveryCode: Effect.Effect<string>
  /** The Standard Webhooks `webhook-signature` (`v1,<base64 HMAC-SHA256>`) of one delivery attempt. */
  readonly signWebhook: (props: {
    readonly secret: Redacted.Redacted<string>
    readonly id: string
    readonly timestamp: number
    readonly body: string
  }) => Effect.Effect<string>
  /**
   * Verifies a received delivery as a receiver must before trusting it, and returns its parsed body: one of the
   * space-separated `webhook-signature`s is the `v1` signature of it (compared in constant time), and
   * `webhook-timestamp` is within five minutes of `now` (unix seconds; the Clock's time when omitted).
   */
  readonly verifyWebhook: (props: {
    readonly secret: Redacted.Redacted<string>
    /** Header names in any case. */
    readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
    readonly body: string
    readonly now?: number | undefined
  }) => Effect.Effect<unknown, WebhookSignatureInvalid>
}

export class Signer extends Context.Tag("fils/Signer")<Signer, SignerShape>() {}

/**
 * The Signer port: the cryptography the engine needs but must not implement itself (it imports only `effect`).
 * API-key hashing and secret generation now; Standard Webhooks signatures join later.
 */
import type { Effect } from "effect"
import { Context } from "effect"

export interface SignerShape {
  /** SHA-256 of an API key, lowercase hex: the only form in which keys are stored. */
  readonly hashApiKey: (key: string) => Effect.Effect<string>
  /** `bytes` cryptographically random bytes, base64url without padding. */
  readonly randomToken: (bytes: number) => Effect.Effect<string>
  /** SHA-256 of any text, lowercase hex (request fingerprints). */
  readonly digest: (text: string) => Effect.Effect<string>
}

export class Signer extends Context.Tag("fils/Signer")<Signer, SignerShape>() {}

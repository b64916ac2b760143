/**
 * The secrets the engine makes to find a browser or a link by (a sign-in link, a dashboard session's cookie, a portal
 * link and its browser's cookie): `Redacted` from the moment they are made or read, and kept only as their digests.
 */
import { Effect, Redacted } from "effect"
import type { SignerShape } from "../ports/Signer.js"

/** A new secret of `bytes` random bytes. */
export const newSecret = (signer: SignerShape, bytes: number): Effect.Effect<Redacted.Redacted<string>> =>
  Effect.map(signer.randomToken(bytes), Redacted.make)

/** What a secret is stored and looked up by: its digest, which is no secret. */
export const digestOf = (signer: SignerShape, secret: Redacted.Redacted<string>): Effect.Effect<string> =>
  signer.digest(Redacted.value(secret))

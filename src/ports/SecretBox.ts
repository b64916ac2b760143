/**
 * The SecretBox port: how the store keeps secrets it must read back (webhook signing secrets) at rest. A sealed value
 * starts with `enc:` and names the key it was sealed under; anything else is plaintext, always readable, so a store
 * can hold both while it moves from one to the other (`fils secrets rotate`).
 *
 * The default box holds no key: it writes plaintext and cannot open sealed values (adapters/crypto/SecretBox.ts
 * seals with AES-256-GCM when `FILS_SECRET_KEY` is set).
 */
import { Context, Data, Effect, Either, Option } from "effect"

/** A stored secret this box cannot open (wrong or missing key, tampered value). `code` for the CLI's error output. */
export class SecretBoxError extends Data.TaggedError("SecretBoxError")<{ readonly message: string }> {
  readonly code = "SECRET_KEY_ERROR"
}

export interface SecretBoxShape {
  /** The id of the key new values are sealed under; none when values are written in plaintext. */
  readonly keyId: Option.Option<string>
  /** Every key id this box can open, the current one first. */
  readonly keyIds: ReadonlyArray<string>
  /** Seals `plaintext` under the current key (unchanged without one). `context` (the owner's id) is bound to it. */
  readonly seal: (plaintext: string, context: string) => Effect.Effect<string>
  /** The plaintext of a stored value, sealed or not, given the same `context` it was sealed with. */
  readonly open: (stored: string, context: string) => Either.Either<string, SecretBoxError>
  /** Whether `stored` is already as `seal` writes now: sealed under the current key, or plaintext without one. */
  readonly isCurrent: (stored: string) => boolean
}

export const sealedPrefix = "enc:"

/** The key id a sealed value (`enc:<version>:<keyid>:…`) names; none for plaintext. */
export const sealedKeyId = (stored: string): Option.Option<string> => {
  if (!stored.startsWith(sealedPrefix)) return Option.none()
  const keyId = stored.split(":")[2]
  return keyId === undefined || keyId === "" ? Option.some("?") : Option.some(keyId)
}

/** The box without keys: plaintext in, plaintext out. */
export const plaintextBox: SecretBoxShape = {
  keyId: Option.none(),
  keyIds: [],
  seal: (plaintext) => Effect.succeed(plaintext),
  open: (stored) =>
    Option.match(sealedKeyId(stored), {
      onNone: () => Either.right(stored),
      onSome: (keyId) =>
        Either.left(
          new SecretBoxError({ message: `a secret is sealed under key id ${keyId}, but FILS_SECRET_KEY is not set` })
        )
    }),
  isCurrent: (stored) => Option.isNone(sealedKeyId(stored))
}

/** Defaults to `plaintextBox`, so a store built without configuration keeps working as before. */
export class SecretBox extends Context.Reference<SecretBox>()("fils/SecretBox", {
  defaultValue: (): SecretBoxShape => plaintextBox
}) {}

/** The context a stored idempotent response is sealed with: its record's scope and key. */
export const idempotencyResponseContext = (scope: string, key: string): string => `idempotency:${scope}\u0000${key}`

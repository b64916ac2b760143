/**
 * The SecretBox port (src/ports/SecretBox.ts) over node:crypto: AES-256-GCM for the secrets the store must be able
 * to read back (webhook signing secrets; API keys are only ever stored hashed).
 *
 * A sealed value is `enc:v1:<keyid>:<nonce>:<ciphertext+tag>` (base64url parts): a random 96-bit nonce per value, a
 * 128-bit tag, and the prefix plus a caller-given context (the row's id) as associated data, so neither the key id
 * nor a value moved to another row goes unnoticed. The key id is a digest of the key (never the key itself), so the
 * store can tell which key a value needs without trying them.
 *
 * Keys: `FILS_SECRET_KEY` (32 bytes as 64 hex digits or base64) seals and opens; `FILS_SECRET_KEY_PREVIOUS`
 * (comma-separated) only opens, for rotation. Without `FILS_SECRET_KEY` values are written as they are (plaintext)
 * and plaintext values always stay readable, so a store can move between the two (`fils secrets rotate`).
 */
import { Config, ConfigError, Effect, Either, Layer, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"
import { SecretBox, SecretBoxError, type SecretBoxShape, sealedKeyId, sealedPrefix } from "../../src/ports/SecretBox.js"

const prefix = `${sealedPrefix}v1:`
const nonceBytes = 12
const tagBytes = 16

/** A short public name for a key: a digest, so it tells nothing about the key. */
export const keyIdFor = (key: Uint8Array): string =>
  createHash("sha256").update("fils secret key id\0").update(key).digest("base64url").slice(0, 10)

/**
 * 32 bytes from 64 hex digits or from base64 (standard or url-safe, padded or not); undefined for anything else,
 * including base64 of another length and text that only decodes by dropping characters.
 */
export const parseKey = (text: string): Uint8Array | undefined => {
  const t = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, "hex")
  if (!/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) return undefined
  const bytes = Buffer.from(t.replace(/-/g, "+").replace(/_/g, "/"), "base64")
  // 43 characters carry 258 bits: the last one must leave the two spare bits zero (the canonical form).
  return bytes.length === 32 && bytes.toString("base64url") === t.replace(/=$/, "").replace(/\+/g, "-").replace(/\//g, "_")
    ? bytes
    : undefined
}

const aad = (keyId: string, context: string) => Buffer.from(`${prefix}${keyId}\0${context}`, "utf8")

const b64url = /^[A-Za-z0-9_-]+$/

/** A box over `current` (sealing and opening) and `previous` (opening only). */
export const makeSecretBox = (current: Uint8Array | undefined, previous: ReadonlyArray<Uint8Array> = []): SecretBoxShape => {
  const keys = new Map<string, Uint8Array>()
  const currentId = current === undefined ? undefined : keyIdFor(current)
  if (current !== undefined) keys.set(currentId!, current)
  for (const key of previous) {
    const id = keyIdFor(key)
    if (!keys.has(id)) keys.set(id, key)
  }

  const seal = (plaintext: string, context: string) =>
    Effect.sync(() => {
      if (current === undefined) return plaintext
      const nonce = randomBytes(nonceBytes)
      const cipher = createCipheriv("aes-256-gcm", current, nonce, { authTagLength: tagBytes })
      cipher.setAAD(aad(currentId!, context))
      const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()])
      return `${prefix}${currentId}:${nonce.toString("base64url")}:${sealed.toString("base64url")}`
    })

  const open = (stored: string, context: string): Either.Either<string, SecretBoxError> => {
    if (Option.isNone(sealedKeyId(stored))) return Either.right(stored)
    if (!stored.startsWith(prefix)) {
      return Either.left(new SecretBoxError({ message: "a sealed secret has an unknown format version" }))
    }
    const parts = stored.slice(prefix.length).split(":")
    if (parts.length !== 3 || !parts.every((p) => b64url.test(p))) {
      return Either.left(new SecretBoxError({ message: "a sealed secret is malformed" }))
    }
    const [keyId, nonceText, sealedText] = parts as [string, string, string]
    const key = keys.get(keyId)
    if (key === undefined) {
      return Either.left(
        new SecretBoxError({
          message: `a secret is sealed under key id ${keyId}, which neither FILS_SECRET_KEY nor FILS_SECRET_KEY_PREVIOUS ${
            keys.size === 0 ? "(both unset) holds" : `holds (they are ${[...keys.keys()].join(", ")})`
          }`
        })
      )
    }
    const nonce = Buffer.from(nonceText, "base64url")
    const sealed = Buffer.from(sealedText, "base64url")
    if (nonce.length !== nonceBytes || sealed.length < tagBytes) {
      return Either.left(new SecretBoxError({ message: "a sealed secret is malformed" }))
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: tagBytes })
      decipher.setAAD(aad(keyId, context))
      decipher.setAuthTag(sealed.subarray(sealed.length - tagBytes))
      const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - tagBytes)), decipher.final()])
      return Either.right(plain.toString("utf8"))
    } catch {
      return Either.left(new SecretBoxError({ message: `a secret sealed under key id ${keyId} failed authentication` }))
    }
  }

  return {
    keyId: Option.fromNullable(currentId),
    keyIds: [...keys.keys()],
    seal,
    open,
    isCurrent: (stored) =>
      currentId === undefined
        ? Option.isNone(sealedKeyId(stored))
        : stored.startsWith(prefix) && Option.getOrUndefined(sealedKeyId(stored)) === currentId
  }
}

const keyHelp = "32 random bytes written as 64 hex digits or as base64 (e.g. `openssl rand -base64 32`)"

const keyConfig = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== "")),
    Config.mapOrFail((value) => {
      if (Option.isNone(value)) return Either.right(Option.none<ReadonlyArray<Uint8Array>>())
      const texts = Redacted.value(value.value).split(",").map((t) => t.trim()).filter((t) => t !== "")
      const keys = texts.map(parseKey)
      const bad = keys.findIndex((k) => k === undefined)
      if (bad !== -1) {
        return Either.left(ConfigError.InvalidData(
          [name],
          `${name}${texts.length > 1 ? ` (key ${bad + 1})` : ""} is not a valid key: it must be ${keyHelp}`
        ))
      }
      return Either.right(Option.some(keys as ReadonlyArray<Uint8Array>))
    })
  )

/** `FILS_SECRET_KEY` (one key) and `FILS_SECRET_KEY_PREVIOUS` (comma-separated); a malformed key is refused. */
export const secretBoxConfig: Config.Config<SecretBoxShape> = Config.all({
  current: keyConfig("FILS_SECRET_KEY"),
  previous: keyConfig("FILS_SECRET_KEY_PREVIOUS")
}).pipe(
  Config.mapOrFail(({ current, previous }) => {
    if (Option.isSome(current) && current.value.length !== 1) {
      return Either.left(ConfigError.InvalidData(["FILS_SECRET_KEY"], `FILS_SECRET_KEY holds one key (${keyHelp}); older keys go in FILS_SECRET_KEY_PREVIOUS`))
    }
    return Either.right(makeSecretBox(
      Option.getOrUndefined(Option.map(current, (keys) => keys[0]!)),
      Option.getOrElse(previous, () => [])
    ))
  })
)

export const SecretBoxLive: Layer.Layer<SecretBox, ConfigError.ConfigError> = Layer.effect(SecretBox, secretBoxConfig)

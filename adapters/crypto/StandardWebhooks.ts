/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com), for Fils's deliveries and for merchants'
 * receivers. `webhook-signature` is `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`,
 * keyed with the base64-decoded part of the `whsec_` secret. Plain functions: a receiver needs no Effect.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

const prefix = "whsec_"
/** Receivers should refuse deliveries whose timestamp is further than this from their clock. */
export const toleranceSeconds = 5 * 60

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
}

/** A new endpoint secret: `whsec_` + base64 of 24 random bytes. */
export const newSecret = (): string => prefix + randomBytes(24).toString("base64")

/**
 * Why `secret` cannot sign deliveries, or `undefined` when it can: `whsec_` and the base64 of 16 to 64 bytes (an
 * endpoint's own secret is 24), written as base64 writes it, so that every verifier decodes the same key.
 */
export const secretProblem = (secret: string): string | undefined => {
  if (!secret.startsWith(prefix)) return "must start with whsec_"
  const encoded = secret.slice(prefix.length)
  const bytes = Buffer.from(encoded, "base64")
  if (bytes.toString("base64") !== encoded) return "must be whsec_ followed by base64"
  if (bytes.length < 16 || bytes.length > 64) return "must hold 16 to 64 bytes after whsec_"
  return undefined
}

const key = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(prefix) ? secret.slice(prefix.length) : secret, "base64")

/** The `webhook-signature` value for one delivery attempt. */
export const sign = (props: {
  readonly secret: string
  readonly id: string
  readonly timestamp: number
  readonly body: string
}): string =>
  `v1,${
    createHmac("sha256", key(props.secret)).update(`${props.id}.${props.timestamp}.${props.body}`, "utf8").digest(
      "base64"
    )
  }`

const header = (
  headers: Headers | Record<string, string | ReadonlyArray<string> | undefined>,
  name: string
): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  // Plain objects may keep the sender's casing (`Webhook-Id`): header names are case-insensitive.
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : headers[key]
  if (typeof value === "string") return value
  return Array.isArray(value) && typeof value[0] === "string" ? value[0] : undefined
}

/**
 * Verifies a delivery and returns its parsed body. Accepts a `webhook-signature` with several space-separated
 * signatures (as during a secret rotation); refuses a timestamp more than five minutes off; compares in constant
 * time. Throws `WebhookVerificationError` otherwise: then the body must not be trusted.
 */
export const verify = (props: {
  readonly secret: string
  readonly headers: Headers | Record<string, string | ReadonlyArray<string> | undefined>
  readonly body: string
  /** Unix seconds; defaults to the current time. */
  readonly now?: number
}): unknown => {
  const id = header(props.headers, "webhook-id")
  const timestamp = header(props.headers, "webhook-timestamp")
  const signatures = header(props.headers, "webhook-signature")
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("Missing webhook headers")
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("Invalid webhook-timestamp")
  const now = props.now ?? Math.floor(Date.now() / 1000)
  const ts = Number(timestamp)
  if (Math.abs(now - ts) > toleranceSeconds) throw new WebhookVerificationError("Timestamp outside the tolerance")
  // Compared as the exact base64 text (base64 decoding forgives variants), in constant time.
  const expected = Buffer.from(sign({ secret: props.secret, id, timestamp: ts, body: props.body }).slice(3), "utf8")
  const ok = signatures.split(" ").some((candidate: string) => {
    const [version, value] = candidate.split(",", 2)
    if (version !== "v1" || value === undefined) return false
    const given = Buffer.from(value, "utf8")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!ok) throw new WebhookVerificationError("No matching signature")
  try {
    return JSON.parse(props.body)
  } catch {
    throw new WebhookVerificationError("The body is not JSON")
  }
}

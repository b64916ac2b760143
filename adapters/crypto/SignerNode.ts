/** The Signer port over node:crypto. */
import { Clock, Effect, Layer } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { Signer, WebhookSignatureInvalid } from "../../src/ports/Signer.js"
import { newSecret, sign, verify } from "./StandardWebhooks.js"

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

/** Constant time whatever the inputs' lengths: their digests (always 32 bytes) are what is compared. */
export const sameSecret = (presented: string, expected: string): boolean =>
  timingSafeEqual(sha256(presented), sha256(expected))

export const SignerNode = Layer.succeed(
  Signer,
  Signer.of({
    hashApiKey: (key) => Effect.sync(() => sha256Hex(key)),
    digest: (text) => Effect.sync(() => sha256Hex(text)),
    randomToken: (bytes) => Effect.sync(() => randomBytes(bytes).toString("base64url")),
    webhookSecret: Effect.sync(newSecret),
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

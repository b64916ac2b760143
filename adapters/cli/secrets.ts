/**
 * `fils secrets rotate`: reseals every stored webhook secret under the current `FILS_SECRET_KEY` (opening older ones
 * with `FILS_SECRET_KEY_PREVIOUS`), or writes them back in plaintext when `FILS_SECRET_KEY` is unset. Prints
 * `{ key_id, endpoints, resealed }`; running it again reseals nothing.
 */
import * as Command from "@effect/cli/Command"
import { Effect, Layer } from "effect"
import { SecretBoxLive } from "../crypto/SecretBox.js"
import { DatabaseLive } from "../sql/Postgres.js"
import { rotateWebhookSecrets } from "../sql/repos/webhooks.js"
import { printResult, reportFailure } from "./output.js"

const rotate = Command.make("rotate", {}, () =>
  reportFailure(
    Effect.gen(function*() {
      yield* printResult(yield* rotateWebhookSecrets)
    }).pipe(Effect.provide(Layer.merge(DatabaseLive, SecretBoxLive)))
  )).pipe(
    Command.withDescription(
      "Reseal every webhook secret under FILS_SECRET_KEY (older keys in FILS_SECRET_KEY_PREVIOUS); plaintext without one"
    )
  )

export const secretsCommand = Command.make("secrets").pipe(
  Command.withSubcommands([rotate]),
  Command.withDescription("Manage the encryption of secrets at rest")
)

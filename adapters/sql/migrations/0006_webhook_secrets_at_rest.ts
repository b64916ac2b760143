/**
 * Webhook secrets at rest (adapters/crypto/SecretBox.ts): the `secret` column also holds sealed values,
 * `enc:v1:<keyid>:<nonce>:<ciphertext+tag>`, beside plaintext `whsec_…` (a store moves between them with
 * `fils secrets rotate`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE webhook_endpoints DROP CONSTRAINT IF EXISTS webhook_endpoints_secret_check`)
  yield* sql.unsafe(`ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_secret_check
    CHECK (secret ~ '^whsec_.' OR secret ~ '^enc:v1:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$')`)
})

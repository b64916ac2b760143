/**
 * The customer portal: sessions a merchant creates for a customer. The link's secret and the browser
 * session's cookie are stored only as SHA-256 hashes; the link itself (`url`) is sealed by the SecretBox (bound to
 * the session's id), as webhook secrets are.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE customer_portal_sessions (
    customer_portal_session_id text COLLATE "C" PRIMARY KEY CHECK (customer_portal_session_id ~ '^cps_[0-9a-f]{32}$'),
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    customer_id text COLLATE "C" NOT NULL REFERENCES customers (customer_id),
    url text NOT NULL,
    return_url text,
    token_hash text NOT NULL UNIQUE,
    created_at timestamptz(3) NOT NULL,
    expires_at timestamptz(3) NOT NULL,
    opened_at timestamptz(3),
    cookie_hash text UNIQUE,
    csrf_token text,
    session_expires_at timestamptz(3),
    CHECK ((opened_at IS NULL) = (cookie_hash IS NULL) AND (opened_at IS NULL) = (session_expires_at IS NULL))
  )`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})

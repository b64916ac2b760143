/**
 * The merchant dashboard: its users with their roles, one-time sign-in links, browser sessions and the
 * audit log of changes made through it. Secrets are stored only as SHA-256 hashes (links, session cookies) or a
 * KDF's output (passwords).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE dashboard_users (
    user_id text COLLATE "C" PRIMARY KEY CHECK (user_id ~ '^usr_[0-9a-f]{32}$'),
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    email text NOT NULL,
    role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
    password_hash text,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE UNIQUE INDEX dashboard_users_email ON dashboard_users (lower(email))`,
  `CREATE INDEX dashboard_users_by_account ON dashboard_users (account_id, created_at)`,
  `CREATE TABLE dashboard_sign_in_links (
    token_hash text PRIMARY KEY,
    user_id text COLLATE "C" NOT NULL REFERENCES dashboard_users (user_id) ON DELETE CASCADE,
    expires_at timestamptz(3) NOT NULL,
    used_at timestamptz(3)
  )`,
  `CREATE TABLE dashboard_sessions (
    token_hash text PRIMARY KEY,
    user_id text COLLATE "C" NOT NULL REFERENCES dashboard_users (user_id) ON DELETE CASCADE,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    csrf_token text NOT NULL,
    created_at timestamptz(3) NOT NULL,
    last_seen_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX dashboard_sessions_by_user ON dashboard_sessions (user_id)`,
  `CREATE TABLE dashboard_audit (
    audit_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    user_id text COLLATE "C" NOT NULL,
    email text NOT NULL,
    action text NOT NULL,
    object_id text,
    livemode boolean,
    address text NOT NULL,
    at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX dashboard_audit_by_account ON dashboard_audit (account_id, at DESC, audit_id DESC)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})

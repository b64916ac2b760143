/**
 * The e-invoice outbox (docs/einvoicing.md): one transmission per business-to-business tax document, queued in the
 * transaction that issues the document and claimed by the workers with `FOR UPDATE SKIP LOCKED` and a lease, as
 * webhook deliveries are (repos/einvoices.ts). Keyed by the document's id (an invoice's or a credit note's), which
 * is also the provider's idempotency key. `errors` holds the provider's last rejection, `parties` the party details
 * a resend writes instead of the document's own (docs/einvoicing.md).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE einvoice_transmissions (
    document_id text COLLATE "C" PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('invoice', 'credit_note')),
    account_id text COLLATE "C" NOT NULL,
    livemode boolean NOT NULL,
    number text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected')),
    -- Attempts started (claimed), whether or not their outcome was recorded.
    attempts integer NOT NULL CHECK (attempts >= 0),
    next_attempt_at timestamptz(3),
    lease_until timestamptz(3),
    reference text,
    errors jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(errors) = 'array'),
    last_error text,
    parties jsonb,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL,
    CONSTRAINT einvoice_transmissions_schedule CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
    CONSTRAINT einvoice_transmissions_lease CHECK (lease_until IS NULL OR status = 'pending'),
    CONSTRAINT einvoice_transmissions_reference CHECK ((status = 'accepted') = (reference IS NOT NULL))
  )`,
  // Claims: pending rows by due time, oldest first (the only rows a claim looks at).
  `CREATE INDEX einvoice_transmissions_due ON einvoice_transmissions (next_attempt_at, document_id) WHERE status = 'pending'`,
  // The lists, newest first: all of them (the operator) or one scope's.
  `CREATE INDEX einvoice_transmissions_list ON einvoice_transmissions (created_at DESC, document_id DESC)`,
  `CREATE INDEX einvoice_transmissions_by_account ON einvoice_transmissions
     (account_id, livemode, created_at DESC, document_id DESC)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})

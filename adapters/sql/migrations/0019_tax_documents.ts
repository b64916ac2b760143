/**
 * UAE tax documents (docs/tax-documents.md): the merchant's tax profile, products' VAT categories, business
 * customers, the VAT priced into sessions, payments and subscriptions, and the documents themselves with the
 * gap-free counters that number them. A document is written once: the table refuses updates and deletes.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

// The event types as of this migration: the earlier ones and the documents' (migrations 0003, 0005).
const eventTypes = `ARRAY['payment.succeeded', 'payment.failed', 'refund.succeeded', 'subscription.active',
  'subscription.renewed', 'subscription.on_hold', 'subscription.cancelled', 'invoice.issued',
  'credit_note.issued']::text[]`

const statements = [
  `ALTER TABLE events DROP CONSTRAINT events_type_check,
     ADD CONSTRAINT events_type_check CHECK (type = ANY (${eventTypes}))`,
  `ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_event_types_check,
     ADD CONSTRAINT webhook_endpoints_event_types_check CHECK (
       array_ndims(event_types) = 1 AND cardinality(event_types) >= 1 AND event_types <@ ${eventTypes}
     )`,
  `ALTER TABLE accounts ADD COLUMN tax_profile jsonb`,
  `ALTER TABLE products
     ADD COLUMN tax_category text NOT NULL DEFAULT 'S' CHECK (tax_category IN ('S', 'Z', 'E', 'O')),
     ADD COLUMN tax_exemption_code text,
     ADD COLUMN item_type text NOT NULL DEFAULT 'S' CHECK (item_type IN ('G', 'S')),
     ADD COLUMN item_code text,
     ADD CONSTRAINT products_exemption CHECK ((tax_category = 'E') = (tax_exemption_code IS NOT NULL))`,
  `ALTER TABLE customers ADD COLUMN business jsonb`,
  `ALTER TABLE checkout_sessions ADD COLUMN tax bigint CHECK (tax >= 0), ADD COLUMN tax_lines jsonb,
     ADD CONSTRAINT checkout_sessions_tax CHECK ((tax IS NULL) = (tax_lines IS NULL))`,
  `ALTER TABLE payments ADD COLUMN tax bigint CHECK (tax >= 0), ADD COLUMN tax_lines jsonb,
     ADD CONSTRAINT payments_tax CHECK ((tax IS NULL) = (tax_lines IS NULL))`,
  `ALTER TABLE subscriptions ADD COLUMN tax_lines jsonb`,
  // The last number used in each series of each scope; taken with the document's insert, in its transaction.
  `CREATE TABLE document_numbers (
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    series text NOT NULL CHECK (series IN ('INV', 'CN')),
    last integer NOT NULL CHECK (last > 0),
    PRIMARY KEY (account_id, livemode, series)
  )`,
  `CREATE TABLE tax_documents (
    document_id text COLLATE "C" PRIMARY KEY CHECK (document_id ~ '^(inv|cn)_[0-9a-f]{32}$'),
    kind text NOT NULL CHECK (kind IN ('invoice', 'credit_note')),
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    number text NOT NULL,
    payment_id text COLLATE "C" NOT NULL REFERENCES payments (payment_id),
    subscription_id text COLLATE "C",
    customer_id text COLLATE "C",
    refund_id text COLLATE "C" REFERENCES refunds (refund_id),
    invoice_id text COLLATE "C" REFERENCES tax_documents (document_id),
    issued_at timestamptz(3) NOT NULL,
    document jsonb NOT NULL,
    UNIQUE (account_id, livemode, kind, number),
    CHECK ((kind = 'credit_note') = (refund_id IS NOT NULL)),
    CHECK ((kind = 'credit_note') = (invoice_id IS NOT NULL))
  )`,
  `CREATE UNIQUE INDEX invoice_of_payment ON tax_documents (payment_id) WHERE kind = 'invoice'`,
  `CREATE UNIQUE INDEX credit_note_of_refund ON tax_documents (refund_id) WHERE kind = 'credit_note'`,
  `CREATE INDEX credit_notes_of_invoice ON tax_documents (invoice_id, issued_at, document_id) WHERE kind = 'credit_note'`,
  `CREATE INDEX tax_documents_newest ON tax_documents (account_id, livemode, kind, issued_at DESC, document_id DESC)`,
  `CREATE FUNCTION tax_documents_never_change() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'an issued tax document never changes (%)', OLD.document_id USING ERRCODE = 'restrict_violation';
   END $$`,
  `CREATE TRIGGER tax_documents_never_change BEFORE UPDATE OR DELETE ON tax_documents
     FOR EACH ROW EXECUTE FUNCTION tax_documents_never_change()`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})

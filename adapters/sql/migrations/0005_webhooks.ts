/**
 * Webhook endpoints and the delivery outbox (docs/decisions.md §7, docs/architecture.md "How data flows" 3).
 *
 * `webhook_endpoints`: an endpoint subscribes to a non-empty set of the seven event types (a CHECK, equivalent to
 * the domain's `EventTypes`); a live endpoint's url is https (as `WebhookEndpoint.checkUrl` makes it). Deleting one
 * removes its row for good.
 *
 * `webhook_deliveries` is the outbox: one row per (event, endpoint), queued in the event's transaction. It refers to
 * its event with the scope (as in 0003), but deliberately NOT to its endpoint: the deliveries of a deleted endpoint
 * stay, `cancelled`, for the record (`fils deliveries list`). The repository keeps them honest instead: deleting or
 * disabling an endpoint cancels its pending deliveries, and queueing locks the endpoints it queues for (`FOR SHARE`),
 * so a delete or disable running at the same time either waits for the new deliveries (and cancels them) or wins and
 * they are queued `cancelled`. A row is `pending` exactly when it has a `next_attempt_at`; `lease_until` is set while
 * a server runs an attempt (repos/deliveries.ts), and only on pending rows.
 *
 * `webhook_attempts` holds one row per attempt: the primary key (delivery, attempt) is the store's guarantee that an
 * attempt is recorded once, whatever number of servers report it.
 *
 * A trigger sends `NOTIFY fils_deliveries` (payload `due`) whenever a row becomes claimable (queued, rescheduled or
 * retried: pending with no lease). NOTIFY is transactional, so dispatchers wake when the rows are committed, and not
 * at all when the transaction rolls back. Claims set a lease and do not notify.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const eventTypes = `ARRAY['payment.succeeded', 'payment.failed', 'refund.succeeded', 'subscription.active',
  'subscription.renewed', 'subscription.on_hold', 'subscription.cancelled']::text[]`

const statements = [
  // Target of the deliveries' scoped reference to their event.
  `ALTER TABLE events ADD CONSTRAINT events_scope UNIQUE (event_id, account_id, livemode)`,

  `CREATE TABLE webhook_endpoints (
    webhook_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    url text NOT NULL CHECK (url ~ '^https?://'),
    description text NOT NULL DEFAULT '',
    event_types text[] NOT NULL CHECK (
      array_ndims(event_types) = 1 AND cardinality(event_types) >= 1 AND event_types <@ ${eventTypes}
    ),
    disabled boolean NOT NULL DEFAULT false,
    secret text NOT NULL CHECK (secret ~ '^whsec_.'),
    created_at timestamptz(3) NOT NULL,
    CONSTRAINT webhook_endpoints_live_https CHECK (NOT livemode OR url ~ '^https://')
  )`,
  // The list, newest first (keyset); also the scope lookup of `subscribed` (an account has few endpoints).
  `CREATE INDEX webhook_endpoints_list ON webhook_endpoints (account_id, livemode, created_at DESC, webhook_id DESC)`,

  `CREATE TABLE webhook_deliveries (
    delivery_id text COLLATE "C" PRIMARY KEY,
    event_id text COLLATE "C" NOT NULL,
    -- No foreign key: see above. The repository checks the endpoint (and its scope) when it queues and claims.
    webhook_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    livemode boolean NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
    -- Attempts started (claimed), whether or not their outcome was recorded.
    attempts integer NOT NULL CHECK (attempts >= 0),
    next_attempt_at timestamptz(3),
    lease_until timestamptz(3),
    last_status_code integer,
    last_error text,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL,
    CONSTRAINT webhook_deliveries_event FOREIGN KEY (event_id, account_id, livemode)
      REFERENCES events (event_id, account_id, livemode),
    -- One delivery per (event, endpoint).
    CONSTRAINT webhook_deliveries_one_per_endpoint UNIQUE (event_id, webhook_id),
    CONSTRAINT webhook_deliveries_schedule CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
    CONSTRAINT webhook_deliveries_lease CHECK (lease_until IS NULL OR status = 'pending')
  )`,
  // Claims: pending rows by due time, oldest first (the only rows the claim looks at).
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, delivery_id) WHERE status = 'pending'`,
  // The operators' list (newest first), all of it or one endpoint's; one event's is the unique index above.
  `CREATE INDEX webhook_deliveries_list ON webhook_deliveries (created_at DESC, delivery_id DESC)`,
  `CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC, delivery_id DESC)`,

  `CREATE TABLE webhook_attempts (
    delivery_id text COLLATE "C" NOT NULL REFERENCES webhook_deliveries (delivery_id),
    attempt integer NOT NULL CHECK (attempt >= 1),
    started_at timestamptz(3) NOT NULL,
    status_code integer,
    error text,
    duration_ms integer NOT NULL CHECK (duration_ms >= 0),
    PRIMARY KEY (delivery_id, attempt)
  )`,

  // Wakes the dispatchers (LISTEN fils_deliveries) when a delivery becomes claimable; sent at commit, once per
  // transaction (identical notifications of one transaction are folded into one).
  `CREATE FUNCTION fils_deliveries_notify() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('fils_deliveries', 'due');
    RETURN NULL;
  END
  $$`,
  `CREATE TRIGGER webhook_deliveries_notify AFTER INSERT OR UPDATE ON webhook_deliveries
    FOR EACH ROW WHEN (NEW.status = 'pending' AND NEW.lease_until IS NULL)
    EXECUTE FUNCTION fils_deliveries_notify()`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})

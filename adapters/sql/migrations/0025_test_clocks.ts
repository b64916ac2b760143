/**
 * Test clocks (docs/api.md, "Test clocks"): the clocks, the customer a clock is given at creation, and the clock of
 * each checkout session, payment and subscription, copied from its customer when the row is written (a customer's
 * clock never changes), so that a billing claim tells real-time work from a clock's by its own row: real-time passes
 * take only rows without a clock, a clock's advance only its own (partial indexes for those).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE test_clocks (
    test_clock_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL CHECK (NOT livemode),
    name text CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 200),
    frozen_time timestamptz(3) NOT NULL,
    status text NOT NULL CHECK (status IN ('ready', 'advancing')),
    advancing_to timestamptz(3),
    lease_until timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    UNIQUE (test_clock_id, account_id, livemode),
    CONSTRAINT test_clocks_advance CHECK (
      (status = 'advancing') = (advancing_to IS NOT NULL) AND (advancing_to IS NULL OR advancing_to > frozen_time)
    )
  )`,
  `CREATE INDEX test_clocks_list ON test_clocks (account_id, livemode, created_at DESC, test_clock_id DESC)`,
  `ALTER TABLE customers ADD COLUMN test_clock_id text COLLATE "C",
     ADD CONSTRAINT customers_test_clock FOREIGN KEY (test_clock_id, account_id, livemode)
       REFERENCES test_clocks (test_clock_id, account_id, livemode)`,
  `CREATE INDEX customers_by_test_clock ON customers (test_clock_id) WHERE test_clock_id IS NOT NULL`,
  `ALTER TABLE checkout_sessions ADD COLUMN test_clock_id text COLLATE "C"`,
  `ALTER TABLE payments ADD COLUMN test_clock_id text COLLATE "C"`,
  `ALTER TABLE subscriptions ADD COLUMN test_clock_id text COLLATE "C"`,
  // The clock of a row's customer, whenever the row is written with a customer (a session gets one when paid).
  `CREATE FUNCTION test_clock_of_customer() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     NEW.test_clock_id := CASE WHEN NEW.livemode OR NEW.customer_id IS NULL THEN NULL
       ELSE (SELECT c.test_clock_id FROM customers AS c WHERE c.customer_id = NEW.customer_id) END;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER checkout_sessions_test_clock BEFORE INSERT OR UPDATE OF customer_id ON checkout_sessions
     FOR EACH ROW EXECUTE FUNCTION test_clock_of_customer()`,
  `CREATE TRIGGER payments_test_clock BEFORE INSERT OR UPDATE OF customer_id ON payments
     FOR EACH ROW EXECUTE FUNCTION test_clock_of_customer()`,
  `CREATE TRIGGER subscriptions_test_clock BEFORE INSERT OR UPDATE OF customer_id ON subscriptions
     FOR EACH ROW EXECUTE FUNCTION test_clock_of_customer()`,
  // A clock's work: what its advance looks for.
  `CREATE INDEX subscriptions_clock_due ON subscriptions (test_clock_id, due_at, subscription_id)
     WHERE test_clock_id IS NOT NULL AND due_at IS NOT NULL`,
  `CREATE INDEX subscriptions_by_test_clock ON subscriptions (test_clock_id) WHERE test_clock_id IS NOT NULL`,
  `CREATE INDEX checkout_sessions_clock_open ON checkout_sessions (test_clock_id, expires_at, session_id)
     WHERE test_clock_id IS NOT NULL AND status = 'open'`,
  `CREATE INDEX checkout_sessions_by_test_clock ON checkout_sessions (test_clock_id) WHERE test_clock_id IS NOT NULL`,
  `CREATE INDEX payments_by_test_clock ON payments (test_clock_id) WHERE test_clock_id IS NOT NULL`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})

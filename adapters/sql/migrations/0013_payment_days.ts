/**
 * Daily payment totals (the dashboard's home at 1M payments): per account, mode, UTC day of creation and
 * one of 16 shards (by payment id, so that payments recorded at once update different rows), the gross of succeeded
 * payments, their fees and refunds, and the counts of succeeded and failed ones. Kept by statement-level triggers
 * in the transaction that changes the payments (inserted, updated, deleted: the change's difference is added), so
 * the figures are never behind; rows are upserted in key order, so that two transactions cannot deadlock on them.
 * Backfilled from the payments already stored. `fils check` (`day_totals`) proves they still add up.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const paid = `status IN ('succeeded', 'partially_refunded', 'refunded')`

/** The columns of one payment's share of its day, signed. */
const share = (rows: string, sign: "" | "-") => `
  SELECT account_id, livemode, (created_at AT TIME ZONE 'UTC')::date AS day, (hashtext(payment_id) & 15)::smallint AS shard,
    ${sign}(CASE WHEN ${paid} THEN total_amount ELSE 0 END) AS gross,
    ${sign}(CASE WHEN ${paid} THEN fee_amount ELSE 0 END) AS fees,
    ${sign}(CASE WHEN ${paid} THEN refunded_amount ELSE 0 END) AS refunded,
    ${sign}(CASE WHEN ${paid} THEN 1 ELSE 0 END) AS succeeded,
    ${sign}(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failed
  FROM ${rows}`

const upsert = (source: string) => `
  INSERT INTO payment_days AS d (account_id, livemode, day, shard, gross, fees, refunded, succeeded, failed)
  SELECT account_id, livemode, day, shard, sum(gross), sum(fees), sum(refunded), sum(succeeded), sum(failed)
  FROM (${source}) x
  GROUP BY account_id, livemode, day, shard
  HAVING sum(gross) <> 0 OR sum(fees) <> 0 OR sum(refunded) <> 0 OR sum(succeeded) <> 0 OR sum(failed) <> 0
  ORDER BY account_id, livemode, day, shard
  ON CONFLICT (account_id, livemode, day, shard) DO UPDATE SET
    gross = d.gross + EXCLUDED.gross, fees = d.fees + EXCLUDED.fees, refunded = d.refunded + EXCLUDED.refunded,
    succeeded = d.succeeded + EXCLUDED.succeeded, failed = d.failed + EXCLUDED.failed`

const statements = [
  `CREATE TABLE payment_days (
    account_id text COLLATE "C" NOT NULL,
    livemode boolean NOT NULL,
    day date NOT NULL,
    shard smallint NOT NULL,
    gross bigint NOT NULL,
    fees bigint NOT NULL,
    refunded bigint NOT NULL,
    succeeded bigint NOT NULL,
    failed bigint NOT NULL,
    PRIMARY KEY (account_id, livemode, day, shard)
  )`,
  `CREATE FUNCTION fils_payment_days() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      ${upsert(share("new_rows", ""))};
    ELSIF TG_OP = 'UPDATE' THEN
      ${upsert(`${share("new_rows", "")} UNION ALL ${share("old_rows", "-")}`)};
    ELSE
      ${upsert(share("old_rows", "-"))};
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER payment_days_insert AFTER INSERT ON payments REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION fils_payment_days()`,
  `CREATE TRIGGER payment_days_update AFTER UPDATE ON payments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION fils_payment_days()`,
  `CREATE TRIGGER payment_days_delete AFTER DELETE ON payments REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION fils_payment_days()`,
  upsert(share("payments", ""))
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})

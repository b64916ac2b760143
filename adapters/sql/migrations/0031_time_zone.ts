/**
 * Every account has a time zone (`Asia/Dubai` unless chosen: `TimeZone.ts`), and its daily payment totals
 * (`payment_days`, migration 0013) count the days of that zone, so that the dashboard's home reads local days from
 * the few rows it always read.
 *
 * - The triggers bucket a payment by `created_at AT TIME ZONE` its account's zone.
 * - A zone change (`fils_set_time_zone`) counts the account's days again, in the transaction that changes it. A
 *   transaction writing an account's payments holds that account's advisory lock shared (taken by the trigger,
 *   until it ends), the zone change holds it exclusively: a payment is never counted in the zone a concurrent
 *   change replaced. The lock is per account: one account's change never waits on another's payments.
 * - A zone PostgreSQL does not know (its time zone data older than the server's) is refused by the change (false),
 *   so that no payment's write can fail on it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const paid = `r.status IN ('succeeded', 'partially_refunded', 'refunded')`
const lockClass = `hashtext('fils.payment_days')`

/** The columns of one payment's share of its account's local day, signed. */
const share = (rows: string, sign: "" | "-", where = "") => `
  SELECT r.account_id, r.livemode, (r.created_at AT TIME ZONE a.time_zone)::date AS day,
    (hashtext(r.payment_id) & 15)::smallint AS shard,
    ${sign}(CASE WHEN ${paid} THEN r.total_amount ELSE 0 END) AS gross,
    ${sign}(CASE WHEN ${paid} THEN r.fee_amount ELSE 0 END) AS fees,
    ${sign}(CASE WHEN ${paid} THEN r.refunded_amount ELSE 0 END) AS refunded,
    ${sign}(CASE WHEN ${paid} THEN 1 ELSE 0 END) AS succeeded,
    ${sign}(CASE WHEN r.status = 'failed' THEN 1 ELSE 0 END) AS failed
  FROM ${rows} r JOIN accounts a ON a.account_id = r.account_id ${where}`

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

/** The accounts of `rows`, their locks shared: each upsert that follows reads their zones after any change ends. */
const lockShared = (rows: string) =>
  `PERFORM pg_advisory_xact_lock_shared(${lockClass}, hashtext(account_id)) FROM (SELECT DISTINCT account_id FROM ${rows}) x`

const statements = [
  `ALTER TABLE accounts ADD COLUMN time_zone text NOT NULL DEFAULT 'Asia/Dubai'`,
  `CREATE OR REPLACE FUNCTION fils_payment_days() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      ${lockShared("new_rows")};
      ${upsert(share("new_rows", ""))};
    ELSIF TG_OP = 'UPDATE' THEN
      ${lockShared("new_rows")};
      ${upsert(`${share("new_rows", "")} UNION ALL ${share("old_rows", "-")}`)};
    ELSE
      ${lockShared("old_rows")};
      ${upsert(share("old_rows", "-"))};
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE FUNCTION fils_set_time_zone(account text, zone text) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = zone) THEN
      RETURN false;
    END IF;
    PERFORM pg_advisory_xact_lock(${lockClass}, hashtext(account));
    UPDATE accounts SET time_zone = zone WHERE account_id = account;
    DELETE FROM payment_days WHERE account_id = account;
    ${upsert(share("payments", "", "WHERE r.account_id = account"))};
    RETURN true;
  END $$`,
  // Every day counted again, in Asia/Dubai now.
  `TRUNCATE payment_days`,
  upsert(share("payments", ""))
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})

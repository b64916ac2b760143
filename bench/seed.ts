/**
 * Seeding straight in SQL, so that the benchmark spends its time measuring: payments by `generate_series`, due
 * subscriptions, and events with their queued deliveries. Rows satisfy every constraint of the schema, so the engine
 * reads them as its own.
 */
import { randomBytes } from "node:crypto"
import pg from "pg"

export type Sql = pg.Client

export const connect = async (url: string): Promise<Sql> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return client
}

/** A distinct tag per seeding call, so ids never collide across calls. */
const tag = () => randomBytes(4).toString("hex")

/**
 * `count` succeeded test-mode payments of `account`, numbered from `from`, created over the past days (oldest
 * first), ids of the `pay_<32 hex>` shape.
 */
export const seedPayments = async (sql: Sql, account: string, from: number, count: number) => {
  await sql.query(
    `INSERT INTO payments (payment_id, account_id, livemode, status, total_amount, refunded_amount, fee_amount,
       net_amount, currency, description, billing_reason, metadata, card_brand, card_last4, card_exp_month,
       card_exp_year, card_token, charge_id, created_at, paid_at)
     SELECT 'pay_' || md5($2 || i::text), $1, false, 'succeeded', 10000, 0, 390, 9610, 'AED',
       'Bench payment ' || i, 'payment', '{"order":"bench"}', 'visa', '4242', 12, 2030, 'tok_sim_ok_bench',
       'ch_' || md5($2 || i::text), now() - make_interval(secs => 5000000 - i), now() - make_interval(secs => 5000000 - i)
     FROM generate_series($3::int, $4::int) AS i`,
    [account, tag(), from, from + count - 1]
  )
  // Steady state before measuring: hint bits set and the visibility map built now, not by the first reads or by an
  // autovacuum that the bulk insert would start in the middle of a measurement.
  await sql.query("VACUUM (ANALYZE) payments")
}

export const countPayments = async (sql: Sql) =>
  Number((await sql.query("SELECT count(*)::int AS n FROM payments")).rows[0].n)

/** `n` random payment ids of the account. */
export const samplePaymentIds = async (sql: Sql, account: string, n: number): Promise<Array<string>> =>
  (await sql.query(
    `SELECT payment_id FROM payments TABLESAMPLE SYSTEM (5) WHERE account_id = $1 LIMIT $2`,
    [account, n]
  )).rows.map((r) => r.payment_id as string)

/**
 * `count` active monthly test-mode subscriptions whose next charge is due in `dueInMinutes` (in the future, so the
 * running server's billing worker leaves them to `billing run --at`); returns their ids.
 */
export const seedDueSubscriptions = async (
  sql: Sql,
  account: string,
  productId: string,
  count: number,
  dueInMinutes: number
) => {
  const t = tag()
  const customer = `cus_${t}${"0".repeat(24)}`
  await sql.query(
    `INSERT INTO customers (customer_id, account_id, livemode, email, metadata, created_at)
     VALUES ($1, $2, false, 'renewals@bench.example', '{}', now() - interval '40 days')`,
    [customer, account]
  )
  const inserted = await sql.query(
    `INSERT INTO subscriptions (subscription_id, account_id, livemode, status, product_id, name, quantity,
       recurring_amount, currency, billing_interval, interval_count, customer_id, customer_email, card_brand,
       card_last4, card_exp_month, card_exp_year, card_token, anchor, period, current_period_start,
       next_billing_date, cancel_at_period_end, failed_payment_attempts, metadata, created_at)
     SELECT 'sub_' || md5($4 || i::text), $1, false, 'active', $2, 'Bench plan', 1, 5000, 'AED', 'month', 1, $3,
       'renewals@bench.example', 'visa', '4242', 12, 2030, 'tok_sim_ok_' || md5($4 || i::text),
       a.anchor, 0, a.anchor, a.anchor + interval '1 month', false, 0, '{}', a.anchor
     FROM generate_series(1, $5::int) AS i,
       LATERAL (SELECT date_trunc('milliseconds', now() + make_interval(mins => $6) - interval '1 month') AS anchor) a
     RETURNING subscription_id`,
    [account, productId, customer, t, count, dueInMinutes]
  )
  await sql.query("ANALYZE subscriptions")
  return inserted.rows.map((r) => r.subscription_id as string)
}

/**
 * `events` payment events of the account, each queued for every endpoint in `webhooks`, due now, in ONE statement:
 * the dispatchers are woken at its commit (the outbox trigger's NOTIFY), so the clock starts there.
 */
export const seedDeliveries = async (sql: Sql, account: string, webhooks: ReadonlyArray<string>, events: number) => {
  await sql.query(
    `WITH e AS (
       INSERT INTO events (event_id, account_id, livemode, type, data, created_at)
       SELECT 'evt_' || md5($2 || i::text), $1, false, 'payment.succeeded',
         jsonb_build_object('object', 'payment', 'payment_id', 'pay_' || md5($2 || i::text), 'status', 'succeeded',
           'total_amount', 10000, 'currency', 'AED', 'livemode', false),
         now()
       FROM generate_series(1, $3::int) AS i
       RETURNING event_id, created_at
     )
     INSERT INTO webhook_deliveries (delivery_id, event_id, webhook_id, account_id, livemode, status, attempts,
       next_attempt_at, created_at, updated_at)
     SELECT 'dlv_' || md5(e.event_id || w), e.event_id, w, $1, false, 'pending', 0, e.created_at, e.created_at,
       e.created_at
     FROM e CROSS JOIN unnest($4::text[]) AS w`,
    [account, tag(), events, webhooks]
  )
}

export const deliveryCounts = async (sql: Sql) =>
  (await sql.query(`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status`)).rows as Array<
    { status: string; n: number }
  >

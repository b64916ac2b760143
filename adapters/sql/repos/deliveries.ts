/**
 * The webhook delivery outbox on PostgreSQL (migration 0005; docs/architecture.md "How data flows" 3).
 *
 * - `enqueue` is one statement. It locks the endpoints it queues for (`FOR SHARE`) until the event's transaction
 *   ends, so deleting or disabling one of them at the same time (which cancels its pending deliveries) either waits
 *   for these rows and cancels them too, or has already won, and then the rows are queued `cancelled`: nothing is
 *   ever sent to an endpoint after it was deleted or disabled. The trigger of 0005 sends `NOTIFY fils_deliveries` at
 *   commit.
 * - `claimDue` is one statement, so one round trip and atomic: it picks the due, unleased pending deliveries whose
 *   endpoint exists and is enabled, oldest due first, no more per endpoint than `inFlightPerEndpoint` minus its
 *   leased ones (a hanging receiver never takes every slot) and no more per account than `inFlightPerAccount` minus
 *   its leased ones (nor does a merchant whose receivers all hang), `FOR UPDATE SKIP LOCKED` (concurrent claimers
 *   take different rows), adds one to `attempts` and sets the lease, and returns each with its event and endpoint.
 *   Two servers claiming at the same instant each count only committed leases, so a cap can be exceeded briefly by
 *   the rows of one racing claim; the next claims see them and hold back.
 * - `recordAttempts` (and `recordAttempt`, a batch of one) inserts each attempt (`ON CONFLICT DO NOTHING` on
 *   (delivery, attempt): once, whoever reports it) and applies the outcome only when that insert was the first and the delivery is still this attempt's: pending,
 *   at this attempt, and still leased. A claim sets the lease; recording, cancelling and a retry by hand clear it, so
 *   an attempt that finishes after its delivery was cancelled, retried or claimed again changes nothing.
 * - `awaitWork` waits for a notification on `fils_deliveries` through one LISTEN per store (see
 *   `makeDeliveryWakeups`), or for its timeout.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import {
  Data,
  DateTime,
  Deferred,
  Duration,
  Effect,
  Exit,
  Fiber,
  FiberId,
  Option,
  type Scope,
  Stream
} from "effect"
import { randomUUID } from "node:crypto"
import { afterAttempt, boundAnswer, inFlightPerAccount, inFlightPerEndpoint, requestBody } from "../../../src/domain/Delivery.js"
import type { EventType } from "../../../src/domain/Event.js"
import type { AttemptRecord, ClaimedAttempt, DeliveriesRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import {
  deliveryFromRow,
  type DeliveryRow,
  deliveryToRow,
  type EventRow,
  eventFromRow,
  fromTimestamp,
  toTimestamp,
  type WebhookEndpointRow,
  webhookFromRow
} from "../rows.js"
import { listenService, type PgListen } from "../Listen.js"
import { orUnavailable } from "../SqlErrors.js"
import { cancelPendingOf } from "./webhooks.js"

type Timestamp = Date | string

/** A claimed delivery's row: its columns, its event and its endpoint (`to_jsonb` of their rows). */
interface ClaimedRow extends DeliveryRow {
  readonly event: EventRow & { readonly test: boolean }
  readonly endpoint: WebhookEndpointRow
  readonly failing_since: Timestamp | null
}

/** A delivery of a page (`pageOf`): its columns and its event (`to_jsonb` of its row, as a claim reads it). */
interface PageRow extends DeliveryRow {
  readonly event: EventRow & { readonly test: boolean }
}

/** An attempt as the delivery log shows it. */
interface LogAttemptRow {
  readonly delivery_id: string
  readonly attempt: number
  readonly started_at: Timestamp
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly response_body: string | null
  readonly request_headers: Record<string, string> | null
  readonly request_body: string | null
}

interface AttemptRow {
  readonly attempt: number
  readonly started_at: Timestamp
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: number
}

export const makeDeliveriesRepo = (
  { first, sql }: Queries,
  awaitWork: DeliveriesRepo["awaitWork"]
): DeliveriesRepo => {
  const recordAttempts: DeliveriesRepo["recordAttempts"] = Effect.fnUntraced(
    function*(records) {
      // The first report of an attempt wins, as across statements (one statement would pick either).
      const firsts = new Map<string, AttemptRecord>()
      for (const r of records) if (!firsts.has(`${r.deliveryId}#${r.attempt}`)) firsts.set(`${r.deliveryId}#${r.attempt}`, r)
      if (firsts.size === 0) return
      const input = [...firsts.values()].map(({ attempt, deliveryId, nextAttemptAt, outcome, sent, startedAt }) => {
        const { nextAttemptAt: next, status } = afterAttempt(outcome, nextAttemptAt)
        return {
          delivery_id: deliveryId,
          attempt,
          started_at: toTimestamp(startedAt),
          status_code: outcome.statusCode,
          ok: outcome.ok,
          // jsonb and text cannot carry a NUL character; a transport's error text has no use for one.
          error: outcome.error?.replace(/\u0000/g, "") ?? null,
          duration_ms: Math.max(0, Math.round(outcome.durationMillis)),
          // The body is not kept: it is the event's, the same on every attempt (`Delivery.requestBody`).
          request_headers: sent?.headers ?? null,
          // Cut again after the NULs go (a shorter text is still within the bound).
          response_body: outcome.answer === undefined ? null : boundAnswer(outcome.answer.replace(/\u0000/g, "")),
          status,
          next_attempt_at: next === null ? null : toTimestamp(next)
        }
      })
      // The attempt is inserted once (whoever reports it first); the delivery changes only when that insert was
      // the first and the outcome still applies (`Delivery.outcomeApplies`: pending, at this attempt, leased).
      // Rows are locked in id order, as every statement that locks several deliveries takes them (`cancelPendingOf`).
      // Each endpoint's failing streak follows the attempts recorded now, as `WebhookHealth.failingSinceAfter` says:
      // `streak` is the batch's last success and its first failure after it; a success clears a streak begun at or
      // before it (unless Fils disabled the endpoint for it), a failure starts one or an earlier one stands.
      // The new value is computed in ON CONFLICT DO UPDATE from the row as it is then, never from this statement's
      // snapshot: two recordings at once for one endpoint queue on its row (the second waits for the first to
      // commit, even for a row the first is inserting) and the second reads what the first wrote. So a success
      // recorded while another dispatcher records an earlier failure clears it, as it would one after the other.
      // A healthy endpoint keeps its row with a null `since` (written once, then left: nothing moves), so there
      // is always a row to queue on. Rows are taken in endpoint id order (no two recordings wait for each other).
      // Attempts of a delivery found cancelled once locked (its endpoint deleted or disabled meanwhile) leave the
      // streak alone: a deleted endpoint's row is not made again after its delete removed it.
      yield* sql`
        WITH input AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS i (
            delivery_id text, attempt integer, started_at timestamptz, status_code integer, ok boolean, error text,
            duration_ms integer, request_headers jsonb, response_body text, status text,
            next_attempt_at timestamptz
          )
        ), locked AS (
          -- An array, so a primary-key probe per id (as a join, a scan of the whole table: see claimDue).
          SELECT d.delivery_id, d.webhook_id, d.status FROM webhook_deliveries d
          WHERE d.delivery_id = ANY (ARRAY(SELECT delivery_id FROM input))
          ORDER BY d.delivery_id FOR UPDATE
        ), recorded AS (
          INSERT INTO webhook_attempts (delivery_id, attempt, webhook_id, started_at, status_code, ok, error, duration_ms,
            request_headers, response_body)
          SELECT i.delivery_id, i.attempt, l.webhook_id, i.started_at, i.status_code, i.ok, i.error, i.duration_ms,
            i.request_headers, i.response_body
          FROM input i JOIN locked l ON l.delivery_id = i.delivery_id
          ON CONFLICT (delivery_id, attempt) DO NOTHING
          RETURNING delivery_id, attempt, webhook_id, started_at, ok
        ), last_ok AS (
          SELECT webhook_id, max(started_at) FILTER (WHERE ok) AS ok_at FROM recorded GROUP BY webhook_id
        ), streak AS (
          SELECT r.webhook_id, o.ok_at,
            min(r.started_at) FILTER (WHERE NOT r.ok AND (o.ok_at IS NULL OR r.started_at > o.ok_at)) AS failed_at
          FROM recorded r JOIN last_ok o ON o.webhook_id = r.webhook_id
          GROUP BY r.webhook_id, o.ok_at
        ), health AS (
          INSERT INTO webhook_health (webhook_id, since)
          SELECT s.webhook_id, s.failed_at FROM streak s
          WHERE EXISTS (SELECT 1 FROM locked l WHERE l.webhook_id = s.webhook_id AND l.status <> 'cancelled')
          ORDER BY s.webhook_id
          -- The streak after this batch, from the row as it is now (migration 0029's webhook_streak_after).
          ON CONFLICT (webhook_id) DO UPDATE SET since = webhook_streak_after(webhook_health.since,
            webhook_health.disabled_at, (SELECT s.ok_at FROM streak s WHERE s.webhook_id = EXCLUDED.webhook_id),
            EXCLUDED.since)
          -- Only a streak that moves is written: an endpoint failing steadily, or healthy, costs no write per batch.
          WHERE webhook_health.since IS DISTINCT FROM webhook_streak_after(webhook_health.since,
            webhook_health.disabled_at, (SELECT s.ok_at FROM streak s WHERE s.webhook_id = EXCLUDED.webhook_id),
            EXCLUDED.since)
        )
        UPDATE webhook_deliveries d SET status = i.status, next_attempt_at = i.next_attempt_at,
          last_status_code = i.status_code, last_error = i.error, lease_until = NULL, updated_at = i.started_at
        FROM recorded r JOIN input i ON i.delivery_id = r.delivery_id AND i.attempt = r.attempt
        WHERE d.delivery_id = r.delivery_id AND d.status = 'pending' AND d.attempts = r.attempt
          AND d.lease_until IS NOT NULL`
    },
    orUnavailable
  )

  return {
    enqueue: Effect.fnUntraced(function*(deliveries) {
      if (deliveries.length === 0) return
      // Status and schedule of a row whose endpoint is gone or disabled (once its lock is ours): cancelled.
      yield* sql`
        WITH queued AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(deliveries.map(deliveryToRow))}::jsonb) AS d (
            delivery_id text, event_id text, webhook_id text, account_id text, livemode boolean, status text,
            attempts integer, next_attempt_at timestamptz, last_status_code integer, last_error text,
            created_at timestamptz, updated_at timestamptz
          )
        ), open AS (
          -- In id order, as 'fils secrets rotate' locks them (webhooks.ts): in any other this could hold one endpoint
          -- while waiting for another that the rotation holds while waiting for the first (a deadlock).
          SELECT webhook_id, account_id, livemode FROM webhook_endpoints
          WHERE webhook_id IN (SELECT webhook_id FROM queued) AND NOT disabled
          ORDER BY webhook_id FOR SHARE
        )
        INSERT INTO webhook_deliveries (delivery_id, event_id, webhook_id, account_id, livemode, status, attempts,
          next_attempt_at, last_status_code, last_error, created_at, updated_at)
        SELECT d.delivery_id, d.event_id, d.webhook_id, d.account_id, d.livemode,
          CASE WHEN d.status = 'pending' AND o.webhook_id IS NULL THEN 'cancelled' ELSE d.status END,
          d.attempts,
          -- Never later than now: work done "as of" a future instant (billing run --at) is delivered at once.
          CASE WHEN d.status = 'pending' AND o.webhook_id IS NULL THEN NULL
            WHEN d.next_attempt_at > now() THEN now() ELSE d.next_attempt_at END,
          d.last_status_code, d.last_error, d.created_at, d.updated_at
        FROM queued d
        LEFT JOIN open o ON o.webhook_id = d.webhook_id AND o.account_id = d.account_id AND o.livemode = d.livemode`
    }, orUnavailable),

    claimDue: Effect.fnUntraced(function*(now, limit, leaseMillis) {
      const at = toTimestamp(now)
      const leaseUntil = toTimestamp(DateTime.add(now, { millis: leaseMillis }))
      const rows = yield* sql<ClaimedRow>`
        WITH leased AS MATERIALIZED (
          -- The attempts in flight (on any server): a pass over the small leased index of migration 0008.
          SELECT webhook_id, account_id FROM webhook_deliveries WHERE status = 'pending' AND lease_until > ${at}
        ), busy AS (
          SELECT webhook_id, count(*) AS n FROM leased GROUP BY webhook_id
        ), busy_accounts AS (
          SELECT account_id, count(*) AS n FROM leased GROUP BY account_id
        ), ranked AS (
          -- Per enabled endpoint, its oldest due rows up to the cap minus what it has in flight: an index probe per
          -- endpoint (migration 0008), never a pass over the whole backlog, which a claim per freed slot would repeat.
          -- Then each account's candidates are numbered, oldest first, against what room its own cap leaves.
          SELECT r.delivery_id, r.next_attempt_at,
            row_number() OVER (PARTITION BY w.account_id ORDER BY r.next_attempt_at, r.delivery_id) AS nth,
            ${inFlightPerAccount} - coalesce(a.n, 0) AS room
          FROM webhook_endpoints w
          LEFT JOIN busy b ON b.webhook_id = w.webhook_id
          LEFT JOIN busy_accounts a ON a.account_id = w.account_id
          CROSS JOIN LATERAL (
            SELECT d.delivery_id, d.next_attempt_at FROM webhook_deliveries d
            WHERE d.webhook_id = w.webhook_id AND d.account_id = w.account_id AND d.livemode = w.livemode
              AND d.status = 'pending' AND d.next_attempt_at <= ${at}
              AND (d.lease_until IS NULL OR d.lease_until <= ${at})
            ORDER BY d.next_attempt_at, d.delivery_id
            LIMIT greatest(0, ${inFlightPerEndpoint} - coalesce(b.n, 0))
          ) r
          WHERE NOT w.disabled
        ), due AS (
          -- The picked ids as an array: one primary-key probe each, never a join (which the planner, misjudging
          -- how few "ranked" yields, made a hash join over a scan of the whole table).
          SELECT d.delivery_id FROM webhook_deliveries d
          WHERE d.delivery_id = ANY (ARRAY(
            SELECT r.delivery_id FROM ranked r WHERE r.nth <= r.room
            ORDER BY r.next_attempt_at, r.delivery_id
            LIMIT ${limit}
          ))
            AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= ${at})
          FOR UPDATE OF d SKIP LOCKED
        ), claimed AS (
          UPDATE webhook_deliveries d SET attempts = d.attempts + 1, lease_until = ${leaseUntil}, updated_at = ${at}
          FROM due WHERE d.delivery_id = due.delivery_id
          RETURNING d.*
        )
        SELECT c.*, to_jsonb(e.*) AS event, to_jsonb(w.*) AS endpoint, h.since AS failing_since
        FROM claimed c
        JOIN events e ON e.event_id = c.event_id
        JOIN webhook_endpoints w ON w.webhook_id = c.webhook_id
        LEFT JOIN webhook_health h ON h.webhook_id = c.webhook_id
        ORDER BY c.next_attempt_at, c.delivery_id`
      // The delivery's decoder reads only its own columns: it takes the row whole, the event and endpoint beside.
      return rows.map((row): ClaimedAttempt => {
        const delivery = deliveryFromRow(row)
        return {
          delivery,
          attempt: delivery.attempts,
          event: eventFromRow(row.event),
          endpoint: webhookFromRow(row.endpoint),
          test: row.event.test === true,
          failingSince: row.failing_since === null ? null : fromTimestamp(row.failing_since)
        }
      })
    }, orUnavailable),

    recordAttempt: (record) => recordAttempts([record]),
    recordAttempts,

    cancelFor: Effect.fnUntraced(function*(webhookId) {
      return yield* cancelPendingOf(sql, webhookId)
    }, orUnavailable),

    get: Effect.fnUntraced(function*(id) {
      const rows = yield* sql<DeliveryRow>`SELECT * FROM webhook_deliveries WHERE delivery_id = ${id}`
      return first(rows, deliveryFromRow)
    }, orUnavailable),

    retry: Effect.fnUntraced(function*(id, now) {
      const at = toTimestamp(now)
      const rows = yield* sql<DeliveryRow>`UPDATE webhook_deliveries
        SET status = 'pending', next_attempt_at = ${at}, lease_until = NULL, updated_at = ${at}
        WHERE delivery_id = ${id}
        RETURNING *`
      return first(rows, deliveryFromRow)
    }, orUnavailable),

    list: Effect.fnUntraced(function*(filter, limit) {
      const conditions = []
      if (filter.event_id !== undefined) conditions.push(sql`event_id = ${filter.event_id}`)
      if (filter.webhook_id !== undefined) conditions.push(sql`webhook_id = ${filter.webhook_id}`)
      if (filter.status !== undefined) conditions.push(sql`status = ${filter.status}`)
      const rows = yield* sql<DeliveryRow>`SELECT * FROM webhook_deliveries WHERE ${sql.and(conditions)}
        ORDER BY created_at DESC, delivery_id DESC LIMIT ${limit}`
      return rows.map(deliveryFromRow)
    }, orUnavailable),

    attemptsOf: Effect.fnUntraced(function*(id) {
      const rows = yield* sql<AttemptRow>`SELECT attempt, started_at, status_code, error, duration_ms
        FROM webhook_attempts WHERE delivery_id = ${id} ORDER BY attempt`
      return rows.map((row) => ({
        attempt: row.attempt,
        started_at: fromTimestamp(row.started_at),
        status_code: row.status_code,
        error: row.error,
        duration_ms: row.duration_ms
      }))
    }, orUnavailable),

    pageOf: Effect.fnUntraced(function*(webhookId, request) {
      const conditions = [sql`d.webhook_id = ${webhookId}`]
      if (request.after !== undefined) {
        conditions.push(sql`(d.created_at, d.delivery_id) < (${new Date(request.after.createdAtMillis)}, ${request.after.id})`)
      }
      // The endpoint's index of migration 0005, newest first; one row more tells whether there is more.
      // The event as a claim reads it (`to_jsonb`), so the body made from it is byte for byte the one sent.
      const rows = yield* sql<PageRow>`SELECT d.*, to_jsonb(e.*) AS event
        FROM webhook_deliveries d JOIN events e ON e.event_id = d.event_id
        WHERE ${sql.and(conditions)}
        ORDER BY d.created_at DESC, d.delivery_id DESC LIMIT ${request.limit + 1}`
      const shown = rows.slice(0, request.limit)
      const attempts = shown.length === 0 ? [] : yield* sql<LogAttemptRow>`SELECT delivery_id, attempt, started_at,
          status_code, error, duration_ms, response_body, request_headers, request_body
        FROM webhook_attempts WHERE delivery_id IN ${sql.in(shown.map((r) => r.delivery_id))}
        ORDER BY delivery_id, attempt`
      const byDelivery = new Map<string, Array<LogAttemptRow>>()
      for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a])
      return {
        hasMore: rows.length > request.limit,
        items: shown.map((row) => {
          const delivery = deliveryFromRow(row)
          const event = eventFromRow(row.event)
          const attempts = byDelivery.get(row.delivery_id) ?? []
          // Attempts recorded before the body was made again kept it: theirs is the one sent, word for word.
          const kept = attempts.find((a) => a.request_body !== null)?.request_body
          return {
            delivery_id: delivery.delivery_id,
            webhook_id: delivery.webhook_id,
            event_id: delivery.event_id,
            event_type: event.type as EventType,
            test: row.event.test === true,
            request_body: kept ?? requestBody(event, row.event.test === true),
            status: delivery.status,
            livemode: delivery.livemode,
            created_at: delivery.created_at,
            next_attempt_at: delivery.next_attempt_at,
            attempts: attempts.map((a) => ({
              attempt: a.attempt,
              started_at: fromTimestamp(a.started_at),
              status_code: a.status_code,
              error: a.error,
              latency_ms: a.duration_ms,
              response_body: a.response_body,
              request: a.request_headers === null ? null : { headers: a.request_headers }
            }))
          }
        })
      }
    }, orUnavailable),

    recover: Effect.fnUntraced(function*(webhookId, since, now) {
      const at = toTimestamp(now)
      // Locked in id order, as every statement that locks several deliveries takes them (`cancelPendingOf`).
      const rows = yield* sql`UPDATE webhook_deliveries
        SET status = 'pending', next_attempt_at = ${at}, lease_until = NULL, updated_at = ${at}
        WHERE delivery_id IN (
          SELECT delivery_id FROM webhook_deliveries
          WHERE webhook_id = ${webhookId} AND created_at >= ${toTimestamp(since)} AND status IN ('failed', 'cancelled')
          ORDER BY delivery_id FOR UPDATE
        ) AND status IN ('failed', 'cancelled')
        RETURNING delivery_id`
      return rows.length
    }, orUnavailable),

    awaitWork
  }
}

// Wake-ups -----------------------------------------------------------------------------------------------------------

/** The channel of the 0005 trigger (payload `due`); the listener's own checks use payloads `probe:<instance>`. */
export const deliveriesChannel = "fils_deliveries"

export interface WakeupOptions {
  /** How often a working listener checks its connection by notifying itself (default 30 s). */
  readonly heartbeat?: Duration.DurationInput | undefined
  /** How long its own notification may take to come back before the listener starts over (default 5 s). */
  readonly probeTimeout?: Duration.DurationInput | undefined
}

class ListenerStalled extends Data.TaggedError("ListenerStalled")<{ readonly message: string }> {}

/**
 * `awaitWork` for one store: ONE `LISTEN fils_deliveries` connection per store (PgClient.listen), started by the
 * first `awaitWork` (processes that never dispatch open none) and kept for the scope's lifetime.
 *
 * - A notification wakes every caller waiting now; one that arrives while nobody waits is kept (a latch), and the
 *   next call returns at once, so work queued between a dispatcher's empty claim and its next wait is not missed.
 * - When the listener (re)starts listening it also wakes the waiters: deliveries queued while nobody listened may
 *   be due.
 * - The listener checks itself: it notifies itself at start and every `heartbeat`, and starts over (a new
 *   connection, after a backoff up to 5 s) when that does not come back within `probeTimeout` or LISTEN fails.
 *   @effect/sql-pg swallows the errors of its LISTEN connection, so this is how a lost connection (a database
 *   restart) is noticed. Meanwhile `awaitWork` ends at its timeout: the dispatcher polls.
 * - Without a PgClient in the context (another SqlClient), `awaitWork` is the timeout alone.
 */
export const makeDeliveryWakeups = (
  options: WakeupOptions = {}
): Effect.Effect<{ readonly awaitWork: DeliveriesRepo["awaitWork"] }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    const listener = yield* listenService
    const scope = yield* Effect.scope
    const heartbeat = Duration.decode(options.heartbeat ?? Duration.seconds(30))
    const probeTimeout = Duration.decode(options.probeTimeout ?? Duration.seconds(5))

    // All of this state is read and written synchronously (inside Effect.sync), so fibers never interleave in it.
    let latched = false
    let waiting: Deferred.Deferred<void> | undefined
    const wake = () => {
      latched = true
      if (waiting !== undefined) Deferred.unsafeDone(waiting, Exit.void)
      waiting = undefined
    }

    const probe = `probe:${randomUUID()}`
    let probeBack: Deferred.Deferred<void> | undefined
    const onMessage = (payload: string) =>
      Effect.sync(() => {
        if (payload === probe) {
          if (probeBack !== undefined) Deferred.unsafeDone(probeBack, Exit.void)
        } else if (!payload.startsWith("probe:")) {
          wake()
        }
      })

    const listen = (client: PgClient.PgClient, listener: PgListen["Type"]) => {
      const notify = client`SELECT pg_notify(${deliveriesChannel}, ${probe})`
      /** Notifies itself (again every 100 ms, in case LISTEN is not in place yet) until that comes back. */
      const roundTrip = Effect.gen(function*() {
        const back = yield* Deferred.make<void>()
        yield* Effect.sync(() => {
          probeBack = back
        })
        yield* Effect.raceFirst(
          Deferred.await(back),
          // Not `client.notify`: @effect/sql-pg 0.53 sends `NOTIFY channel, $1`, which PostgreSQL refuses.
          Effect.forever(Effect.zipRight(notify, Effect.sleep("100 millis")))
        ).pipe(
          Effect.timeoutFail({
            duration: probeTimeout,
            onTimeout: () => new ListenerStalled({ message: "the listener's own notification did not come back" })
          })
        )
      })

      let failures = 0
      /** One connection's life: LISTEN, then check it until it fails. */
      const session = Effect.gen(function*() {
        // A daemon, interrupted without waiting: the UNLISTEN of a connection that hangs must not hold us up.
        const listening = yield* Effect.forkDaemon(Stream.runForEach(listener.listen(deliveriesChannel), onMessage))
        const checks = Effect.gen(function*() {
          yield* roundTrip
          failures = 0
          yield* Effect.sync(wake)
          for (;;) {
            yield* Effect.sleep(heartbeat)
            yield* roundTrip
          }
        })
        yield* Effect.raceFirst(
          Effect.zipRight(
            Fiber.join(listening),
            Effect.fail(new ListenerStalled({ message: "the LISTEN stream ended" }))
          ),
          checks
        ).pipe(Effect.ensuring(Fiber.interruptFork(listening)))
      })

      return session.pipe(
        Effect.catchAllCause((cause) =>
          Effect.gen(function*() {
            failures++
            const backoff = Duration.min(Duration.millis(200 * 2 ** Math.min(failures, 8)), Duration.seconds(5))
            yield* Effect.logWarning(
              `Webhook wake-ups: LISTEN ${deliveriesChannel} failed; polling, and listening again in ${
                Duration.format(backoff)
              }`,
              cause
            )
            yield* Effect.sleep(backoff)
          })
        ),
        Effect.forever
      )
    }

    // Forked now, so that it runs in this context (never in the transaction of an `awaitWork` caller), but it only
    // connects once the first `awaitWork` lets it go.
    const go = yield* Deferred.make<void>()
    if (Option.isSome(pg) && Option.isSome(listener)) {
      yield* Effect.forkIn(Effect.zipRight(Deferred.await(go), listen(pg.value, listener.value)), scope)
    }
    const start = Deferred.succeed(go, undefined)

    const awaitWork: DeliveriesRepo["awaitWork"] = (timeoutMillis) =>
      Effect.zipRight(
        start,
        Effect.flatMap(
          Effect.sync(() => {
            if (latched) {
              latched = false
              return undefined
            }
            return (waiting ??= Deferred.unsafeMake<void>(FiberId.none))
          }),
          (woken) =>
            woken === undefined ? Effect.void : Effect.raceFirst(
              Deferred.await(woken),
              Effect.sleep(Duration.millis(Math.max(0, timeoutMillis)))
            ).pipe(Effect.ensuring(Effect.sync(() => {
              latched = false
            })))
        )
      )

    return { awaitWork }
  })

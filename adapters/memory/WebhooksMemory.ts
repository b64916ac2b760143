/**
 * Webhook endpoints and their delivery outbox in memory, with the rules of PostgreSQL's (repos/webhooks.ts and
 * repos/deliveries.ts): a claim leases due deliveries within the per-endpoint and per-account caps, an attempt is
 * recorded once, and each endpoint's failing streak follows the attempts recorded (`WebhookHealth`).
 */
import { DateTime, Effect, Option } from "effect"
import { inScope } from "../../src/domain/Account.js"
import {
  afterAttempt,
  inFlightPerAccount,
  inFlightPerEndpoint,
  outcomeApplies,
  requestBody,
  type SentRequest
} from "../../src/domain/Delivery.js"
import type * as Event from "../../src/domain/Event.js"
import * as Pagination from "../../src/domain/Pagination.js"
import * as WebhookEndpoint from "../../src/domain/WebhookEndpoint.js"
import * as WebhookHealth from "../../src/domain/WebhookHealth.js"
import type {
  AttemptRecord,
  DeliveriesRepo,
  Delivery,
  WebhooksRepo
} from "../../src/ports/repositories/WebhookRepository.js"
import { type Access, oldestFirst, page, scoped, Table, type Undo } from "./Table.js"

interface AttemptRow {
  readonly attempt: number
  readonly webhook_id: string
  readonly ok: boolean
  readonly started_at: DateTime.Utc
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly answer: string | null
  readonly sent: SentRequest | null
}

/** An endpoint's failing streak, and when Fils disabled it for failing (`WebhookHealth`). */
interface HealthRow {
  readonly since: DateTime.Utc
  readonly disabledAt: DateTime.Utc | null
}

/** A delivery with its lease (epoch millis; 0 when none). */
type DeliveryRow = Delivery & { readonly lease_until: number }

export const makeWebhooksMemory = (
  recordUndo: (undo: Undo) => void,
  { read, write }: Access,
  /** The store's events, and which of them are test events (`EventsRepo.insertTest`). */
  from: { readonly events: Table<Event.Event>; readonly testEvents: Table<true> }
) => {
  const { events, testEvents } = from
  const webhooks = new Table<WebhookEndpoint.WebhookEndpoint>(recordUndo)
  const deliveries = new Table<DeliveryRow>(recordUndo)
  const deliveryAttempts = new Table<ReadonlyArray<AttemptRow>>(recordUndo)
  const webhookHealth = new Table<HealthRow>(recordUndo)
  // Dispatchers waiting for work; woken when deliveries are queued.
  let waiters: Array<() => void> = []
  const wake = () => {
    const woken = waiters
    waiters = []
    for (const w of woken) w()
  }
  const publicDelivery = ({ lease_until: _, ...d }: DeliveryRow): Delivery => d
  /** Records a batch of attempts, then each endpoint's streak after the ones recorded now (as one SQL statement). */
  const recordDeliveryAttempts = (records: ReadonlyArray<AttemptRecord>) => {
    const byEndpoint = new Map<string, Array<WebhookHealth.Outcome>>()
    for (const record of records) {
      const recorded = recordDeliveryAttempt(record)
      if (recorded !== undefined) byEndpoint.set(recorded.webhookId, [...(byEndpoint.get(recorded.webhookId) ?? []), recorded.outcome])
    }
    for (const [id, batch] of byEndpoint) {
      const row = webhookHealth.get(id)
      const since = WebhookHealth.failingSinceAfter(row?.since ?? null, batch)
      if (since !== null) webhookHealth.set(id, { since, disabledAt: row?.disabledAt ?? null })
      else if (row !== undefined && row.disabledAt === null) webhookHealth.delete(id)
    }
  }
  /** Records one attempt; the endpoint and outcome of a newly recorded one (for its streak), else undefined. */
  const recordDeliveryAttempt = ({ attempt, deliveryId, nextAttemptAt, outcome, sent, startedAt }: AttemptRecord) => {
    const d = deliveries.get(deliveryId)
    const recorded = deliveryAttempts.get(deliveryId) ?? []
    // Once per (delivery, attempt), whoever reports it first.
    if (d === undefined || recorded.some((a) => a.attempt === attempt)) return undefined
    deliveryAttempts.set(deliveryId, [...recorded, {
      attempt,
      webhook_id: d.webhook_id,
      ok: outcome.ok,
      started_at: startedAt,
      status_code: outcome.statusCode,
      error: outcome.error,
      duration_ms: outcome.durationMillis,
      answer: outcome.answer ?? null,
      sent: sent ?? null
    }])
    // A cancelled delivery's attempt (its endpoint deleted or disabled meanwhile) leaves the streak alone.
    const streak = d.status === "cancelled" ? undefined : { webhookId: d.webhook_id, outcome: { ok: outcome.ok, startedAt } }
    if (!outcomeApplies(d, d.lease_until !== 0, attempt)) return streak
    const after = afterAttempt(outcome, nextAttemptAt)
    deliveries.set(deliveryId, {
      ...d,
      status: after.status,
      next_attempt_at: after.nextAttemptAt,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      lease_until: 0,
      updated_at: startedAt
    })
    return streak
  }

  const webhooksRepo: WebhooksRepo = {
    insert: (endpoint) => write(() => webhooks.set(endpoint.webhook_id, endpoint)),
    get: (scope, id) => read(() => scoped(webhooks.get(id), scope)),
    lock: (scope, id) => read(() => scoped(webhooks.get(id), scope)),
    update: (endpoint) => write(() => webhooks.set(endpoint.webhook_id, endpoint)),
    delete: (scope, id) =>
      write(() => {
        const endpoint = webhooks.get(id)
        if (endpoint === undefined || !inScope(endpoint, scope)) return false
        webhooks.delete(id)
        webhookHealth.delete(id)
        for (const d of deliveries.rows.values()) {
          if (d.webhook_id === id && d.status === "pending") {
            deliveries.set(d.delivery_id, { ...d, status: "cancelled", next_attempt_at: null })
          }
        }
        return true
      }),
    list: (scope, request) =>
      read(() => page(webhooks.rows.values(), (w) => inScope(w, scope), WebhookEndpoint.position, request)),
    subscribed: (scope, type) =>
      read(() =>
        [...webhooks.rows.values()]
          .filter((w) => inScope(w, scope) && WebhookEndpoint.subscribes(w, type))
          .sort((a, b) => (a.webhook_id < b.webhook_id ? -1 : 1))
      ),
    health: (ids, since) =>
      read(() => {
        const from = DateTime.toEpochMillis(since)
        const found = new Map<string, WebhookHealth.Stored>()
        for (const id of ids) found.set(id, { ...WebhookHealth.none })
        for (const attempts of deliveryAttempts.rows.values()) {
          for (const a of attempts) {
            const h = found.get(a.webhook_id)
            if (h === undefined || DateTime.toEpochMillis(a.started_at) <= from) continue
            found.set(a.webhook_id, { ...h, attempts: h.attempts + 1, failed: h.failed + (a.ok ? 0 : 1) })
          }
        }
        for (const id of ids) {
          const row = webhookHealth.get(id)
          if (row === undefined) continue
          // The streak's failures, up to the count the rule needs (as PostgreSQL counts them).
          let failures = 0
          for (const attempts of deliveryAttempts.rows.values()) {
            for (const a of attempts) {
              if (a.webhook_id === id && !a.ok && DateTime.toEpochMillis(a.started_at) >= DateTime.toEpochMillis(row.since)) failures++
            }
          }
          found.set(id, {
            ...found.get(id)!,
            failingSince: row.since,
            failures: Math.min(failures, WebhookHealth.minFailures),
            autoDisabledAt: row.disabledAt
          })
        }
        return found
      }),
    markAutoDisabled: (id, at) =>
      write(() => webhookHealth.set(id, { since: webhookHealth.get(id)?.since ?? at, disabledAt: at })),
    clearHealth: (id) => write(() => webhookHealth.delete(id))
  }
  const deliveriesRepo: DeliveriesRepo = {
    enqueue: (queued) =>
      Effect.zipRight(
        write(() => {
          for (const d of queued) deliveries.set(d.delivery_id, { ...d, lease_until: 0 })
        }),
        Effect.sync(() => {
          if (queued.length > 0) wake()
        })
      ),
    claimDue: (now, limit, leaseMillis) =>
      write(() => {
        const at = DateTime.toEpochMillis(now)
        const due = oldestFirst(
          deliveries.rows.values(),
          (d) => d.status === "pending" && d.next_attempt_at !== null &&
            DateTime.toEpochMillis(d.next_attempt_at) <= at && d.lease_until <= at,
          (d) => d.next_attempt_at!,
          (d) => d.delivery_id
        )
        // Attempts already running per endpoint and per account: each endpoint gets at most
        // Delivery.inFlightPerEndpoint, each account at most Delivery.inFlightPerAccount.
        const busy = new Map<string, number>()
        const busyAccounts = new Map<string, number>()
        for (const d of deliveries.rows.values()) {
          if (d.status === "pending" && d.lease_until > at) {
            busy.set(d.webhook_id, (busy.get(d.webhook_id) ?? 0) + 1)
            busyAccounts.set(d.account_id, (busyAccounts.get(d.account_id) ?? 0) + 1)
          }
        }
        const claimed = []
        for (const d of due) {
          if (claimed.length >= limit) break
          const event = events.get(d.event_id)
          const endpoint = webhooks.get(d.webhook_id)
          // A disabled endpoint receives nothing (its row waits, as the SQL claim leaves it).
          if (event === undefined || endpoint === undefined || endpoint.disabled) continue
          const running = busy.get(d.webhook_id) ?? 0
          const accountRunning = busyAccounts.get(d.account_id) ?? 0
          if (running >= inFlightPerEndpoint || accountRunning >= inFlightPerAccount) continue
          busy.set(d.webhook_id, running + 1)
          busyAccounts.set(d.account_id, accountRunning + 1)
          const next = { ...d, attempts: d.attempts + 1, lease_until: at + leaseMillis, updated_at: now }
          deliveries.set(d.delivery_id, next)
          claimed.push({
            delivery: publicDelivery(next),
            attempt: next.attempts,
            event,
            endpoint,
            test: testEvents.get(event.event_id) !== undefined,
            failingSince: webhookHealth.get(endpoint.webhook_id)?.since ?? null
          })
        }
        return claimed
      }),
    recordAttempt: (record) => write(() => recordDeliveryAttempts([record])),
    recordAttempts: (records) => write(() => recordDeliveryAttempts(records)),
    cancelFor: (webhookId) =>
      write(() => {
        let n = 0
        for (const d of deliveries.rows.values()) {
          if (d.webhook_id === webhookId && d.status === "pending") {
            deliveries.set(d.delivery_id, { ...d, status: "cancelled", next_attempt_at: null })
            n++
          }
        }
        return n
      }),
    get: (id) => read(() => Option.map(Option.fromNullable(deliveries.get(id)), publicDelivery)),
    retry: (id, now) =>
      Effect.tap(
        write(() => {
          const d = deliveries.get(id)
          if (d === undefined) return Option.none()
          const next = { ...d, status: "pending" as const, next_attempt_at: now, lease_until: 0, updated_at: now }
          deliveries.set(id, next)
          return Option.some(publicDelivery(next))
        }),
        () => Effect.sync(wake)
      ),
    list: (filter, limit) =>
      read(() =>
        [...deliveries.rows.values()]
          .filter((d) =>
            (filter.event_id === undefined || d.event_id === filter.event_id) &&
            (filter.webhook_id === undefined || d.webhook_id === filter.webhook_id) &&
            (filter.status === undefined || d.status === filter.status)
          )
          .sort((a, b) => Pagination.compare(
            { createdAtMillis: DateTime.toEpochMillis(a.created_at), id: a.delivery_id },
            { createdAtMillis: DateTime.toEpochMillis(b.created_at), id: b.delivery_id }
          ))
          .slice(0, limit)
          .map(publicDelivery)
      ),
    attemptsOf: (id) =>
      read(() =>
        [...(deliveryAttempts.get(id) ?? [])]
          .sort((a, b) => a.attempt - b.attempt)
          .map(({ attempt, duration_ms, error, started_at, status_code }) => ({ attempt, started_at, status_code, error, duration_ms }))
      ),
    pageOf: (webhookId, request) =>
      read(() => {
        const found = page(
          deliveries.rows.values(),
          (d) => d.webhook_id === webhookId,
          (d) => ({ createdAtMillis: DateTime.toEpochMillis(d.created_at), id: d.delivery_id }),
          request
        )
        return {
          hasMore: found.hasMore,
          items: found.items.map((d) => ({
            delivery_id: d.delivery_id,
            webhook_id: d.webhook_id,
            event_id: d.event_id,
            event_type: events.get(d.event_id)!.type,
            test: testEvents.get(d.event_id) !== undefined,
            request_body: requestBody(events.get(d.event_id)!, testEvents.get(d.event_id) !== undefined),
            status: d.status,
            livemode: d.livemode,
            created_at: d.created_at,
            next_attempt_at: d.next_attempt_at,
            attempts: [...(deliveryAttempts.get(d.delivery_id) ?? [])].sort((a, b) => a.attempt - b.attempt).map((a) => ({
              attempt: a.attempt,
              started_at: a.started_at,
              status_code: a.status_code,
              error: a.error,
              latency_ms: a.duration_ms,
              response_body: a.answer,
              request: a.sent === null ? null : { headers: { ...a.sent.headers } }
            }))
          }))
        }
      }),
    recover: (webhookId, since, now) =>
      Effect.tap(
        write(() => {
          let n = 0
          for (const d of deliveries.rows.values()) {
            if (
              d.webhook_id === webhookId && (d.status === "failed" || d.status === "cancelled") &&
              DateTime.toEpochMillis(d.created_at) >= DateTime.toEpochMillis(since)
            ) {
              deliveries.set(d.delivery_id, { ...d, status: "pending", next_attempt_at: now, lease_until: 0, updated_at: now })
              n++
            }
          }
          return n
        }),
        (n) => Effect.sync(() => n > 0 && wake())
      ),
    awaitWork: (timeoutMillis) =>
      Effect.raceFirst(
        Effect.async<void>((resume) => {
          const done = () => resume(Effect.void)
          waiters.push(done)
          return Effect.sync(() => {
            waiters = waiters.filter((w) => w !== done)
          })
        }),
        Effect.sleep(timeoutMillis)
      )
  }

  return { webhooks: webhooksRepo, deliveries: deliveriesRepo, deliveryRows: deliveries.rows as ReadonlyMap<string, DeliveryRow> }
}

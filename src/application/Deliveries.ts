/**
 * The webhook dispatcher (docs/decisions.md §7): claims due deliveries, signs each attempt afresh (same `webhook-id`,
 * new timestamp and signature), POSTs it through the WebhookTransport port with a 10 s timeout, records the
 * attempt, and schedules the next on failure (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). At-least-once: what was
 * committed is delivered, across crashes and restarts; a lease keeps two servers from running one attempt.
 */
import { DateTime, Duration, Effect, Option, Queue, Ref, Schedule, Schema } from "effect"
import { type Authority, type Scope, sees } from "../domain/Account.js"
import * as Delivery from "../domain/Delivery.js"
import { InvalidRequest, InvalidState, notFound, type StoreUnavailable } from "../domain/Errors.js"
import * as Event from "../domain/Event.js"
import { type DeliveryId, type EventId, prefixes, type WebhookId } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import * as WebhookEndpoint from "../domain/WebhookEndpoint.js"
import * as WebhookHealth from "../domain/WebhookHealth.js"
import { EventRepository } from "../ports/repositories/EventRepository.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import {
  type AttemptRecord,
  type ClaimedAttempt,
  type DeliveryFilter,
  type DeliveryView,
  WebhookRepository
} from "../ports/repositories/WebhookRepository.js"
import { WebhookTransport } from "../ports/WebhookTransport.js"
import { batched } from "./Batched.js"
import { EventRecorder } from "./Events.js"
import { newId } from "./Ids.js"

export interface DeliveryListParams {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

const encodeWebhook = Schema.encodeSync(WebhookEndpoint.WebhookResource)

/** The wire shape of a delivery. */
const resource = (view: DeliveryView): Delivery.DeliveryResource => ({ object: "webhook_delivery", ...view })

/**
 * At most `batch` attempts claimed by one statement, and `concurrency` in flight: a slow receiver holds one slot,
 * never the others. Sized with `npm run bench` (30,000 deliveries to three local endpoints): concurrent records
 * share their commits' WAL flushes, and a claim carries as many attempts as have finished meanwhile.
 */
const batch = 128
const concurrency = Delivery.dispatchSlots
/** Longer than the receiver's 10 s, so a live attempt never loses its lease. */
const leaseMillis = Duration.toMillis(Delivery.timeout) + 20_000
/** At most this many finished attempts recorded by one statement (one round trip and one commit for a burst). */
const recordBatch = 64
/** How long an idle dispatcher waits for a wake-up before polling again. */
const pollMillis = 1_000

export class Deliveries extends Effect.Service<Deliveries>()("fils/Deliveries", {
  effect: Effect.gen(function*() {
    const webhookRepo = yield* WebhookRepository
    const eventRepo = yield* EventRepository
    const signer = yield* Signer
    const transport = yield* WebhookTransport
    const transactions = yield* Transactions
    const recorder = yield* EventRecorder

    /**
     * Disables an endpoint whose every attempt has failed for `WebhookHealth.disableAfter`, at least
     * `WebhookHealth.minFailures` of them (`WebhookHealth.shouldDisable`, checked again under its
     * lock, on its streak as stored now: a success recorded meanwhile keeps it enabled). Its pending deliveries stop,
     * and `webhook.disabled` goes to the account's endpoints that name it. True when it was disabled now.
     */
    const autoDisable = Effect.fn("Deliveries.autoDisable")(function*(endpoint: WebhookEndpoint.WebhookEndpoint, now: DateTime.Utc) {
      const scope: Scope = { accountId: endpoint.account_id, livemode: endpoint.livemode }
      const id = endpoint.webhook_id
      return yield* transactions.transact(Effect.gen(function*() {
        const current = yield* webhookRepo.lock(scope, id)
        if (Option.isNone(current) || current.value.disabled) return false
        const health = (yield* webhookRepo.health([id], WebhookHealth.windowStart(now))).get(id) ?? WebhookHealth.none
        if (!WebhookHealth.shouldDisable(health, now)) return false
        const disabled = { ...current.value, disabled: true }
        yield* webhookRepo.update(disabled)
        yield* webhookRepo.deliveries.cancelFor(id)
        yield* webhookRepo.markAutoDisabled(id, now)
        const shown = WebhookHealth.toResource({ ...health, autoDisabledAt: now })
        yield* recorder.record([{ scope, type: "webhook.disabled", data: { ...encodeWebhook({ ...disabled, health: shown }) } }])
        return true
      }))
    })

    type RecordAttempt = (record: AttemptRecord) => Effect.Effect<void, StoreUnavailable>

    /** Signs and sends one claimed attempt, then records it. Uninterruptible: shutdown waits for it (≤ 10 s). */
    const attempt = (record: RecordAttempt) => (claimed: ClaimedAttempt) =>
      Effect.uninterruptible(Effect.gen(function*() {
        const startedAt = yield* DateTime.now
        const body = Delivery.requestBody(claimed.event, claimed.test)
        const timestamp = Math.floor(DateTime.toEpochMillis(startedAt) / 1000)
        // One signature per signing secret: two for a day after a rotation, space-separated (Standard Webhooks).
        const signature = (yield* Effect.forEach(
          WebhookEndpoint.signingSecrets(claimed.endpoint.secret, startedAt),
          (secret) => signer.signWebhook({ secret, id: claimed.event.event_id, timestamp, body })
        )).join(" ")
        const headers = {
          "content-type": "application/json",
          "content-length": String(Delivery.utf8Length(body)),
          "user-agent": "Fils-Webhooks/1.0",
          "webhook-id": claimed.event.event_id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signature
        }
        const sent = yield* transport.send({
          url: claimed.endpoint.url,
          body,
          livemode: claimed.endpoint.livemode,
          timeoutMillis: Duration.toMillis(Delivery.timeout),
          headers
        })
        // The delivery log keeps the start of the answer only, whatever the transport read.
        const outcome = sent.answer === undefined ? sent : { ...sent, answer: Delivery.boundAnswer(sent.answer) }
        const finishedAt = yield* DateTime.now
        yield* record({
          deliveryId: claimed.delivery.delivery_id,
          attempt: claimed.attempt,
          startedAt,
          outcome,
          nextAttemptAt: outcome.ok ? undefined : Delivery.nextAttemptAt(claimed.attempt, finishedAt),
          sent: { headers }
        })
        // The streak as claimed: only an endpoint already failing that long can be due, so a healthy one costs nothing
        // (`autoDisable` then counts its failures).
        if (!outcome.ok && WebhookHealth.longEnough(claimed.failingSince, finishedAt)) {
          yield* autoDisable(claimed.endpoint, finishedAt).pipe(
            Effect.catchAllCause((cause) => Effect.logWarning("Disabling a failing endpoint did not complete", cause))
          )
        }
        return outcome.ok
      }))

    /** One round: claim what is due and send it. Returns how many attempts were made. */
    const dispatchOnce = Effect.fn("Deliveries.dispatchOnce")(function*() {
      const claimed = yield* webhookRepo.deliveries.claimDue(yield* DateTime.now, batch, leaseMillis)
      yield* Effect.forEach(claimed, attempt(webhookRepo.deliveries.recordAttempt), { concurrency, discard: true })
      return claimed.length
    })

    /**
     * Dispatches forever, without waiting for rounds: whenever slots are free it claims at most that many due
     * attempts and starts them, so a slow attempt holds only its own slot while the others move on (and the claim's
     * per-endpoint and per-account caps keep a hanging receiver, or a merchant whose receivers all hang, from taking
     * them all: `Delivery.inFlightPerAccount` is below `concurrency`). Idle, it waits for a wake-up (NOTIFY) or the
     * poll interval. A store outage backs off up to 30 s and resumes by itself.
     */
    const worker: Effect.Effect<never> = Effect.scoped(Effect.gen(function*() {
      const scope = yield* Effect.scope
      const free = yield* Ref.make(concurrency)
      const slotFreed = yield* Queue.sliding<void>(1)
      // Records in batches: each attempt waits for its own record, one statement writes what gathered meanwhile.
      const attemptBatched = attempt(yield* batched(webhookRepo.deliveries.recordAttempts, { max: recordBatch }))
      const start = (claimed: ClaimedAttempt) =>
        attemptBatched(claimed).pipe(
          // Not recorded (the store went away): the lease runs out and the attempt is made again.
          Effect.catchAllCause((cause) => Effect.logWarning("Delivery attempt not recorded", cause)),
          Effect.ensuring(Effect.zipRight(Ref.update(free, (n) => n + 1), Queue.offer(slotFreed, undefined))),
          Effect.forkIn(scope)
        )
      const step = Effect.gen(function*() {
        const slots = yield* Ref.get(free)
        if (slots === 0) return yield* Queue.take(slotFreed)
        const claimed = yield* webhookRepo.deliveries.claimDue(yield* DateTime.now, Math.min(batch, slots), leaseMillis)
        yield* Ref.update(free, (n) => n - claimed.length)
        for (const c of claimed) yield* start(c)
        if (claimed.length === 0) {
          // Nothing claimable now. With attempts in flight, the due work may only be held back by the per-endpoint or
          // per-account cap, which a finishing attempt lifts (it notifies nobody): wait for that too, not only for a
          // wake-up.
          const wakeUp = webhookRepo.deliveries.awaitWork(pollMillis)
          yield* slots < concurrency ? Effect.raceFirst(Queue.take(slotFreed), wakeUp) : wakeUp
        }
      })
      return yield* step.pipe(
        Effect.retry(Schedule.exponential("500 millis").pipe(Schedule.either(Schedule.spaced("30 seconds")))),
        Effect.catchAllCause((cause) => Effect.logError("Delivery round failed", cause)),
        Effect.forever
      )
    })).pipe(Effect.withSpan("Deliveries.worker"))

    /**
     * Redeliver now, also after success (`fils deliveries retry`). Not to a deleted or disabled endpoint (§7: a
     * disabled one receives nothing new): refused, and nothing changes. Should the endpoint be disabled right after
     * this check, the claim skips its rows, so nothing is sent to it either way.
     */
    /** A delivery `authority` may see, by id (another account's or mode's is not found). */
    const get = Effect.fn("Deliveries.get")(function*(authority: Authority, id: string) {
      return Option.filter(yield* webhookRepo.deliveries.get(id), (d) => sees(authority, d))
    })

    const retry = Effect.fn("Deliveries.retry")(function*(authority: Authority, id: string) {
      const delivery = yield* get(authority, id)
      if (Option.isNone(delivery)) return yield* notFound("delivery", id)
      const { account_id, livemode, webhook_id } = delivery.value
      const endpoint = yield* webhookRepo.get({ accountId: account_id, livemode }, webhook_id)
      if (Option.isNone(endpoint)) {
        return yield* new InvalidState({ message: `Delivery ${id} cannot be sent again: its endpoint was deleted` })
      }
      if (endpoint.value.disabled) {
        return yield* new InvalidState({
          message: `Delivery ${id} cannot be sent again: its endpoint ${webhook_id} is disabled (enable it first)`
        })
      }
      return Option.getOrThrow(yield* webhookRepo.deliveries.retry(id, yield* DateTime.now))
    })

    const list = Effect.fn("Deliveries.list")(function*(filter: DeliveryFilter, limit = 100) {
      return yield* webhookRepo.deliveries.list(filter, limit)
    })

    /** The endpoint of `scope` by id, locked in the running transaction; not found otherwise. */
    const lockEndpoint = (scope: Scope, id: WebhookId) =>
      Effect.flatMap(webhookRepo.lock(scope, id), Option.match({
        onNone: () => notFound("webhook endpoint", id),
        onSome: Effect.succeed
      }))

    /** One endpoint's deliveries, newest first, each with its attempts (`GET /webhooks/{id}/deliveries`). */
    const listOf = Effect.fn("Deliveries.listOf")(function*(scope: Scope, webhookId: WebhookId, params: DeliveryListParams) {
      if (Option.isNone(yield* webhookRepo.get(scope, webhookId))) return yield* notFound("webhook endpoint", webhookId)
      const key = Pagination.listKey("webhook_deliveries", { webhook_id: webhookId })
      const page = yield* Pagination.pageRequest(key, params, Delivery.pageMax)
      const found = yield* webhookRepo.deliveries.pageOf(webhookId, page)
      const list = Pagination.toList(key, found, Delivery.position)
      return { ...list, items: list.items.map(resource) }
    })

    /**
     * Sends a test event of `type` to one endpoint (`POST /webhooks/{id}/test`): an event with the example `data`
     * given, marked as a test (its body carries `"test": true`), queued as one delivery to this endpoint only and
     * sent by the dispatcher like any other, so it shows in the delivery log. It is not part of the event record.
     * The endpoint must be enabled and subscribe to `type`. Test mode only: a live receiver written before the `test`
     * mark existed would take an example `payment.succeeded`, signed with its live secret, for a real order.
     */
    const sendTest = Effect.fn("Deliveries.sendTest")(
      function*(scope: Scope, webhookId: WebhookId, type: Event.EventType, data: Record<string, unknown>) {
        const now = yield* DateTime.now
        const eventId = yield* newId<EventId>(prefixes.event)
        const deliveryId = yield* newId<DeliveryId>(prefixes.delivery)
        return yield* transactions.transact(Effect.gen(function*() {
          const endpoint = yield* lockEndpoint(scope, webhookId)
          // Another account's or mode's endpoint is not found first, as for every request about it.
          if (scope.livemode) {
            return yield* new InvalidRequest({
              message: "Test events are sent in test mode only: use a test key (sk_test_…) and a test endpoint"
            })
          }
          if (endpoint.disabled) {
            return yield* new InvalidState({ message: `Webhook endpoint ${webhookId} is disabled: enable it to send it a test event` })
          }
          if (!endpoint.event_types.includes(type)) {
            return yield* new InvalidRequest({
              message: `type must be one of the endpoint's event_types (${endpoint.event_types.join(", ")}); got ${type}`
            })
          }
          // The example's mode is the endpoint's, as a real event's data is.
          const event = Event.make({
            id: eventId,
            accountId: scope.accountId,
            livemode: scope.livemode,
            type,
            data: "livemode" in data ? { ...data, livemode: scope.livemode } : data,
            now
          })
          const stored = yield* eventRepo.insertTest(event)
          const delivery: Delivery.Delivery = {
            delivery_id: deliveryId,
            event_id: eventId,
            webhook_id: webhookId,
            account_id: scope.accountId,
            livemode: scope.livemode,
            status: "pending",
            attempts: 0,
            next_attempt_at: now,
            last_status_code: null,
            last_error: null,
            created_at: now,
            updated_at: now
          }
          yield* webhookRepo.deliveries.enqueue([delivery])
          return resource({
            delivery_id: deliveryId,
            webhook_id: webhookId,
            event_id: eventId,
            event_type: type,
            test: true,
            status: "pending",
            livemode: scope.livemode,
            created_at: now,
            next_attempt_at: now,
            // As the delivery will send it: made from the event as stored.
            request_body: Delivery.requestBody(stored, true),
            attempts: []
          })
        }))
      }
    )

    /**
     * Sends again every delivery of the endpoint made at or after `since` that did not arrive: `failed` (its attempts
     * ran out) or `cancelled` (the endpoint was disabled). Pending and succeeded ones are left alone, so asking again
     * resends nothing twice. The endpoint must be enabled (a disabled one receives nothing).
     */
    const recover = Effect.fn("Deliveries.recover")(function*(scope: Scope, webhookId: WebhookId, since: DateTime.Utc) {
      const now = yield* DateTime.now
      const resent = yield* transactions.transact(Effect.gen(function*() {
        const endpoint = yield* lockEndpoint(scope, webhookId)
        if (endpoint.disabled) {
          return yield* new InvalidState({ message: `Webhook endpoint ${webhookId} is disabled: enable it first, then recover` })
        }
        return yield* webhookRepo.deliveries.recover(webhookId, since, now)
      }))
      return { object: "webhook_recovery" as const, webhook_id: webhookId, since, resent }
    })

    return {
      dispatchOnce,
      worker,
      get,
      retry,
      list,
      listOf,
      sendTest,
      recover,
      autoDisable,
      attempts: webhookRepo.deliveries.attemptsOf
    } as const
  }),
  dependencies: [EventRecorder.Default]
}) {}

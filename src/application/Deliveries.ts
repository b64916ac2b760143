/**
 * The webhook dispatcher (docs/decisions.md §7): claims due deliveries, signs each attempt afresh (same `webhook-id`,
 * new timestamp and signature), POSTs it through the WebhookTransport port with a 10 s timeout, records the
 * attempt, and schedules the next on failure (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). At-least-once: what was
 * committed is delivered, across crashes and restarts; a lease keeps two servers from running one attempt.
 */
import { DateTime, Duration, Effect, Option, Queue, Ref, Schedule } from "effect"
import { type Authority, sees } from "../domain/Account.js"
import * as Delivery from "../domain/Delivery.js"
import { InvalidState, notFound, type StoreUnavailable } from "../domain/Errors.js"
import * as Event from "../domain/Event.js"
import * as WebhookEndpoint from "../domain/WebhookEndpoint.js"
import { Signer } from "../ports/Signer.js"
import { type AttemptRecord, type ClaimedAttempt, type DeliveryFilter, WebhookRepository } from "../ports/repositories/WebhookRepository.js"
import { WebhookTransport } from "../ports/WebhookTransport.js"
import { batched } from "./Batched.js"

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
    const signer = yield* Signer
    const transport = yield* WebhookTransport

    type RecordAttempt = (record: AttemptRecord) => Effect.Effect<void, StoreUnavailable>

    /** Signs and sends one claimed attempt, then records it. Uninterruptible: shutdown waits for it (≤ 10 s). */
    const attempt = (record: RecordAttempt) => (claimed: ClaimedAttempt) =>
      Effect.uninterruptible(Effect.gen(function*() {
        const startedAt = yield* DateTime.now
        const body = JSON.stringify(Event.deliveryBody(claimed.event))
        const timestamp = Math.floor(DateTime.toEpochMillis(startedAt) / 1000)
        // One signature per signing secret: two for a day after a rotation, space-separated (Standard Webhooks).
        const signature = (yield* Effect.forEach(
          WebhookEndpoint.signingSecrets(claimed.endpoint.secret, startedAt),
          (secret) => signer.signWebhook({ secret, id: claimed.event.event_id, timestamp, body })
        )).join(" ")
        const outcome = yield* transport.send({
          url: claimed.endpoint.url,
          body,
          livemode: claimed.endpoint.livemode,
          timeoutMillis: Duration.toMillis(Delivery.timeout),
          headers: {
            "content-type": "application/json",
            "user-agent": "Fils-Webhooks/1.0",
            "webhook-id": claimed.event.event_id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": signature
          }
        })
        const finishedAt = yield* DateTime.now
        yield* record({
          deliveryId: claimed.delivery.delivery_id,
          attempt: claimed.attempt,
          startedAt,
          outcome,
          nextAttemptAt: outcome.ok ? undefined : Delivery.nextAttemptAt(claimed.attempt, finishedAt)
        })
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

    return { dispatchOnce, worker, get, retry, list, attempts: webhookRepo.deliveries.attemptsOf } as const
  })
}) {}

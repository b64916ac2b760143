/** The event record: read it (`GET /events`), and write it inside the transaction of the change it describes. */
import { Effect, FiberRef, GlobalValue, Option, Schema } from "effect"
import type { Scope } from "../domain/Account.js"
import { notFound } from "../domain/Errors.js"
import * as Event from "../domain/Event.js"
import type { DeliveryId, EventId, PaymentId, SubscriptionId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import {
  eventType as paymentEventType,
  type Payment,
  type PaymentEvent,
  PaymentResource,
  RefundedPaymentResource
} from "../domain/Payment.js"
import type { WebhookEndpoint } from "../domain/WebhookEndpoint.js"
import { EventRepository } from "../ports/repositories/EventRepository.js"
import { type Delivery, WebhookRepository } from "../ports/repositories/WebhookRepository.js"
import { newId } from "./Ids.js"
import { eventTime, onRealTime } from "./Time.js"

export interface EventListParams {
  readonly type?: Event.EventType | undefined
  /** The events about one payment or subscription (its timeline; not part of the HTTP API). */
  readonly payment_id?: PaymentId | undefined
  readonly subscription_id?: SubscriptionId | undefined
  /** The events one API request caused. */
  readonly request_id?: string | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

const encodePayment = Schema.encodeSync(PaymentResource)
const encodeRefunded = Schema.encodeSync(RefundedPaymentResource)

/** `data` of a payment event: the payment as the API shows it, plus `refund_amount` for a refund. */
export const paymentData = (payment: Payment, refundAmount?: number): Record<string, unknown> =>
  refundAmount === undefined
    ? { ...encodePayment(payment) }
    : { ...encodeRefunded({ ...payment, refund_amount: refundAmount }) }

/**
 * The id of the API request the current fiber serves (the HTTP edge sets it around each request): the events it
 * records carry it, so that a request's log line leads to what it caused.
 */
export const CurrentRequestId = GlobalValue.globalValue(
  Symbol.for("fils/CurrentRequestId"),
  () => FiberRef.unsafeMake<string | null>(null)
)

/** An event to record: its type and data, in its account and mode. */
export interface EventDraft {
  readonly scope: Scope
  readonly type: Event.EventType
  readonly data: Record<string, unknown>
  /**
   * The request that caused it, when the work runs for several requests at once (a batch gathered from concurrent
   * requests, in a fiber of its own); otherwise the fiber's `CurrentRequestId`.
   */
  readonly requestId?: string | null | undefined
}

/**
 * The records of a payment's events (`Payment.transition`'s), with `payment` as it is once the change is made (the
 * transition's `next`, or what it became later in the same transaction).
 */
export const paymentDrafts = (events: ReadonlyArray<PaymentEvent>, payment: Payment): ReadonlyArray<EventDraft> =>
  events.map((event) => ({
    scope: { accountId: payment.account_id, livemode: payment.livemode },
    type: paymentEventType(event),
    data: paymentData(payment, event._tag === "RefundSucceeded" ? event.refund_amount : undefined)
  }))

/**
 * Writes events with the change they describe. `record` writes events and queues one delivery per enabled endpoint
 * that subscribes to each, in three statements or so however many there are (the endpoints are looked up once per
 * account, mode and type). Call it inside the `transact` of the change: the change, its events and their deliveries
 * commit together or not at all, so nothing committed is ever left undelivered. The events are written in the order
 * given.
 */
export class EventRecorder extends Effect.Service<EventRecorder>()("fils/EventRecorder", {
  effect: Effect.gen(function*() {
    const eventRepo = yield* EventRepository
    const webhookRepo = yield* WebhookRepository

    const record = (drafts: ReadonlyArray<EventDraft>) =>
    Effect.gen(function*() {
      if (drafts.length === 0) return []
      // The real time, also for work on a test clock's time: the event and its deliveries happen now.
      const now = yield* eventTime
      const current = yield* FiberRef.get(CurrentRequestId)
      const events: Array<Event.Event> = []
      for (const { data, requestId, scope, type } of drafts) {
        events.push(Event.make({
          // Made on the real time too, so that ids sort as the events were recorded.
          id: yield* onRealTime(newId<EventId>(prefixes.event)),
          accountId: scope.accountId,
          livemode: scope.livemode,
          type,
          data,
          now,
          requestId: requestId === undefined ? current : requestId
        }))
      }
      yield* eventRepo.insertAll(events)
      const subscribers = new Map<string, ReadonlyArray<WebhookEndpoint>>()
      const deliveries: Array<Delivery> = []
      for (const event of events) {
        const key = `${event.account_id}\u0000${event.livemode}\u0000${event.type}`
        let endpoints = subscribers.get(key)
        if (endpoints === undefined) {
          endpoints = yield* webhookRepo.subscribed({ accountId: event.account_id, livemode: event.livemode }, event.type)
          subscribers.set(key, endpoints)
        }
        for (const endpoint of endpoints) {
          deliveries.push({
            delivery_id: yield* onRealTime(newId<DeliveryId>(prefixes.delivery)),
            event_id: event.event_id,
            webhook_id: endpoint.webhook_id,
            account_id: event.account_id,
            livemode: event.livemode,
            status: "pending",
            attempts: 0,
            next_attempt_at: now,
            last_status_code: null,
            last_error: null,
            created_at: now,
            updated_at: now
          })
        }
      }
      if (deliveries.length > 0) yield* webhookRepo.deliveries.enqueue(deliveries)
      return events
    })

    /** `record` for one. */
    const recordOne = (scope: Scope, type: Event.EventType, data: Record<string, unknown>) =>
      Effect.map(record([{ scope, type, data }]), (events) => events[0]!)

    return { record, recordOne } as const
  })
}) {}

export class Events extends Effect.Service<Events>()("fils/Events", {
  effect: Effect.gen(function*() {
    const eventRepo = yield* EventRepository

    const get = Effect.fn("Events.get")(function*(scope: Scope, id: EventId) {
      const found = yield* eventRepo.get(scope, id)
      return Option.isSome(found) ? found.value : yield* notFound("event", id)
    })

    const list = Effect.fn("Events.list")(function*(scope: Scope, params: EventListParams) {
      const filter = {
        type: params.type,
        payment_id: params.payment_id,
        subscription_id: params.subscription_id,
        request_id: params.request_id
      }
      const key = Pagination.listKey("events", filter)
      const page = yield* Pagination.pageRequest(key, params)
      const result = yield* eventRepo.list(scope, filter, page)
      return Pagination.toList(key, result, Event.position)
    })

    return { get, list } as const
  })
}) {}

/**
 * Events (docs/webhooks.md, docs/decisions.md §7): the record of what happened, written in the same transaction as
 * the change, with `data` the object right after it.
 */
import { DateTime, Schema } from "effect"
import { AccountId, EventId } from "./Ids.js"
import * as Pagination from "./Pagination.js"

export const EventType = Schema.Literal(
  "payment.succeeded",
  "payment.failed",
  "refund.succeeded",
  "subscription.active",
  "subscription.renewed",
  "subscription.on_hold",
  "subscription.cancelled",
  "invoice.issued",
  "credit_note.issued",
  "subscription.plan_changed",
  "webhook.disabled"
).annotations({ identifier: "EventType" })
export type EventType = typeof EventType.Type
export const eventTypes: ReadonlyArray<EventType> = EventType.literals

/**
 * Types an endpoint receives only when it names them: an endpoint made without a list of types, and every endpoint
 * made before they existed, keeps receiving exactly the types it received (docs/webhooks.md).
 */
export const byNameOnly: ReadonlyArray<EventType> = [
  "invoice.issued",
  "credit_note.issued",
  "subscription.plan_changed",
  "webhook.disabled"
]

/** What an endpoint made without a list of types subscribes to. */
export const defaultEventTypes: ReadonlyArray<EventType> = eventTypes.filter((t) => !byNameOnly.includes(t))

const resourceFields = {
  object: Schema.Literal("event"),
  event_id: EventId,
  type: EventType,
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  request_id: Schema.NullOr(Schema.String).annotations({
    description: "The id of the API request that caused it (its request log line's `request_id`), or null when none did " +
      "(billing, a customer on a hosted page, the dashboard)"
  })
}
export const EventResource = Schema.Struct(resourceFields).annotations({ identifier: "Event" })
export const Event = Schema.Struct({ ...resourceFields, account_id: AccountId })
export type Event = typeof Event.Type

export const make = (props: {
  readonly id: EventId
  readonly accountId: AccountId
  readonly livemode: boolean
  readonly type: EventType
  readonly data: Record<string, unknown>
  readonly now: DateTime.Utc
  readonly requestId?: string | null | undefined
}): Event => ({
  object: "event",
  event_id: props.id,
  account_id: props.accountId,
  livemode: props.livemode,
  type: props.type,
  created_at: props.now,
  data: props.data,
  request_id: props.requestId ?? null
})

/**
 * The objects an event is about, by id: the payment (its own events and its refunds') and the subscription (its
 * own, and its payments'). A timeline lists the events of one of them (`EventFilter`).
 */
export const subjects = (event: Pick<Event, "data">): {
  readonly payment_id: string | null
  readonly subscription_id: string | null
} => {
  const { payment_id, subscription_id } = event.data
  return {
    payment_id: typeof payment_id === "string" ? payment_id : null,
    subscription_id: typeof subscription_id === "string" ? subscription_id : null
  }
}

/**
 * The body of a webhook delivery: `{ id, type, livemode, created_at, data }` (`id`, not `event_id`). A test event
 * (`POST /webhooks/{id}/test`) also carries `"test": true`, inside what is signed, so a receiver can trust it and
 * leave the example objects alone.
 */
export const deliveryBody = (
  event: Pick<Event, "event_id" | "type" | "livemode" | "created_at" | "data">,
  test = false
) => ({
  id: event.event_id,
  type: event.type,
  livemode: event.livemode,
  created_at: DateTime.formatIso(event.created_at),
  data: event.data,
  ...(test ? { test: true as const } : {})
})

/** Where a event stands in a newest-first list. */
export const position = Pagination.byCreation<Event>((e) => e.created_at, (e) => e.event_id)

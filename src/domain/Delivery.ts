/**
 * Webhook deliveries (docs/decisions.md §7): one per (event, subscribed enabled endpoint), queued in the event's
 * transaction, attempted until a 2xx or until eight attempts failed, on the Standard Webhooks schedule.
 */
import { DateTime, Duration, Schema } from "effect"
import { deliveryBody, type Event, EventType } from "./Event.js"
import { AccountId, DeliveryId, EventId, WebhookId } from "./Ids.js"
import * as Pagination from "./Pagination.js"

/** Waits after each failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (eight attempts, ≈27.6 h). */
export const retrySchedule: ReadonlyArray<Duration.Duration> = [
  Duration.seconds(5),
  Duration.minutes(5),
  Duration.minutes(30),
  Duration.hours(2),
  Duration.hours(5),
  Duration.hours(10),
  Duration.hours(10)
]
export const maxAttempts = retrySchedule.length + 1

/** How long a receiver has to answer. */
export const timeout = Duration.seconds(10)

/**
 * Attempts one server runs at once. Claims and records are batched, so the more attempts are in flight the more
 * each round trip carries: 128 slots with the caps below measured 1,066–1,774 deliveries/s in
 * `bench/profile-deliveries.ts` (3,000 events × 3 endpoints) against 719–1,084 with 64 slots (caps 8 and 32), and
 * 0.33–0.39 PostgreSQL CPU ms per delivery against 0.56–0.72.
 */
export const dispatchSlots = 128

/**
 * At most this many attempts to one endpoint run at once (across all servers), a quarter of a server's slots: a
 * hanging receiver ties up some dispatch slots for at most `timeout`, never all of them, so other endpoints'
 * deliveries keep flowing; a fast one gets a deep enough pipeline to keep up with a burst.
 */
export const inFlightPerEndpoint = 32

/**
 * At most this many attempts of one account run at once (across all servers), half a server's `dispatchSlots`: a
 * merchant whose endpoints all hang (two at the per-endpoint cap already) never holds more than half the slots, so
 * other merchants' deliveries keep flowing, while one merchant's burst to a few fast endpoints still fills its
 * pipeline.
 */
export const inFlightPerAccount = 64

export const DeliveryStatus = Schema.Literal("pending", "succeeded", "failed", "cancelled")
export type DeliveryStatus = typeof DeliveryStatus.Type

/** One delivery of one event to one endpoint, with its attempts so far. */
export const Delivery = Schema.Struct({
  delivery_id: DeliveryId,
  event_id: EventId,
  webhook_id: WebhookId,
  account_id: AccountId,
  livemode: Schema.Boolean,
  status: DeliveryStatus,
  /** Attempts started so far (a claimed attempt counts even if its server died before sending). */
  attempts: Schema.NonNegativeInt,
  next_attempt_at: Schema.NullOr(Schema.DateTimeUtc),
  last_status_code: Schema.NullOr(Schema.Int),
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
})
export type Delivery = typeof Delivery.Type

export interface AttemptOutcome {
  readonly ok: boolean
  /** The HTTP status, when the receiver answered. */
  readonly statusCode: number | null
  /** Why it failed without an answer (timeout, refused, an internal address…). */
  readonly error: string | null
  readonly durationMillis: number
  /** The start of the receiver's answer (at most `answerLimitBytes` are kept: `boundAnswer`). */
  readonly answer?: string | undefined
}

/**
 * What an attempt kept of what it sent: the headers Fils set, with its own timestamp and signatures. The body is the
 * same on every attempt (`requestBody` of the event), so it is not stored per attempt but made again when shown.
 */
export interface SentRequest {
  readonly headers: Readonly<Record<string, string>>
}

/**
 * The exact body every attempt of a delivery sends: the event's delivery body as JSON (`Event.deliveryBody`). The one
 * place it is made, so the delivery log's body is byte for byte what was signed.
 */
export const requestBody = (
  event: Pick<Event, "event_id" | "type" | "livemode" | "created_at" | "data">,
  test: boolean
): string => JSON.stringify(deliveryBody(event, test))

/**
 * How much of a receiver's answer is kept with its attempt (docs/webhooks.md "Delivery log"): enough to read an
 * error page's message, never a whole download.
 */
export const answerLimitBytes = 4096

const utf8Size = (char: string): number => {
  const code = char.codePointAt(0)!
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
}

/** The length of `text` in UTF-8 bytes (a body's `content-length`). */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (const char of text) bytes += utf8Size(char)
  return bytes
}

/** `text` cut to at most `answerLimitBytes` bytes of UTF-8, never in the middle of a character. */
export const boundAnswer = (text: string): string => {
  let bytes = 0
  let end = 0
  for (const char of text) {
    bytes += utf8Size(char)
    if (bytes > answerLimitBytes) break
    end += char.length
  }
  return text.slice(0, end)
}

/**
 * The most deliveries one page of a delivery log carries: each brings up to `maxAttempts` answers of up to
 * `answerLimitBytes` and its body, so a page stays under about 1 MB (20 × 8 × 4 KiB answers, plus bodies and
 * headers) where other lists' 100 would reach several.
 */
export const pageMax = 20

/** One recorded attempt of a delivery, as the delivery log shows it. */
export const DeliveryAttempt = Schema.Struct({
  attempt: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  started_at: Schema.DateTimeUtc,
  /** The receiver's HTTP status; null when it did not answer (see `error`). */
  status_code: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  latency_ms: Schema.NonNegativeInt,
  /** The first 4 KiB of the receiver's answer; null when it did not answer or for attempts made before it was kept. */
  response_body: Schema.NullOr(Schema.String),
  /**
   * What was sent: the headers Fils set, with this attempt's timestamp and signatures (null for older attempts). The
   * body, the same on every attempt, is the delivery's `request_body`.
   */
  request: Schema.NullOr(Schema.Struct({
    headers: Schema.Record({ key: Schema.String, value: Schema.String })
  }))
}).annotations({ identifier: "WebhookDeliveryAttempt" })
export type DeliveryAttempt = typeof DeliveryAttempt.Type

/**
 * A delivery as the API and the dashboard show it: its event's type, whether it is a test, the body it sends, and
 * every attempt.
 */
export const DeliveryResource = Schema.Struct({
  object: Schema.Literal("webhook_delivery"),
  delivery_id: DeliveryId,
  webhook_id: WebhookId,
  event_id: EventId,
  event_type: EventType,
  /** A test event (`POST /webhooks/{id}/test`): its body carries `"test": true`. */
  test: Schema.Boolean,
  status: DeliveryStatus,
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  next_attempt_at: Schema.NullOr(Schema.DateTimeUtc),
  /**
   * The exact body every attempt sends (the same each time): with an attempt's `request.headers` it is the signed
   * request, which `StandardWebhooks.verify` accepts.
   */
  request_body: Schema.String,
  attempts: Schema.Array(DeliveryAttempt)
}).annotations({ identifier: "WebhookDelivery" })
export type DeliveryResource = typeof DeliveryResource.Type

/** Where a delivery stands in a newest-first list. */
export const position = Pagination.byCreation<{ readonly created_at: DateTime.Utc; readonly delivery_id: string }>(
  (d) => d.created_at,
  (d) => d.delivery_id
)

/** After attempt number `attempts` (1-based) failed: when to try again, or undefined when it was the last. */
export const nextAttemptAt = (attempts: number, now: DateTime.Utc): DateTime.Utc | undefined => {
  const wait = retrySchedule[attempts - 1]
  return wait === undefined ? undefined : DateTime.addDuration(now, wait)
}

/** What an attempt's outcome makes of its delivery: succeeded, pending again at `next`, or failed for good. */
export const afterAttempt = (
  outcome: AttemptOutcome,
  next: DateTime.Utc | undefined
): { readonly status: DeliveryStatus; readonly nextAttemptAt: DateTime.Utc | null } =>
  outcome.ok
    ? { status: "succeeded", nextAttemptAt: null }
    : next === undefined
    ? { status: "failed", nextAttemptAt: null }
    : { status: "pending", nextAttemptAt: next }

/**
 * Whether attempt number `attempt`'s outcome still applies to its delivery: it is pending, still at that attempt,
 * and leased. A delivery cancelled, retried by hand (its lease dropped) or claimed again has moved on; the attempt
 * is recorded, the delivery left as it is. (Written again as SQL in the PostgreSQL store: StoreAgreement.test.ts
 * proves the two agree.)
 */
export const outcomeApplies = (
  delivery: { readonly status: DeliveryStatus; readonly attempts: number },
  leased: boolean,
  attempt: number
): boolean => delivery.status === "pending" && delivery.attempts === attempt && leased

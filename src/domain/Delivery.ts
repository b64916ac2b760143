/**
 * Webhook deliveries (decisions.md §7): one per (event, subscribed enabled endpoint), queued in the event's
 * transaction, attempted until a 2xx or until eight attempts failed, on the Standard Webhooks schedule.
 */
import { DateTime, Duration } from "effect"

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
 * At most this many attempts to one endpoint run at once (across all servers): a hanging receiver ties up a few
 * dispatch slots for at most `timeout`, never all of them, so other endpoints' deliveries keep flowing.
 */
export const inFlightPerEndpoint = 8

/**
 * At most this many attempts of one account run at once (across all servers), half a server's 64 dispatch slots: a
 * merchant whose endpoints all hang (four at the per-endpoint cap already) never holds every slot, so other
 * merchants' deliveries keep flowing, while one merchant's burst to a few fast endpoints still fills its pipeline
 * (16 measured 586 deliveries/s in `bench/profile-deliveries.ts` against 742 at 24).
 */
export const inFlightPerAccount = 32

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "cancelled"

export interface AttemptOutcome {
  readonly ok: boolean
  /** The HTTP status, when the receiver answered. */
  readonly statusCode: number | null
  /** Why it failed without an answer (timeout, refused, an internal address…). */
  readonly error: string | null
  readonly durationMillis: number
}

/** After attempt number `attempts` (1-based) failed: when to try again, or undefined when it was the last. */
export const nextAttemptAt = (attempts: number, now: DateTime.Utc): DateTime.Utc | undefined => {
  const wait = retrySchedule[attempts - 1]
  return wait === undefined ? undefined : DateTime.addDuration(now, wait)
}

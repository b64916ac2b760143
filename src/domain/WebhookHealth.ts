/**
 * An endpoint's health (docs/webhooks.md "Endpoint health"): the share of its attempts that failed over the last day,
 * and its failing streak, the start of the failures since its last successful attempt. An endpoint whose every
 * attempt has failed for `disableAfter`, at least `minFailures` of them, is disabled by Fils (`shouldDisable`), with a
 * `webhook.disabled` event.
 */
import { DateTime, Duration, Schema } from "effect"
import { maxAttempts } from "./Delivery.js"

/** The window the failure share is counted over. */
export const window = Duration.days(1)

/** How long every attempt must have failed before Fils disables the endpoint. */
export const disableAfter = Duration.days(3)

/** The start of the window the failure share counts at `now` (attempts started after it). */
export const windowStart = (now: DateTime.Utc): DateTime.Utc => DateTime.subtractDuration(now, window)

/**
 * How many failed attempts the streak must hold as well: one more than a single delivery makes in all
 * (`Delivery.maxAttempts`, 8 over ≈27.6 h). Time alone would disable an endpoint that failed once, then received
 * nothing for days, at its very next failure; with this count, one delivery failing after a quiet spell never
 * disables it by itself (it runs out of attempts as any would), while an endpoint that really is down for 3 days
 * fails far more often than this on any traffic (each delivery alone makes 8 attempts).
 */
export const minFailures = maxAttempts + 1

/** `disableAfter` in words, for what the merchant reads (the dashboard, `fils trigger`'s list). */
export const disableAfterText = `${Math.round(Duration.toHours(disableAfter) / 24)} days`

/** The rule in words: "every attempt has failed for 3 days (at least 9 failed attempts)". */
export const ruleText = (tense: "has" | "had"): string =>
  `every attempt ${tense} failed for ${disableAfterText} (at least ${minFailures} failed attempts)`

/** An endpoint's failing streak as the rule reads it. */
export interface Streak {
  /** The first failed attempt since the last successful one; null when the last attempt succeeded (or none was made). */
  readonly failingSince: DateTime.Utc | null
  /** The failed attempts of the streak, counted up to `minFailures` (more make no difference). */
  readonly failures: number
}

/**
 * Whether the streak has lasted `disableAfter` at `now`: the part of the rule a dispatcher can check on the streak's
 * start alone (a claim carries it), before `shouldDisable` reads the count. Never true without a streak.
 */
export const longEnough = (failingSince: DateTime.Utc | null, now: DateTime.Utc): boolean =>
  failingSince !== null &&
  DateTime.toEpochMillis(now) - DateTime.toEpochMillis(failingSince) >= Duration.toMillis(disableAfter)

/**
 * Whether an endpoint with this failing streak is to be disabled at `now`: every attempt has failed for at least
 * `disableAfter`, and at least `minFailures` of them. The one place this rule lives.
 */
export const shouldDisable = (streak: Streak, now: DateTime.Utc): boolean =>
  longEnough(streak.failingSince, now) && streak.failures >= minFailures

/** A recorded attempt as the streak sees it. */
export interface Outcome {
  readonly ok: boolean
  readonly startedAt: DateTime.Utc
}

/**
 * The start of the failing streak after the attempts of one record (a batch, as the store writes them in one
 * statement): a success clears the streak begun at or before it; the first failure after the batch's last success
 * starts one, or an earlier failure still stands. (Both stores keep it: the memory store calls this, PostgreSQL
 * states it in its record statement; the webhook store contract proves they agree.)
 */
export const failingSinceAfter = (
  since: DateTime.Utc | null,
  batch: ReadonlyArray<Outcome>
): DateTime.Utc | null => {
  const millis = (o: Outcome) => DateTime.toEpochMillis(o.startedAt)
  const oks = batch.filter((o) => o.ok).map(millis)
  const okAt = oks.length === 0 ? undefined : Math.max(...oks)
  const failures = batch.filter((o) => !o.ok && (okAt === undefined || millis(o) > okAt))
  const failedAt = failures.length === 0 ? undefined : failures.reduce((a, b) => (millis(b) < millis(a) ? b : a)).startedAt
  const kept = since !== null && (okAt === undefined || DateTime.toEpochMillis(since) > okAt) ? since : null
  if (kept === null) return failedAt ?? null
  if (failedAt === undefined) return kept
  return DateTime.toEpochMillis(failedAt) < DateTime.toEpochMillis(kept) ? failedAt : kept
}

/** An endpoint's health as the API's endpoint resource shows it. */
export const HealthResource = Schema.Struct({
  /** Attempts started over the last day. */
  attempts_last_day: Schema.NonNegativeInt,
  failed_last_day: Schema.NonNegativeInt,
  /** `failed_last_day / attempts_last_day`, from 0 to 1; null without attempts. */
  failure_rate_last_day: Schema.NullOr(Schema.Number),
  /** The first failed attempt since the last successful one; null when the last attempt succeeded. */
  failing_since: Schema.NullOr(Schema.DateTimeUtc),
  /** When Fils disabled the endpoint because every attempt had failed for 3 days (`shouldDisable`); null otherwise. */
  auto_disabled_at: Schema.NullOr(Schema.DateTimeUtc)
}).annotations({ identifier: "WebhookHealth" })
export type Health = typeof HealthResource.Type

/** What the store keeps of an endpoint's health. */
export interface Stored extends Streak {
  readonly attempts: number
  readonly failed: number
  readonly autoDisabledAt: DateTime.Utc | null
}

export const none: Stored = { attempts: 0, failed: 0, failingSince: null, failures: 0, autoDisabledAt: null }

export const toResource = (stored: Stored): Health => ({
  attempts_last_day: stored.attempts,
  failed_last_day: stored.failed,
  failure_rate_last_day: stored.attempts === 0 ? null : stored.failed / stored.attempts,
  failing_since: stored.failingSince,
  auto_disabled_at: stored.autoDisabledAt
})

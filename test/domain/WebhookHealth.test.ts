/**
 * Endpoint health (docs/webhooks.md "Endpoint health"): the three-day rule at its boundary, the failing streak a batch
 * of attempts leaves, and the bound on a kept answer.
 */
import { DateTime } from "effect"
import { describe, expect, it } from "vitest"
import { answerLimitBytes, boundAnswer, utf8Length } from "../../src/domain/Delivery.js"
import { disableAfterText, failingSinceAfter, minFailures, ruleText, shouldDisable } from "../../src/domain/WebhookHealth.js"

const T0 = Date.UTC(2026, 10, 21, 10, 0, 0)
const at = (millis: number) => DateTime.unsafeMake(millis)
const day = 24 * 3600_000

describe("WebhookHealth", () => {
  it("shouldDisable: failing for exactly 3 days, not a millisecond less, and never without a streak", () => {
    const streak = (since: number | null, failures = minFailures) => ({ failingSince: since === null ? null : at(since), failures })
    expect(shouldDisable(streak(T0), at(T0 + 3 * day))).toBe(true)
    expect(shouldDisable(streak(T0), at(T0 + 3 * day - 1))).toBe(false)
    expect(shouldDisable(streak(T0), at(T0 + 30 * day))).toBe(true)
    expect(shouldDisable(streak(null), at(T0 + 30 * day))).toBe(false)
  })

  it("shouldDisable: a quiet spell is no streak of failures; one failure 4 days ago and the next one do not disable", () => {
    // Failed once, then nothing for 4 days, then its next delivery fails: 2 failures.
    expect(shouldDisable({ failingSince: at(T0), failures: 2 }, at(T0 + 4 * day))).toBe(false)
    // That delivery's whole schedule failing too (8 attempts) is not enough on its own either…
    expect(minFailures).toBe(9)
    expect(shouldDisable({ failingSince: at(T0), failures: minFailures - 1 }, at(T0 + 5 * day))).toBe(false)
    // …one more failed attempt (another delivery) is.
    expect(shouldDisable({ failingSince: at(T0), failures: minFailures }, at(T0 + 5 * day))).toBe(true)
  })

  it("the rule in words follows its constants", () => {
    expect(disableAfterText).toBe("3 days")
    expect(ruleText("had")).toBe("every attempt had failed for 3 days (at least 9 failed attempts)")
  })

  it("failingSinceAfter: a success clears the streak begun before it; the first failure after the batch's last success starts one", () => {
    const fail = (m: number) => ({ ok: false, startedAt: at(T0 + m) })
    const ok = (m: number) => ({ ok: true, startedAt: at(T0 + m) })
    const millis = (d: DateTime.Utc | null) => (d === null ? null : DateTime.toEpochMillis(d) - T0)
    expect(millis(failingSinceAfter(null, [fail(10)]))).toBe(10)
    expect(millis(failingSinceAfter(at(T0 + 10), [fail(20)]))).toBe(10)
    expect(millis(failingSinceAfter(at(T0 + 10), [fail(5)])), "an earlier failure recorded late").toBe(5)
    expect(millis(failingSinceAfter(at(T0 + 10), [ok(5)])), "a success before the streak").toBe(10)
    expect(millis(failingSinceAfter(at(T0 + 10), [fail(25), ok(30)]))).toBe(null)
    expect(millis(failingSinceAfter(null, [fail(40), ok(35), fail(45)]))).toBe(40)
    expect(millis(failingSinceAfter(at(T0 + 40), [ok(50), fail(60)]))).toBe(60)
    expect(millis(failingSinceAfter(at(T0 + 40), []))).toBe(40)
  })

  it("boundAnswer keeps at most 4 KiB of UTF-8, never half a character", () => {
    expect(boundAnswer("x".repeat(10_000))).toBe("x".repeat(answerLimitBytes))
    const arabic = "مرحبا".repeat(1000) // two bytes a letter
    const kept = boundAnswer(arabic)
    expect(utf8Length(kept)).toBe(answerLimitBytes)
    expect(arabic.startsWith(kept)).toBe(true)
    const emoji = "a" + "😀".repeat(2000) // one byte, then four each: 4096 is not reached exactly
    expect(utf8Length(boundAnswer(emoji))).toBe(1 + 4 * 1023)
    expect(boundAnswer("short")).toBe("short")
  })
})

/**
 * Two-factor sign-in for dashboard users: time-based one-time passwords (TOTP, RFC 6238: HMAC-SHA-1, 30-second
 * steps, 6 digits, the secret 20 random bytes in base32, as authenticator apps expect), and recovery codes shown
 * once, kept only as digests, each usable once (docs/dashboard.md "Two-factor sign-in").
 */
import type { DateTime, Redacted } from "effect"
import type { UserId } from "./Ids.js"

export const stepSeconds = 30
export const digits = 6
/** Codes of one step before and after now are accepted too: a phone's clock a little off, a code typed slowly. */
export const window = 1
/** How many recovery codes are made at once. */
export const recoveryCodeCount = 10
/** The password step's sign-in waits this long for its code, at most. */
export const pendingMillis = 5 * 60 * 1000

/** A user's two-factor sign-in: on once `enabled_at` is set (an enrolment confirmed by a code). */
export interface TwoFactor {
  readonly user_id: UserId
  /** The shared secret, base32: sealed at rest like webhook secrets. */
  readonly secret: Redacted.Redacted<string>
  readonly enabled_at: DateTime.Utc | null
  /** The last step a code was accepted for: a code is accepted once, and none of an earlier step after it. */
  readonly last_step: number | null
  /** Digests of the recovery codes not used yet, keyed by `secret` (HMAC-SHA-256). */
  readonly recovery_codes: ReadonlyArray<string>
}

/** The TOTP step of an instant. */
export const stepAt = (millis: number): number => Math.floor(millis / 1000 / stepSeconds)

/** The steps whose codes are accepted at `millis`, now's first. */
export const acceptedSteps = (millis: number): ReadonlyArray<number> => {
  const now = stepAt(millis)
  return [now, ...Array.from({ length: window }, (_, i) => [now - i - 1, now + i + 1]).flat()]
}

/** A code as typed: its digits (spaces allowed between groups, as apps show them); `undefined` when it is not one. */
export const typedCode = (typed: string): string | undefined => {
  const code = typed.replace(/ /g, "")
  return new RegExp(`^\\d{${digits}}$`).test(code) ? code : undefined
}

/** A recovery code as typed, normalized (case and dashes do not matter); `undefined` when it cannot be one. */
export const typedRecoveryCode = (typed: string): string | undefined => {
  const code = typed.replace(/[\s-]/g, "").toLowerCase()
  return /^[a-z2-7]{10}$/.test(code) ? code : undefined
}

/** A recovery code as shown: two groups of five (`abcde-fghij`). */
export const shownRecoveryCode = (code: string): string => `${code.slice(0, 5)}-${code.slice(5)}`

/** The `otpauth://` URI an authenticator app reads (Key Uri Format): the issuer and the user's e-mail name it. */
export const otpauthUri = (props: { readonly issuer: string; readonly account: string; readonly secret: string }): string => {
  const label = `${encodeURIComponent(props.issuer)}:${encodeURIComponent(props.account)}`
  const query = new URLSearchParams({
    secret: props.secret,
    issuer: props.issuer,
    algorithm: "SHA1",
    digits: String(digits),
    period: String(stepSeconds)
  })
  return `otpauth://totp/${label}?${query.toString()}`
}

/**
 * Two-factor sign-in in the dashboard (`Users`): set it up (a secret shown as text and as an `otpauth://` link for an
 * authenticator app, confirmed by a code; the password asked for first), the recovery codes shown once, turning it
 * off with the password and a code. A user
 * whose account requires it is sent here after signing in, and reaches nothing else until it is on.
 */
import { DateTime, Effect, Either, Option, Redacted } from "effect"
import { Users } from "../../../src/application/Users.js"
import * as TwoFactor from "../../../src/domain/TwoFactor.js"
import { html, raw } from "../html/Html.js"
import type { Kit } from "./Kit.js"
import * as Pages from "./Pages.js"

/** A secret as an app's "enter a key" field shows it: groups of four. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, "$1 ").trim()

export const twoFactorRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const users = yield* Users
    const path = `${kit.base}/two-factor`

    const twoFactorPage = (
      signed: Parameters<Parameters<Kit["withUser"]>[0]>[0],
      f: Pages.SignedFrame,
      notice: { readonly error?: string; readonly startError?: string; readonly codes?: ReadonlyArray<string> } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const found = yield* users.twoFactorOf(signed.user.user_id)
        const required = yield* users.mustEnrol(signed)
        const field = (id: string, label: string, attributes: string, error = notice.error) =>
          html`<label for="${id}">${label}</label><input id="${id}" ${raw(attributes)}${
            error === undefined ? "" : raw(` aria-invalid="true" aria-describedby="${id}-error"`)
          }>${error === undefined ? "" : html`<p class="field-error" id="${id}-error">${error}</p>`}`
        // Starting (again) asks for the password: a borrowed session alone cannot tie sign-in to another app.
        const startForm = (id: string, button: string, attributes = "") =>
          Pages.form(f, `${path}/start`, html`${field(id, "Your password, to set it up", `name="password" type="password" autocomplete="current-password" required`, notice.startError)}
<p><button ${raw(attributes)}type="submit">${button}</button></p>`)
        const body = notice.codes !== undefined
          ? html`<div class="card"><h2>Two-factor sign-in is on</h2>
<p>Keep these recovery codes somewhere safe, apart from your phone: each signs you in once if you lose it. <b>They are shown only now.</b></p>
<ul id="recovery-codes" class="codes">${notice.codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<p><a href="${kit.base}/test">Continue to the dashboard</a></p></div>`
          : Option.isSome(found) && found.value.enabled_at !== null
          ? html`<div class="card"><h2>On</h2><p>Since ${Pages.when(f, found.value.enabled_at)}. Recovery codes left: <b>${String(found.value.recovery_codes.length)}</b> of ${String(TwoFactor.recoveryCodeCount)}.</p>${
            Pages.form(f, `${path}/disable`, html`${field("disable_password", "Your password, to turn it off", `name="password" type="password" autocomplete="current-password" required`, undefined)}
${field("disable_code", "A code from your app, or a recovery code", `name="code" autocomplete="one-time-code" required`)}
<p><button type="submit">Turn off two-factor sign-in</button></p>`)
          }</div>`
          : Option.isSome(found)
          ? html`<div class="card"><h2>1. Add Fils to your authenticator app</h2>
<p>In your app (Google Authenticator, 1Password, Authy…), add an account with this key, time-based:</p>
<p><code id="totp-secret">${grouped(Redacted.value(found.value.secret))}</code></p>
<p>On this phone, <a id="totp-uri" href="${TwoFactor.otpauthUri({ issuer: `Fils (${f.businessName})`, account: signed.user.email, secret: Redacted.value(found.value.secret) })}">open it in your app</a> instead.</p>
<h2>2. Type the code it shows</h2>${
            Pages.form(f, `${path}/confirm`, html`${field("totp_code", "6-digit code", `name="code" autocomplete="one-time-code" inputmode="numeric" required`)}
<p><button type="submit">Turn on</button></p>`)
          }${startForm("restart_password", "Start again with a new key", `class="link" `)}</div>`
          : html`<div class="card"><p>After your password, signing in asks for a code from an app on your phone, so a stolen password alone opens nothing.</p>${
            startForm("start_password", "Set up two-factor sign-in")
          }</div>`
        return kit.page(status, Pages.chrome(f, "Two-factor sign-in", html`${
          required && notice.codes === undefined
            ? html`<p class="alert" role="alert">Your account requires two-factor sign-in: set it up to continue.</p>`
            : ""
        }${body}`), f.nonce)
      })

    yield* kit.get("/dashboard/two-factor", kit.withEnrolling((signed, f) => twoFactorPage(signed, f)))

    yield* kit.post("/dashboard/two-factor/start", kit.withEnrollingPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const started = yield* Effect.either(users.startEnrolment(signed, Redacted.make(kit.field(params, "password")), yield* kit.address))
        if (Either.isLeft(started)) {
          const status = { RateLimited: 429, InvalidState: 409 }[started.left._tag as string] ?? 400
          return yield* twoFactorPage(signed, f, { startError: started.left.message }, status)
        }
        return kit.redirect(path)
      })))

    yield* kit.post("/dashboard/two-factor/confirm", kit.withEnrollingPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const confirmed = yield* Effect.either(users.confirmEnrolment(signed, kit.field(params, "code")))
        if (Either.isLeft(confirmed)) return yield* twoFactorPage(signed, f, { error: confirmed.left.message }, 400)
        yield* kit.audit(signed, "user.two_factor.enable", signed.user.user_id, null)
        // Shown in this answer only: a reload finds them gone (no-store).
        return yield* twoFactorPage(signed, f, { codes: confirmed.right.map(Redacted.value) })
      })))

    yield* kit.post("/dashboard/two-factor/disable", kit.withEnrollingPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const off = yield* Effect.either(users.disableTwoFactor(signed, Redacted.make(kit.field(params, "password")), kit.field(params, "code"), yield* kit.address))
        if (Either.isLeft(off)) {
          return yield* twoFactorPage(signed, f, { error: off.left.message }, off.left._tag === "RateLimited" ? 429 : 400)
        }
        yield* kit.audit(signed, "user.two_factor.disable", signed.user.user_id, null)
        return kit.done(f, path, `Two-factor sign-in is off since ${Pages.when(f, yield* DateTime.now)}.`)
      })))
  })

/**
 * Two-factor sign-in in the dashboard (`Users`): set it up (a secret shown as a QR code to scan, as text and as an
 * `otpauth://` link for an authenticator app, confirmed by a code; the password asked for first), the recovery codes shown once, turning it
 * off with the password and a code. A user
 * whose account requires it is sent here after signing in, and reaches nothing else until it is on.
 */
import { DateTime, Effect, Either, Option, Redacted } from "effect"
import { Users } from "../../../src/application/Users.js"
import * as TwoFactor from "../../../src/domain/TwoFactor.js"
import { renderSVG } from "uqr"
import { attempt } from "../html/Attempt.js"
import { html, raw } from "../html/Html.js"
import type { Kit } from "./Kit.js"
import * as Pages from "./Pages.js"
import { refusal } from "./Settings.js"

/**
 * The `otpauth://` link as a QR code to scan, drawn on the server (an SVG of squares, no script); named for a screen
 * reader, which reads the key below it instead.
 */
const qrCode = (uri: string, label: string) =>
  html`<div class="qr" role="img" aria-label="${label}">${raw(renderSVG(uri, { border: 2 }).replace("<svg ", `<svg aria-hidden="true" `))}</div>`

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
        const t = f.t.twoFactor
        const found = yield* users.twoFactorOf(signed.user.user_id)
        const required = yield* users.mustEnrol(signed)
        const field = (id: string, label: string, attributes: string, error = notice.error) =>
          html`<label for="${id}">${label}</label><input id="${id}" ${raw(attributes)}${
            error === undefined ? "" : raw(` aria-invalid="true" aria-describedby="${id}-error"`)
          }>${error === undefined ? "" : html`<p class="field-error" id="${id}-error">${error}</p>`}`
        // Starting (again) asks for the password: a borrowed session alone cannot tie sign-in to another app.
        const startForm = (id: string, button: string, attributes = "") =>
          Pages.form(f, `${path}/start`, html`${field(id, t.passwordToSetUp, `name="password" type="password" autocomplete="current-password" required`, notice.startError)}
<p><button ${raw(attributes)}type="submit">${button}</button></p>`)
        const uri = Option.isSome(found)
          ? TwoFactor.otpauthUri({ issuer: `Fils (${f.businessName})`, account: signed.user.email, secret: Redacted.value(found.value.secret) })
          : ""
        const body = notice.codes !== undefined
          ? html`<div class="card"><h2>${t.nowOn}</h2>
<p>${t.keepCodes} <b>${t.shownOnce}</b></p>
<ul id="recovery-codes" class="codes">${notice.codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<p><a href="${kit.base}/test">${t.continue}</a></p></div>`
          : Option.isSome(found) && found.value.enabled_at !== null
          ? html`<div class="card"><h2>${t.on}</h2><p>${t.since(Pages.when(f, found.value.enabled_at))} ${t.codesLeft} <b>${Pages.count(f, found.value.recovery_codes.length)}</b> ${
            t.ofTotal(Pages.count(f, TwoFactor.recoveryCodeCount))
          }</p>${
            Pages.form(f, `${path}/disable`, html`${field("disable_password", t.passwordToTurnOff, `name="password" type="password" autocomplete="current-password" required`, undefined)}
${field("disable_code", t.codeToTurnOff, `name="code" autocomplete="one-time-code" required`)}
<p><button type="submit">${t.turnOff}</button></p>`)
          }</div>`
          : Option.isSome(found)
          ? html`<div class="card"><h2>${t.addToApp}</h2>
${qrCode(uri, t.qrLabel)}
<p>${t.addKey}</p>
<p><code id="totp-secret">${grouped(Redacted.value(found.value.secret))}</code></p>
<p>${t.onThisPhone} <a id="totp-uri" href="${uri}">${t.openInApp}</a> ${t.instead}</p>
<h2>${t.typeCode}</h2>${
            Pages.form(f, `${path}/confirm`, html`${field("totp_code", t.sixDigitCode, `name="code" autocomplete="one-time-code" inputmode="numeric" required`)}
<p><button type="submit">${t.turnOn}</button></p>`)
          }${startForm("restart_password", t.startAgain, `class="link" `)}</div>`
          : html`<div class="card"><p>${t.intro}</p>${startForm("start_password", t.setUp)}</div>`
        return kit.page(status, Pages.chrome(f, t.title, html`${
          required && notice.codes === undefined
            ? html`<p class="alert" role="alert">${t.required}</p>`
            : ""
        }${body}`), f.nonce)
      })

    yield* kit.get("/dashboard/two-factor", kit.withEnrolling((signed, f) => twoFactorPage(signed, f)))

    yield* kit.post("/dashboard/two-factor/start", kit.withEnrollingPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const started = yield* attempt(users.startEnrolment(signed, Redacted.make(kit.field(params, "password")), yield* kit.address))
        if (Either.isLeft(started)) {
          const status = { RateLimited: 429, InvalidState: 409 }[started.left._tag as string] ?? 400
          return yield* twoFactorPage(signed, f, { startError: refusal(f, started.left) }, status)
        }
        return kit.redirect(path)
      })))

    yield* kit.post("/dashboard/two-factor/confirm", kit.withEnrollingPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const confirmed = yield* attempt(users.confirmEnrolment(signed, kit.field(params, "code")))
        if (Either.isLeft(confirmed)) return yield* twoFactorPage(signed, f, { error: refusal(f, confirmed.left) }, 400)
        yield* kit.audit(signed, "user.two_factor.enable", signed.user.user_id, null)
        // Shown in this answer only: a reload finds them gone (no-store).
        return yield* twoFactorPage(signed, f, { codes: confirmed.right.map(Redacted.value) })
      })))

    yield* kit.post("/dashboard/two-factor/disable", kit.withEnrollingPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const off = yield* attempt(users.disableTwoFactor(signed, Redacted.make(kit.field(params, "password")), kit.field(params, "code"), yield* kit.address))
        if (Either.isLeft(off)) {
          return yield* twoFactorPage(signed, f, { error: refusal(f, off.left) }, off.left._tag === "RateLimited" ? 429 : 400)
        }
        yield* kit.audit(signed, "user.two_factor.disable", signed.user.user_id, null)
        return kit.done(f, path, f.t.twoFactor.turnedOff(Pages.when(f, yield* DateTime.now)))
      })))
  })

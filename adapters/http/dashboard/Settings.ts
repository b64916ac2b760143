/**
 * The dashboard's settings: the business name and support e-mail, the account's time zone (where the dashboard
 * shows times and counts days), and the tax profile that makes the account the
 * supplier of its tax documents (`settings`: owners and admins), the
 * team for owners (invite with a link shown to copy, change a role, remove; an account always keeps an owner), and
 * each user's own sign-in (anyone, for themselves): their e-mail and password (the current password asked for), and
 * their sessions (each signed out alone, all others, or everywhere).
 */
import { Effect, Either, Option, Redacted } from "effect"
import { Accounts } from "../../../src/application/Accounts.js"
import { Settings } from "../../../src/application/Settings.js"
import { type Signed, Users } from "../../../src/application/Users.js"
import { can, type Role, roles } from "../../../src/domain/DashboardUser.js"
import { parseId, UserId } from "../../../src/domain/Ids.js"
import { timeZones } from "../../../src/domain/TimeZone.js"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { unchanged, withFlash } from "../html/Forms.js"
import { attempt } from "../html/Attempt.js"
import { html, raw } from "../html/Html.js"
import * as Confirm from "./Confirm.js"
import { confirmLink } from "./Confirm.js"
import * as Pages from "./Pages.js"
import type { Kit } from "./Kit.js"
import type { FieldErrors } from "./Fields.js"
import { decodeProfileForm, type ProfileForm, profileControls, profileForm, profileSummary, typedProfile } from "./TaxForms.js"

const userIdOf = parseId(UserId)

/** The business form's fields, as shown or as typed. */
interface BusinessForm {
  readonly business_name: string
  readonly support_email: string
}
const isRole = (value: string): value is Role => (roles as ReadonlyArray<string>).includes(value)

/** Set when the support e-mail's prompt was skipped: it is not asked again until the browser ends its session. */
export const skipCookie = "fils_support_prompt"

/**
 * The home page's prompt for the account's support e-mail (the customer portal shows it to customers), while the
 * account has none: set it here, or skip; never in the way of anything else.
 */
// The prompt's forms name the mode of the home page they are on: its answer goes back there.
export const supportPrompt = (f: Pages.SignedFrame, mode = html`<input type="hidden" name="mode" value="${f.livemode ? "live" : "test"}">`) => {
  const t = f.t.settings.prompt
  return html`<div class="card" id="support-prompt"><h2>${t.heading}</h2>
<p>${t.help}</p>${
    Pages.form(f, `${f.base}/support-email`, html`<label for="prompt_support_email">${t.supportEmail}</label>
<input id="prompt_support_email" name="support_email" type="email" autocomplete="email" required> <button type="submit">${f.t.settings.save}</button>${mode}`)
  }${Pages.form(f, `${f.base}/support-email/skip`, html`${mode}<p><button class="link" type="submit">${t.skip}</button></p>`)}</div>`
}

/**
 * An engine's refusal of the user's own sign-in change in the page's language: too many tries with the seconds to
 * wait, else by its words (`Pages.refused`).
 */
export const refusal = (f: Pages.Frame, error: { readonly _tag: string; readonly message: string; readonly retryAfterSeconds?: number }) =>
  error._tag === "RateLimited" ? f.t.frame.rateLimited(error.retryAfterSeconds ?? 1, error.message) : Pages.refused(f, error.message)

export const settingsRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const users = yield* Users
    const { publicUrl } = yield* Settings
    const secure = new URL(publicUrl).protocol === "https:"

    const settingsPage = (
      signed: Signed,
      f: Pages.SignedFrame,
      notice: {
        readonly error?: string
        readonly invite?: string
        readonly typed?: BusinessForm
        /** A refused change of the user's own e-mail (as typed) or password: why, at its form. */
        readonly own?: { readonly email?: { readonly typed: string; readonly error: string }; readonly password?: string }
        /** A refused time zone: as chosen, and why. */
        readonly zone?: { readonly typed: string; readonly error: string }
        /** A refused tax profile: as typed, and why, by field. */
        readonly profile?: { readonly typed: ProfileForm; readonly errors: FieldErrors }
      } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const account = yield* accounts.get(f.user.account_id)
        const team = can(f.user.role, "team") ? yield* users.team(f.user.account_id) : []
        const settings = can(f.user.role, "settings")
        const sessions = yield* users.sessions(signed)
        const twoFactor = yield* users.twoFactorOf(signed.user.user_id)
        const twoFactorOn = Option.exists(twoFactor, (t) => t.enabled_at !== null)
        /** A field's error, announced with it (`aria-describedby`). */
        const invalid = (id: string, error: string | undefined) =>
          error === undefined ? "" : raw(` aria-invalid="true" aria-describedby="${id}-error"`)
        const errorOf = (id: string, error: string | undefined) =>
          error === undefined ? "" : html`<p class="field-error" id="${id}-error">${error}</p>`
        const shown = notice.typed ?? { business_name: account.business_name ?? "", support_email: account.support_email ?? "" }
        const t = f.t.settings
        return kit.page(status, Pages.chrome(f, t.title, html`
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
${notice.invite === undefined ? "" : html`<p class="done" role="status">${t.team.inviteLink}<br><code id="invite-link">${notice.invite}</code></p>`}
<div class="card"><h2>${t.business.heading}</h2>${
          settings
            ? Pages.form(f, `${kit.base}/settings`, html`
<label for="business_name">${t.business.name}</label><input id="business_name" name="business_name" value="${shown.business_name}">
<label for="support_email">${t.business.supportEmail}</label><input id="support_email" name="support_email" type="email" value="${shown.support_email}">
<p><button type="submit">${t.save}</button></p>`)
            : html`<p>${account.business_name ?? ""} · ${account.support_email ?? ""}</p>`
        }</div>
<div class="card" id="time-zone"><h2>${t.timeZone.heading}</h2>${
          settings
            ? Pages.form(f, `${kit.base}/settings/time-zone`, html`
<label for="time_zone">${t.timeZone.label}</label>
<select id="time_zone" name="time_zone"${raw(notice.zone === undefined ? "" : ` aria-invalid="true" aria-describedby="time_zone-error"`)}>${
              timeZones().map((z) => html`<option value="${z}"${raw(z === (notice.zone?.typed ?? account.time_zone) ? " selected" : "")}>${z}</option>`)
            }</select>${notice.zone === undefined ? "" : html`<p class="field-error" id="time_zone-error">${notice.zone.error}</p>`}
<p class="muted">${t.timeZone.apiInUtc}</p>
<p><button type="submit">${t.timeZone.save}</button></p>`)
            : html`<p>${account.time_zone}</p>`
        }</div>
<div class="card" id="tax-profile"><h2>${t.taxProfile.heading}</h2>
${account.tax_profile === null ? html`<p class="muted">${t.taxProfile.none}</p>` : profileSummary(f, account.tax_profile)}
${
          settings
            ? html`${notice.profile === undefined ? "" : html`<p class="alert" role="alert">${t.taxProfile.notSaved}</p>`}${
              Pages.form(f, `${kit.base}/settings/tax-profile`, html`
${profileControls(f, notice.profile?.typed ?? profileForm(account.tax_profile), notice.profile?.errors ?? {})}
<p><button type="submit">${t.taxProfile.save}</button></p>`)
            }${
              account.tax_profile === null
                ? ""
                : Pages.form(f, `${kit.base}/settings/tax-profile/remove`, html`<p><button class="link" type="submit">${t.taxProfile.remove}</button></p>`)
            }`
            : ""
        }</div>
${
          can(f.user.role, "team")
            ? html`<div class="card"><h2>${t.team.heading}</h2><table><tbody>${
              team.map((u) =>
                html`<tr><td>${u.email}</td><td>${
                  Pages.form(f, `${kit.base}/settings/team/${u.user_id}/role`, html`<select name="role" aria-label="${t.team.roleOf(u.email)}">${
                    roles.map((r) => html`<option value="${r}"${raw(r === u.role ? " selected" : "")}>${f.t.frame.roles[r]}</option>`)
                  }</select> <button class="link" type="submit">${t.team.changeRole}</button>`)
                }</td><td>${u.password_hash === null ? t.team.invited : t.team.active}</td><td>${
                  confirmLink(`${kit.base}/settings/team/${u.user_id}/remove`, t.team.remove, { label: t.team.removeWho(u.email) })
                }</td></tr>`
              )
            }</tbody></table>${
              Pages.form(f, `${kit.base}/settings/team`, html`
<label for="invite_email">${t.team.inviteEmail}</label><input id="invite_email" name="email" type="email" required>
<select name="role" aria-label="${t.team.role}">${roles.map((r) => html`<option value="${r}"${raw(r === "developer" ? " selected" : "")}>${f.t.frame.roles[r]}</option>`)}</select>
<button type="submit">${t.team.invite}</button>`)
            }</div>`
            : ""
        }
<div class="card" id="you"><h2>${t.you.heading}</h2>
<h3>${t.you.email}</h3>${
          Pages.form(f, `${kit.base}/settings/email`, html`
<label for="new_email">${t.you.emailLabel}</label><input id="new_email" name="email" type="email" autocomplete="email" required value="${notice.own?.email?.typed ?? f.user.email}"${invalid("new_email", notice.own?.email?.error)}>${errorOf("new_email", notice.own?.email?.error)}
<label for="email_password">${t.you.yourPassword}</label><input id="email_password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">${t.you.changeEmail}</button></p>`)
        }
<h3>${t.you.password}</h3>${
          Pages.form(f, `${kit.base}/settings/password`, html`
<label for="current_password">${t.you.currentPassword}</label><input id="current_password" name="current_password" type="password" autocomplete="current-password" required${invalid("current_password", notice.own?.password)}>${errorOf("current_password", notice.own?.password)}
<label for="new_password">${t.you.newPassword}</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="12" required>
<p><button type="submit">${t.you.changePassword}</button></p>`)
        }
<h3>${t.you.twoFactor}</h3>
<p>${twoFactorOn ? t.you.twoFactorOn : t.you.twoFactorOff} <a href="${kit.base}/two-factor">${twoFactorOn ? t.you.manageTwoFactor : t.you.setUpTwoFactor}</a></p>${
          can(f.user.role, "team")
            ? Pages.form(f, `${kit.base}/settings/two-factor-required`, html`<label class="check"><input type="checkbox" name="required" value="on"${
              raw(account.two_factor_required ? " checked" : "")
            }> ${t.you.requireTwoFactor}</label>
<p><button type="submit">${t.save}</button></p>`)
            : account.two_factor_required
            ? html`<p class="muted">${t.you.requiredHere}</p>`
            : ""
        }
<h3>${t.sessions.heading}</h3>
<table><thead><tr><th>${t.sessions.signedIn}</th><th>${t.sessions.lastSeen}</th><th></th></tr></thead><tbody>${
          sessions.map((s) =>
            html`<tr><td data-label="${t.sessions.signedIn}">${Pages.when(f, s.created_at)}</td><td data-label="${t.sessions.lastSeen}">${Pages.when(f, s.last_seen_at)}</td><td>${
              s.current
                ? html`<b>${t.sessions.thisBrowser}</b>`
                : Pages.form(f, `${kit.base}/settings/sessions/${s.handle}/sign-out`, html`<button class="link" type="submit" aria-label="${t.sessions.signOutLabel(Pages.when(f, s.created_at))}">${t.sessions.signOut}</button>`)
            }</td></tr>`
          )
        }</tbody></table>
<p>${
          sessions.length > 1
            ? Pages.form(f, `${kit.base}/settings/sign-out-others`, html`<button type="submit">${t.sessions.signOutOthers}</button>`)
            : ""
        } ${Pages.form(f, `${kit.base}/settings/sign-out-everywhere`, html`<button class="link" type="submit">${t.sessions.signOutEverywhere}</button>`)}</p></div>`), f.nonce)
      })

    yield* kit.get("/dashboard/settings", kit.withUser((signed, f) => settingsPage(signed, f)))

    yield* kit.post("/dashboard/settings", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "settings")) return kit.page(403, Pages.forbiddenPage(f, f.t.settings.notAllowed(f.t.frame.roles[signed.user.role])), f.nonce)
        // Taken exactly as typed, a name sent back as shown kept byte for byte; an empty support e-mail means none.
        const typed: BusinessForm = { business_name: kit.field(params, "business_name"), support_email: kit.field(params, "support_email") }
        const account = yield* accounts.get(signed.user.account_id)
        const updated = yield* attempt(kit.audited(signed, "account.update", signed.user.account_id, null, accounts.update(signed.user.account_id, {
          business_name: unchanged(typed.business_name, account.business_name, "input"),
          support_email: typed.support_email === "" ? null : typed.support_email
        })))
        if (Either.isLeft(updated)) return yield* settingsPage(signed, f, { error: Pages.refused(f, updated.left.message), typed }, 400)
        return kit.done(f, `${kit.base}/settings`, f.t.settings.business.saved)
      })))

    const settingsOnly = (signed: Parameters<Parameters<Kit["withPost"]>[0]>[0], f: Pages.SignedFrame) =>
      can(signed.user.role, "settings")
        ? undefined
        : kit.page(403, Pages.forbiddenPage(f, f.t.settings.notAllowed(f.t.frame.roles[signed.user.role])), f.nonce)

    // The time zone: one the server knows, or refused with nothing changed.
    yield* kit.post("/dashboard/settings/time-zone", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = settingsOnly(signed, f)
        if (refused !== undefined) return refused
        const typed = kit.field(params, "time_zone")
        const changed = yield* attempt(kit.audited(signed, "account.time_zone.update", signed.user.account_id, null, accounts.setTimeZone(signed.user.account_id, typed)))
        if (Either.isLeft(changed)) {
          return yield* settingsPage(signed, f, { zone: { typed, error: Pages.refused(f, changed.left.message) } }, changed.left._tag === "NotFound" ? 404 : 400)
        }
        return kit.done(f, `${kit.base}/settings`, f.t.settings.timeZone.changed(changed.right.time_zone))
      })))

    // The tax profile: decoded with the domain's own Schema, refused field by field with nothing saved.
    yield* kit.post("/dashboard/settings/tax-profile", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = settingsOnly(signed, f)
        if (refused !== undefined) return refused
        const typed = typedProfile((name) => kit.field(params, name))
        const account = yield* accounts.get(signed.user.account_id)
        const profile = decodeProfileForm(f, typed, account.tax_profile)
        if (Either.isLeft(profile)) return yield* settingsPage(signed, f, { profile: { typed, errors: profile.left } }, 400)
        const updated = yield* attempt(kit.audited(signed, "account.tax_profile.update", signed.user.account_id, null, accounts.update(signed.user.account_id, { tax_profile: profile.right })))
        if (Either.isLeft(updated)) return yield* settingsPage(signed, f, { error: Pages.refused(f, updated.left.message) }, 400)
        return kit.done(f, `${kit.base}/settings`, f.t.settings.taxProfile.saved)
      })))

    yield* kit.post("/dashboard/settings/tax-profile/remove", kit.withPost((signed, f) =>
      Effect.gen(function*() {
        const refused = settingsOnly(signed, f)
        if (refused !== undefined) return refused
        yield* kit.audited(signed, "account.tax_profile.remove", signed.user.account_id, null, accounts.update(signed.user.account_id, { tax_profile: null }))
        return kit.done(f, `${kit.base}/settings`, f.t.settings.taxProfile.removed)
      })))

    const ownersOnly = (signed: Parameters<Parameters<Kit["withPost"]>[0]>[0], f: Pages.SignedFrame) =>
      can(signed.user.role, "team") ? undefined : kit.page(403, Pages.forbiddenPage(f, f.t.settings.team.onlyOwners), f.nonce)

    yield* kit.post("/dashboard/settings/team", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = ownersOnly(signed, f)
        if (refused !== undefined) return refused
        const role = kit.field(params, "role")
        if (!isRole(role)) return yield* settingsPage(signed, f, { error: f.t.settings.team.chooseRole }, 400)
        const invited = yield* attempt(users.create(signed.user.account_id, kit.field(params, "email"), role))
        if (Either.isLeft(invited)) return yield* settingsPage(signed, f, { error: Pages.refused(f, invited.left.message) }, 400)
        yield* kit.audit(signed, "user.invite", invited.right.user.user_id, null)
        return yield* settingsPage(signed, f, { invite: `${publicUrl}/dashboard/sign-in/${Redacted.value(invited.right.token)}` })
      })))

    yield* kit.post("/dashboard/settings/team/:user/role", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = ownersOnly(signed, f)
        if (refused !== undefined) return refused
        const id = userIdOf(yield* kit.param("user"))
        const role = kit.field(params, "role")
        if (id === undefined || !isRole(role)) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const changed = yield* attempt(kit.audited(signed, `user.role.${role}`, id, null, users.changeRole(signed, id, role)))
        if (Either.isLeft(changed)) {
          const error = changed.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* settingsPage(signed, f, { error: Pages.refused(f, error.message) }, 409)
        }
        return kit.done(f, `${kit.base}/settings`, f.t.settings.team.roleChanged(changed.right.email, f.t.frame.roles[role]))
      })))

    /** What removing the route's teammate does; or the refusal (owners only; not this account's user). */
    const removal = (signed: Signed, f: Pages.SignedFrame) =>
      Effect.gen(function*() {
        const refused = ownersOnly(signed, f)
        if (refused !== undefined) return { refused } as const
        const id = userIdOf(yield* kit.param("user"))
        const user = id === undefined ? undefined : (yield* users.team(signed.user.account_id)).find((u) => u.user_id === id)
        if (user === undefined) return { refused: kit.page(404, Pages.notFoundPage(f), f.nonce) } as const
        const yourself = user.user_id === signed.user.user_id
        const t = f.t.settings.remove
        const role = f.t.frame.roles[user.role]
        const confirmation: Confirm.Confirmation = {
          title: yourself ? t.titleYourself : t.title(user.email),
          what: [yourself ? t.whatYourself(user.email, role) : t.what(user.email, role), t.auditStays, t.keepsOwner],
          action: `${kit.base}/settings/team/${user.user_id}/remove`,
          button: yourself ? t.buttonYourself : t.button(user.email),
          back: `${kit.base}/settings`
        }
        return { user, confirmation } as const
      })

    yield* kit.get("/dashboard/settings/team/:user/remove", kit.withUser((signed, f) =>
      Effect.map(removal(signed, f), (r) => "refused" in r ? r.refused : kit.page(200, Confirm.confirmPage(f, r.confirmation), f.nonce))))

    yield* kit.post("/dashboard/settings/team/:user/remove", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const checked = yield* removal(signed, f)
        if ("refused" in checked) return checked.refused
        if (!Confirm.isConfirmed(kit.field(params, Confirm.confirmField))) return kit.page(400, Confirm.confirmPage(f, checked.confirmation, true), f.nonce)
        const id = checked.user.user_id
        const removed = yield* attempt(kit.audited(signed, "user.remove", id, null, users.remove(signed, id)))
        if (Either.isLeft(removed)) {
          const error = removed.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* settingsPage(signed, f, { error: Pages.refused(f, error.message) }, 409)
        }
        if (removed.right.user_id === signed.user.user_id) return kit.redirect(`${kit.base}/login`)
        return kit.done(f, `${kit.base}/settings`, f.t.settings.team.removed(removed.right.email))
      })))

    yield* kit.post("/dashboard/settings/sign-out-everywhere", kit.withPost((signed) =>
      Effect.gen(function*() {
        yield* users.signOutEverywhere(signed)
        yield* kit.audit(signed, "user.sign_out_everywhere", signed.user.user_id, null)
        return kit.redirect(`${kit.base}/login`)
      })))

    // An owner's choice: every user of the account signs in with two factors.
    yield* kit.post("/dashboard/settings/two-factor-required", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = ownersOnly(signed, f)
        if (refused !== undefined) return refused
        const typed = kit.field(params, "required")
        if (typed !== "" && typed !== "on") return kit.page(400, Pages.forbiddenPage(f, f.t.settings.you.tickOrEmpty), f.nonce)
        const required = typed === "on"
        const set = yield* attempt(users.setTwoFactorRequired(signed, required))
        if (Either.isLeft(set)) return yield* settingsPage(signed, f, { error: Pages.refused(f, set.left.message) }, 409)
        yield* kit.audit(signed, required ? "account.two_factor.require" : "account.two_factor.allow", signed.user.account_id, null)
        return kit.done(f, `${kit.base}/settings`, required ? f.t.settings.you.twoFactorRequired : f.t.settings.you.twoFactorChoice)
      })))

    /** The home page of the mode the prompt was on (its `mode` field); the test mode's when it names none. */
    const homeOf = (params: Parameters<typeof kit.field>[0]) => `${kit.base}/${kit.field(params, "mode") === "live" ? "live" : "test"}`

    // The support e-mail's prompt (`supportPrompt`): saved, or skipped for this browser's session.
    yield* kit.post("/dashboard/support-email", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = settingsOnly(signed, f)
        if (refused !== undefined) return refused
        const typed = kit.field(params, "support_email")
        const home = homeOf(params)
        if (typed === "") return kit.redirect(withFlash(home, { tone: "alert", text: f.t.settings.prompt.empty }, f.csrf))
        const updated = yield* attempt(kit.audited(signed, "account.update", signed.user.account_id, null, accounts.update(signed.user.account_id, { support_email: typed })))
        if (Either.isLeft(updated)) return kit.redirect(withFlash(home, { tone: "alert", text: f.t.settings.prompt.notSaved(Pages.refused(f, updated.left.message), typed) }, f.csrf))
        return kit.done(f, home, f.t.settings.prompt.saved(typed))
      })))

    yield* kit.post("/dashboard/support-email/skip", kit.withPost((_, __, ___, params) =>
      Effect.succeed(kit.redirect(homeOf(params)).pipe(
        HttpServerResponse.setHeader("set-cookie", `${skipCookie}=1; Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`)
      ))))

    // The user's own sign-in: each refusal shown at its form, with nothing changed; guesses of the password are
    // limited as sign-ins are (`Users.failureLimits`).
    yield* kit.post("/dashboard/settings/email", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const typed = kit.field(params, "email")
        const changed = yield* attempt(users.changeEmail(signed, Redacted.make(kit.field(params, "password")), typed, yield* kit.address))
        if (Either.isLeft(changed)) {
          const error = changed.left
          const status = error._tag === "RateLimited" ? 429 : error._tag === "InvalidState" ? 409 : 400
          return yield* settingsPage(signed, f, { own: { email: { typed, error: refusal(f, error) } } }, status)
        }
        yield* kit.audit(signed, "user.email.update", signed.user.user_id, null)
        return kit.done(f, `${kit.base}/settings`, f.t.settings.you.emailChanged(changed.right.email))
      })))

    yield* kit.post("/dashboard/settings/password", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const changed = yield* attempt(users.changePassword(
          signed,
          Redacted.make(kit.field(params, "current_password")),
          Redacted.make(kit.field(params, "new_password")),
          yield* kit.address
        ))
        if (Either.isLeft(changed)) {
          const error = changed.left
          const status = error._tag === "RateLimited" ? 429 : 400
          return yield* settingsPage(signed, f, { own: { password: refusal(f, error) } }, status)
        }
        yield* kit.audit(signed, "user.password.update", signed.user.user_id, null)
        return kit.done(f, `${kit.base}/settings`, f.t.settings.you.passwordChanged)
      })))

    yield* kit.post("/dashboard/settings/sessions/:handle/sign-out", kit.withPost((signed, f) =>
      Effect.gen(function*() {
        const ended = yield* attempt(users.signOutSession(signed, yield* kit.param("handle")))
        if (Either.isLeft(ended)) return kit.done(f, `${kit.base}/settings`, Pages.refused(f, ended.left.message))
        yield* kit.audit(signed, "user.session.sign_out", signed.user.user_id, null)
        if (ended.right.current) return kit.redirect(`${kit.base}/login`)
        return kit.done(f, `${kit.base}/settings`, f.t.settings.sessions.signedOut)
      })))

    yield* kit.post("/dashboard/settings/sign-out-others", kit.withPost((signed, f) =>
      Effect.gen(function*() {
        yield* users.signOutOthers(signed)
        yield* kit.audit(signed, "user.sign_out_others", signed.user.user_id, null)
        return kit.done(f, `${kit.base}/settings`, f.t.settings.sessions.othersSignedOut)
      })))
  })

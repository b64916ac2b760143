/**
 * The dashboard's settings: the business name and support e-mail, the account's time zone (where the dashboard
 * shows times and counts days), and the tax profile that makes the account the
 * supplier of its tax documents (`settings`: owners and admins), the
 * team for owners (invite with a link shown to copy, change a role, remove; an account always keeps an owner), and
 * signing out everywhere (anyone, for themselves).
 */
import { Effect, Either, Redacted } from "effect"
import { Accounts } from "../../../src/application/Accounts.js"
import { Settings } from "../../../src/application/Settings.js"
import { Users } from "../../../src/application/Users.js"
import { can, type Role, roles } from "../../../src/domain/DashboardUser.js"
import { parseId, UserId } from "../../../src/domain/Ids.js"
import { timeZones } from "../../../src/domain/TimeZone.js"
import { unchanged } from "../html/Forms.js"
import { html, raw } from "../html/Html.js"
import type { Signed } from "../../../src/application/Users.js"
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

export const settingsRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const users = yield* Users
    const { publicUrl } = yield* Settings

    const settingsPage = (
      f: Pages.SignedFrame,
      notice: {
        readonly error?: string
        readonly invite?: string
        readonly typed?: BusinessForm
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
        const shown = notice.typed ?? { business_name: account.business_name ?? "", support_email: account.support_email ?? "" }
        return kit.page(status, Pages.chrome(f, "Settings", html`
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
${notice.invite === undefined ? "" : html`<p class="done" role="status">Send this sign-in link to them (it works once, for 24 hours):<br><code id="invite-link">${notice.invite}</code></p>`}
<div class="card"><h2>Business</h2>${
          settings
            ? Pages.form(f, `${kit.base}/settings`, html`
<label for="business_name">Business name</label><input id="business_name" name="business_name" value="${shown.business_name}">
<label for="support_email">Support e-mail</label><input id="support_email" name="support_email" type="email" value="${shown.support_email}">
<p><button type="submit">Save</button></p>`)
            : html`<p>${account.business_name ?? ""} · ${account.support_email ?? ""}</p>`
        }</div>
<div class="card" id="time-zone"><h2>Time zone</h2>${
          settings
            ? Pages.form(f, `${kit.base}/settings/time-zone`, html`
<label for="time_zone">Dates and times in the dashboard, and the days its totals count, are in</label>
<select id="time_zone" name="time_zone"${raw(notice.zone === undefined ? "" : ` aria-invalid="true" aria-describedby="time_zone-error"`)}>${
              timeZones().map((z) => html`<option value="${z}"${raw(z === (notice.zone?.typed ?? account.time_zone) ? " selected" : "")}>${z}</option>`)
            }</select>${notice.zone === undefined ? "" : html`<p class="field-error" id="time_zone-error">${notice.zone.error}</p>`}
<p class="muted">The API always answers in UTC.</p>
<p><button type="submit">Save time zone</button></p>`)
            : html`<p>${account.time_zone}</p>`
        }</div>
<div class="card" id="tax-profile"><h2>Tax profile</h2>
${account.tax_profile === null ? html`<p class="muted">None: no VAT is charged and no tax documents are issued.</p>` : profileSummary(account.tax_profile)}
${
          settings
            ? html`${notice.profile === undefined ? "" : html`<p class="alert" role="alert">The tax profile was not saved: correct the fields marked below.</p>`}${
              Pages.form(f, `${kit.base}/settings/tax-profile`, html`
${profileControls(notice.profile?.typed ?? profileForm(account.tax_profile), notice.profile?.errors ?? {})}
<p><button type="submit">Save tax profile</button></p>`)
            }${
              account.tax_profile === null
                ? ""
                : Pages.form(f, `${kit.base}/settings/tax-profile/remove`, html`<p><button class="link" type="submit">Remove the tax profile</button></p>`)
            }`
            : ""
        }</div>
${
          can(f.user.role, "team")
            ? html`<div class="card"><h2>Team</h2><table><tbody>${
              team.map((u) =>
                html`<tr><td>${u.email}</td><td>${
                  Pages.form(f, `${kit.base}/settings/team/${u.user_id}/role`, html`<select name="role" aria-label="Role of ${u.email}">${
                    roles.map((r) => html`<option value="${r}"${raw(r === u.role ? " selected" : "")}>${r}</option>`)
                  }</select> <button class="link" type="submit">Change role</button>`)
                }</td><td>${u.password_hash === null ? "invited" : "active"}</td><td>${
                  confirmLink(`${kit.base}/settings/team/${u.user_id}/remove`, "Remove…", { label: `Remove ${u.email}` })
                }</td></tr>`
              )
            }</tbody></table>${
              Pages.form(f, `${kit.base}/settings/team`, html`
<label for="invite_email">Invite by e-mail</label><input id="invite_email" name="email" type="email" required>
<select name="role" aria-label="Role">${roles.map((r) => html`<option value="${r}"${raw(r === "developer" ? " selected" : "")}>${r}</option>`)}</select>
<button type="submit">Invite</button>`)
            }</div>`
            : ""
        }
<div class="card"><h2>Your sessions</h2>${
          Pages.form(f, `${kit.base}/settings/sign-out-everywhere`, html`<button type="submit">Sign out everywhere</button>`)
        }</div>`), f.nonce)
      })

    yield* kit.get("/dashboard/settings", kit.withUser((_, f) => settingsPage(f)))

    yield* kit.post("/dashboard/settings", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "settings")) return kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot change the settings.`), f.nonce)
        // Taken exactly as typed, a name sent back as shown kept byte for byte; an empty support e-mail means none.
        const typed: BusinessForm = { business_name: kit.field(params, "business_name"), support_email: kit.field(params, "support_email") }
        const account = yield* accounts.get(signed.user.account_id)
        const updated = yield* Effect.either(accounts.update(signed.user.account_id, {
          business_name: unchanged(typed.business_name, account.business_name, "input"),
          support_email: typed.support_email === "" ? null : typed.support_email
        }))
        if (Either.isLeft(updated)) return yield* settingsPage(f, { error: updated.left.message, typed }, 400)
        yield* kit.audit(signed, "account.update", signed.user.account_id, null)
        return kit.done(f, `${kit.base}/settings`, "Saved.")
      })))

    const settingsOnly = (signed: Parameters<Parameters<Kit["withPost"]>[0]>[0], f: Pages.SignedFrame) =>
      can(signed.user.role, "settings")
        ? undefined
        : kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot change the settings.`), f.nonce)

    // The time zone: one the server knows, or refused with nothing changed.
    yield* kit.post("/dashboard/settings/time-zone", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = settingsOnly(signed, f)
        if (refused !== undefined) return refused
        const typed = kit.field(params, "time_zone")
        const changed = yield* Effect.either(accounts.setTimeZone(signed.user.account_id, typed))
        if (Either.isLeft(changed)) {
          return yield* settingsPage(f, { zone: { typed, error: changed.left.message } }, changed.left._tag === "NotFound" ? 404 : 400)
        }
        yield* kit.audit(signed, "account.time_zone.update", signed.user.account_id, null)
        return kit.done(f, `${kit.base}/settings`, `Times are now shown in ${changed.right.time_zone}.`)
      })))

    // The tax profile: decoded with the domain's own Schema, refused field by field with nothing saved.
    yield* kit.post("/dashboard/settings/tax-profile", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = settingsOnly(signed, f)
        if (refused !== undefined) return refused
        const typed = typedProfile((name) => kit.field(params, name))
        const account = yield* accounts.get(signed.user.account_id)
        const profile = decodeProfileForm(typed, account.tax_profile)
        if (Either.isLeft(profile)) return yield* settingsPage(f, { profile: { typed, errors: profile.left } }, 400)
        const updated = yield* Effect.either(accounts.update(signed.user.account_id, { tax_profile: profile.right }))
        if (Either.isLeft(updated)) return yield* settingsPage(f, { error: updated.left.message }, 400)
        yield* kit.audit(signed, "account.tax_profile.update", signed.user.account_id, null)
        return kit.done(f, `${kit.base}/settings`, "Tax profile saved.")
      })))

    yield* kit.post("/dashboard/settings/tax-profile/remove", kit.withPost((signed, f) =>
      Effect.gen(function*() {
        const refused = settingsOnly(signed, f)
        if (refused !== undefined) return refused
        yield* accounts.update(signed.user.account_id, { tax_profile: null })
        yield* kit.audit(signed, "account.tax_profile.remove", signed.user.account_id, null)
        return kit.done(f, `${kit.base}/settings`, "Tax profile removed: no VAT is charged and no tax documents are issued from now on.")
      })))

    const ownersOnly = (signed: Parameters<Parameters<Kit["withPost"]>[0]>[0], f: Pages.SignedFrame) =>
      can(signed.user.role, "team") ? undefined : kit.page(403, Pages.forbiddenPage(f, "Only owners manage the team."), f.nonce)

    yield* kit.post("/dashboard/settings/team", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = ownersOnly(signed, f)
        if (refused !== undefined) return refused
        const role = kit.field(params, "role")
        if (!isRole(role)) return yield* settingsPage(f, { error: "Choose a role" }, 400)
        const invited = yield* Effect.either(users.create(signed.user.account_id, kit.field(params, "email"), role))
        if (Either.isLeft(invited)) return yield* settingsPage(f, { error: invited.left.message }, 400)
        yield* kit.audit(signed, "user.invite", invited.right.user.user_id, null)
        return yield* settingsPage(f, { invite: `${publicUrl}/dashboard/sign-in/${Redacted.value(invited.right.token)}` })
      })))

    yield* kit.post("/dashboard/settings/team/:user/role", kit.withPost((signed, f, _, params) =>
      Effect.gen(function*() {
        const refused = ownersOnly(signed, f)
        if (refused !== undefined) return refused
        const id = userIdOf(yield* kit.param("user"))
        const role = kit.field(params, "role")
        if (id === undefined || !isRole(role)) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const changed = yield* Effect.either(users.changeRole(signed, id, role))
        if (Either.isLeft(changed)) {
          const error = changed.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* settingsPage(f, { error: error.message }, 409)
        }
        yield* kit.audit(signed, `user.role.${role}`, id, null)
        return kit.done(f, `${kit.base}/settings`, `${changed.right.email} is now ${role}.`)
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
        const confirmation: Confirm.Confirmation = {
          title: yourself ? "Remove yourself from the team?" : `Remove ${user.email}?`,
          what: [
            yourself
              ? `You (${user.email}, ${user.role}) lose access to this account at once: you are signed out everywhere, now.`
              : `${user.email} (${user.role}) loses access to this account at once: signed out of every session, and a sign-in link sent to them stops working.`,
            "What they did stays in the audit log. To let them back in, invite them again.",
            "An account always keeps an owner: the last owner cannot be removed."
          ],
          action: `${kit.base}/settings/team/${user.user_id}/remove`,
          button: yourself ? "Remove myself" : `Remove ${user.email}`,
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
        const removed = yield* Effect.either(users.remove(signed, id))
        if (Either.isLeft(removed)) {
          const error = removed.left
          return error._tag === "NotFound" ? kit.page(404, Pages.notFoundPage(f), f.nonce) : yield* settingsPage(f, { error: error.message }, 409)
        }
        yield* kit.audit(signed, "user.remove", id, null)
        if (removed.right.user_id === signed.user.user_id) return kit.redirect(`${kit.base}/login`)
        return kit.done(f, `${kit.base}/settings`, `Removed ${removed.right.email}.`)
      })))

    yield* kit.post("/dashboard/settings/sign-out-everywhere", kit.withPost((signed) =>
      Effect.gen(function*() {
        yield* users.signOutEverywhere(signed)
        yield* kit.audit(signed, "user.sign_out_everywhere", signed.user.user_id, null)
        return kit.redirect(`${kit.base}/login`)
      })))
  })

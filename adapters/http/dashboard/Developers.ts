/**
 * The dashboard's developers section: API keys of the mode (list, create with the secret shown once,
 * revoke), webhook endpoints (list, create), an endpoint's delivery log with resend, and the events. Test keys and
 * webhooks need `keys`, live ones `live_keys` (owners and admins: `canManageMode`); everyone else reads, and never
 * sees a secret.
 */
import * as UrlParams from "@effect/platform/UrlParams"
import { Effect, Either, Option, ParseResult, Redacted, Schema } from "effect"
import { Accounts, revealKey } from "../../../src/application/Accounts.js"
import { Deliveries } from "../../../src/application/Deliveries.js"
import { Webhooks } from "../../../src/application/Webhooks.js"
import { canManageMode } from "../../../src/domain/DashboardUser.js"
import { ApiKeyId, parseId, WebhookId } from "../../../src/domain/Ids.js"
import { EventType } from "../../../src/domain/Event.js"
import { WebhookCreate, WebhookUpdate } from "../../../src/domain/WebhookEndpoint.js"
import { onceField, unchanged } from "../html/Forms.js"
import { attempt, lookup } from "../html/Attempt.js"
import { html, raw } from "../html/Html.js"
import { describeDecodeError } from "../SchemaIssues.js"
import type { Signed } from "../../../src/application/Users.js"
import * as Confirm from "./Confirm.js"
import { confirmLink } from "./Confirm.js"
import * as Pages from "./Pages.js"
import { parseTime } from "./Parse.js"
import type * as Kit from "./Kit.js"
import { eventExample } from "../OpenApiDocument.js"

const keyIdOf = parseId(ApiKeyId)
const webhookIdOf = parseId(WebhookId)
const decodeWebhook = Schema.decodeUnknownEither(WebhookCreate, { onExcessProperty: "error", errors: "all" })
const decodeWebhookUpdate = Schema.decodeUnknownEither(WebhookUpdate, { onExcessProperty: "error", errors: "all" })
const eventTypes: ReadonlyArray<string> = EventType.literals
const decodeEventType = Schema.decodeUnknownEither(EventType)
/** How the recovery's time is typed (`Parse.parseTime` reads it). */
const timeFormat = "YYYY-MM-DD HH:MM"

/** Who may not manage keys or endpoints: the refusal in the page's language. */
const forbidden = (f: Pages.SignedFrame, signed: Signed, why: (role: string) => string) =>
  Pages.forbiddenPage(f, why(f.t.frame.roles[signed.user.role]))

export const developerRoutes = (kit: Kit.Kit) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const webhooks = yield* Webhooks
    const deliveries = yield* Deliveries

    const mayManage = canManageMode

    const keysPage = (
      frame: Pages.SignedFrame,
      scope: { readonly accountId: Pages.SignedFrame["user"]["account_id"]; readonly livemode: boolean },
      notice: {
        readonly secret?: string
        readonly error?: string
        /** A refused new endpoint's form as posted: its URL, and its one-time token (a refused post made nothing). */
        readonly typed?: { readonly url: string; readonly once: string }
      } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const keys = yield* accounts.keys(scope)
        const manage = mayManage(frame.user.role, scope.livemode)
        const endpoints = yield* webhooks.list(scope, { limit: 100 })
        const prefix = scope.livemode ? "sk_live_" : "sk_test_"
        const t = frame.t.developers.keys
        return kit.page(status, Pages.chrome(frame, t.title, html`
${notice.secret === undefined ? "" : html`<div class="done" role="status">${t.newKey}<br><code id="new-key">${notice.secret}</code></div>`}
${notice.error === undefined ? "" : html`<p class="alert" role="alert">${notice.error}</p>`}
<div class="card"><h2>${t.heading}</h2><table><thead><tr><th>${t.key}</th><th>${t.created}</th><th>${t.lastUsed}</th><th>${t.status}</th><th></th></tr></thead><tbody>${
          keys.map((k) =>
            html`<tr><td><code>${prefix}…${k.last4}</code> <small><code>${k.key_id}</code></small></td><td>${Pages.when(frame, k.created_at)}</td>
<td>${k.last_used_at === null ? t.never : Pages.when(frame, k.last_used_at)}</td>
<td>${k.revoked_at === null ? Pages.badge(frame, "active") : html`${Pages.badge(frame, "revoked")} ${Pages.when(frame, k.revoked_at)}`}</td><td>${
              manage && k.revoked_at === null
                ? confirmLink(`${Pages.modePath(frame)}/developers/keys/${k.key_id}/revoke`, t.revoke, { label: t.revokeLabel(k.last4) })
                : ""
            }</td></tr>`
          )
        }</tbody></table>${
          manage
            ? Pages.form(frame, `${Pages.modePath(frame)}/developers/keys`, html`<p><button type="submit">${t.create(scope.livemode)}</button></p>`)
            : ""
        }</div>
<div class="card"><h2>${t.logsHeading}</h2><p>${t.logsLine(`${Pages.modePath(frame)}/developers/logs`)}</p></div>
<div class="card"><h2>${t.endpointsHeading}</h2><table><thead><tr><th>${t.url}</th><th>${t.events}</th><th>${t.status}</th></tr></thead><tbody>${
          endpoints.items.map((w) =>
            html`<tr><td><a href="${Pages.modePath(frame)}/developers/webhooks/${w.webhook_id}"><bdi>${w.url}</bdi></a></td><td>${w.event_types.join(", ")}</td><td>${Pages.badge(frame, w.disabled ? "disabled" : "enabled")}</td></tr>`
          )
        }</tbody></table>${
          mayManage(frame.user.role, scope.livemode)
            ? Pages.onceForm(
              frame,
              `${Pages.modePath(frame)}/developers/webhooks`,
              html`<label for="url">${t.endpointUrl}</label><input id="url" name="url" size="50" value="${notice.typed?.url ?? ""}" required> <button type="submit">${t.addEndpoint}</button>`,
              { back: `${Pages.modePath(frame)}/developers`, once: notice.typed?.once }
            )
            : ""
        }</div>`), frame.nonce)
      })

    yield* kit.get("/dashboard/:mode/developers", kit.withUser((_, f, scope) => keysPage(f, scope)))

    yield* kit.post("/dashboard/:mode/developers/keys", kit.withPost((signed, f, scope) =>
      Effect.gen(function*() {
        if (!mayManage(signed.user.role, scope.livemode)) {
          return kit.page(403, forbidden(f, signed, (role) => f.t.developers.forbidden.createKeys(role, scope.livemode)), f.nonce)
        }
        const issued = yield* accounts.createKey(scope.accountId, scope.livemode ? "live" : "test")
        yield* kit.audit(signed, "api_key.create", issued.key_id, scope.livemode)
        return yield* keysPage(f, scope, { secret: revealKey(issued).secret })
      })))

    /** What revoking the route's key will do; or the refusal (not allowed, not this scope's, already revoked). */
    const revocation = (signed: Signed, f: Pages.SignedFrame, scope: Kit.Scope) =>
      Effect.gen(function*() {
        if (!mayManage(signed.user.role, scope.livemode)) {
          return { refused: kit.page(403, forbidden(f, signed, f.t.developers.forbidden.revokeKeys), f.nonce) } as const
        }
        const id = keyIdOf(yield* kit.param("key"))
        const mine = id === undefined ? undefined : (yield* accounts.keys(scope)).find((k) => k.key_id === id)
        if (mine === undefined) return { refused: kit.page(404, Pages.notFoundPage(f), f.nonce) } as const
        // Already revoked (the confirmation sent twice): said so, nothing more done.
        if (mine.revoked_at !== null) return { refused: kit.done(f, `${Pages.modePath(f)}/developers`, f.t.developers.keys.revoked(mine.last4)) } as const
        const name = `${scope.livemode ? "sk_live_" : "sk_test_"}…${mine.last4}`
        const t = f.t.developers.revoke
        const confirmation: Confirm.Confirmation = {
          title: t.title,
          what: [
            t.stops(name),
            t.integrations(mine.last_used_at === null ? null : Pages.when(f, mine.last_used_at)),
            t.final
          ],
          action: `${Pages.modePath(f)}/developers/keys/${mine.key_id}/revoke`,
          button: t.button(name),
          back: `${Pages.modePath(f)}/developers`
        }
        return { key: mine, confirmation } as const
      })

    yield* kit.get("/dashboard/:mode/developers/keys/:key/revoke", kit.withUser((signed, f, scope) =>
      Effect.map(revocation(signed, f, scope), (r) => "refused" in r ? r.refused : kit.page(200, Confirm.confirmPage(f, r.confirmation), f.nonce))))

    yield* kit.post("/dashboard/:mode/developers/keys/:key/revoke", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        const checked = yield* revocation(signed, f, scope)
        if ("refused" in checked) return checked.refused
        if (!Confirm.isConfirmed(kit.field(params, Confirm.confirmField))) return kit.page(400, Confirm.confirmPage(f, checked.confirmation, true), f.nonce)
        const mine = checked.key
        // Revoked in a transaction of its own: its process forgets the key once that is committed, not before.
        yield* accounts.revokeKey(mine.key_id)
        yield* kit.audit(signed, "api_key.revoke", mine.key_id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/developers`, f.t.developers.keys.revokedNow(mine.last4))
      })))

    yield* kit.post("/dashboard/:mode/developers/webhooks", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!mayManage(signed.user.role, scope.livemode)) return kit.page(403, forbidden(f, signed, f.t.developers.forbidden.addEndpoints), f.nonce)
        const typed = { url: kit.field(params, "url"), once: kit.field(params, onceField) }
        const input = decodeWebhook({ url: typed.url })
        if (Either.isLeft(input)) {
          const message = describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(input.left) })
          return yield* keysPage(f, scope, { error: Pages.refused(f, message), typed }, 400)
        }
        // The URL's host is resolved before the form's transaction (DNS may take seconds).
        const prepared = yield* attempt(webhooks.prepare(scope, input.right))
        if (Either.isLeft(prepared)) return yield* keysPage(f, scope, { error: Pages.refused(f, prepared.left.message), typed }, 400)
        const created = yield* attempt(kit.makeOnce(signed, scope, params, {
          kind: "created_webhooks",
          action: "webhook.create",
          input: input.right,
          create: webhooks.insert(prepared.right),
          idOf: (w) => w.webhook_id,
          find: (id) => lookup(webhooks.get(scope, id as WebhookId))
        }))
        if (Either.isLeft(created)) {
          return yield* keysPage(f, scope, { error: Pages.refused(f, created.left.message), typed }, 400)
        }
        if (created.right === undefined) return yield* keysPage(f, scope, { error: f.t.frame.spentForm, typed: { ...typed, once: "" } }, 400)
        return kit.redirect(`${Pages.modePath(f)}/developers/webhooks/${created.right.webhook_id}`)
      })))

    /** The endpoint of the route's `:id` in `scope`, or none (another account's or mode's is not found). */
    const endpointOf = (scope: Kit.Scope) =>
      Effect.gen(function*() {
        const id = webhookIdOf(yield* kit.param("id"))
        return id === undefined ? Option.none() : Option.getRight(yield* attempt(webhooks.get(scope, id)))
      })

    /** An endpoint's page: its settings, secret, health and deliveries; with a notice, a secret shown or an error. */
    const endpointPage = (
      f: Pages.SignedFrame,
      scope: { readonly accountId: Pages.SignedFrame["user"]["account_id"]; readonly livemode: boolean },
      notice?: string,
      secret?: Redacted.Redacted<string>,
      error?: string
    ) =>
      Effect.gen(function*() {
        const endpoint = yield* endpointOf(scope)
        if (Option.isNone(endpoint)) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const w = endpoint.value
        // A cursor of another list is refused by the list: the first page then, rather than an error page.
        const cursor = (yield* kit.query).get("cursor") ?? undefined
        const log = yield* deliveries.listOf(scope, w.webhook_id, { limit: 20, cursor }).pipe(
          Effect.catchTag("InvalidRequest", () => deliveries.listOf(scope, w.webhook_id, { limit: 20 }))
        )
        const manage = mayManage(f.user.role, scope.livemode)
        const here = `${Pages.modePath(f)}/developers/webhooks/${w.webhook_id}`
        const h = w.health
        const t = f.t.developers.endpoint
        const share = h.failure_rate_last_day === null
          ? t.noAttempts
          : t.failedShare(h.failed_last_day, h.attempts_last_day, Math.round(h.failure_rate_last_day * 100))
        return kit.page(error === undefined ? 200 : 400, Pages.chrome(f, t.title, html`
${notice === undefined ? "" : html`<p class="done" role="status">${notice}</p>`}
${error === undefined ? "" : html`<p class="alert" role="alert">${error}</p>`}
${
          w.disabled && h.auto_disabled_at !== null
            ? html`<p class="alert" data-testid="auto-disabled">${
              t.autoDisabled(Pages.when(f, h.auto_disabled_at), h.failing_since === null ? null : Pages.when(f, h.failing_since))
            }</p>`
            : ""
        }
<div class="card"><table><tr><th>${t.url}</th><td><bdi>${w.url}</bdi></td></tr><tr><th>${t.id}</th><td><code>${w.webhook_id}</code></td></tr>
<tr><th>${t.events}</th><td>${w.event_types.join(", ")}</td></tr><tr><th>${t.status}</th><td>${Pages.badge(f, w.disabled ? "disabled" : "enabled")}</td></tr>
<tr><th>${t.health}</th><td data-testid="health">${share}${h.failing_since === null ? "" : t.failingSince(Pages.when(f, h.failing_since))}</td></tr>
${secret === undefined ? "" : html`<tr><th>${t.signingSecret}</th><td><code id="signing-secret">${Redacted.value(secret)}</code></td></tr>`}</table>${
          manage
            ? Pages.form(f, `${here}/edit`, html`
<label for="w_url">${t.url}</label><input id="w_url" name="url" size="50" required value="${w.url}">
<label for="w_description">${t.description}</label>${Pages.textarea({ id: "w_description", name: "description", value: w.description, rows: 2 })}
<fieldset><legend>${t.events}</legend>${
              eventTypes.map((t) => html`<label><input type="checkbox" name="event_types" value="${t}"${raw(w.event_types.includes(t as never) ? " checked" : "")}> ${t}</label>`)
            }</fieldset><p><button type="submit">${t.save}</button></p>`)
            : ""
        }${
          manage
            ? html`<p>${
              Pages.form(f, `${here}/manage`, html`<input type="hidden" name="action" value="${w.disabled ? "enable" : "disable"}"><button class="link" type="submit">${w.disabled ? t.enable : t.disable}</button>`)
            } ${
              Pages.form(f, `${here}/manage`, html`<input type="hidden" name="action" value="reveal"><button class="link" type="submit">${t.reveal}</button>`)
            } ${
              Pages.form(f, `${here}/manage`, html`<input type="hidden" name="action" value="rotate"><button class="link" type="submit">${t.rotate}</button>`)
            } ${
              Pages.form(f, `${here}/manage`, html`<input type="hidden" name="action" value="resend_failed"><button class="link" type="submit">${t.resendFailed}</button>`)
            } ${
              confirmLink(`${here}/delete`, t.delete)
            }</p>`
            : ""
        }</div>${
          manage
            ? html`<div class="card"><h2>${f.livemode ? t.recover : t.testAndRecover}</h2>${
              // Test events are test mode's only (`Deliveries.sendTest`).
              f.livemode ? "" : Pages.form(f, `${here}/test`, html`<label for="test_type">${t.testLabel("test", "true")}</label>
<select id="test_type" name="type">${w.event_types.map((t) => html`<option value="${t}">${t}</option>`)}</select> <button type="submit">${t.sendTest}</button>`)
            }${
              // A text field, not datetime-local: browsers show that in the viewer's own time zone, whatever the label says.
              Pages.form(f, `${here}/recover`, html`<label for="recover_since">${t.recoverLabel(f.timeZone, timeFormat)}</label>
<input id="recover_since" name="since" type="text" dir="ltr" inputmode="numeric" placeholder="2026-11-18 09:00" autocomplete="off" required> <button type="submit">${t.recoverButton}</button>`)
            }</div>`
            : ""
        }
<div class="card"><h2>${t.deliveries}</h2><table><thead><tr><th>${t.event}</th><th>${t.status}</th><th class="num">${t.attempts}</th><th>${t.lastAnswer}</th><th class="num">${t.latency}</th><th>${t.nextAttempt}</th><th></th></tr></thead><tbody>${
          log.items.map((d) => {
            const last = d.attempts.at(-1)
            return html`<tr class="delivery"><td><code>${d.event_id}</code><br><small>${d.event_type}${d.test ? t.test : ""} · ${Pages.when(f, d.created_at)}</small></td><td>${Pages.badge(f, d.status)}</td><td class="num">${d.attempts.length}</td>
<td>${last === undefined ? "" : (last.status_code ?? last.error ?? "")}</td><td class="num">${last === undefined ? "" : f.t.requestLogs.milliseconds(String(last.latency_ms))}</td><td>${d.next_attempt_at === null ? "" : Pages.when(f, d.next_attempt_at)}</td><td>${
              manage
                ? Pages.form(f, `${here}/deliveries/${d.delivery_id}/resend`, html`<button class="link" type="submit">${t.resend}</button>`)
                : ""
            }</td></tr>${
              d.attempts.length === 0 ? "" : html`<tr class="attempts"><td colspan="7"><details><summary>${t.attemptsSent}</summary>${
                d.attempts.map((a) =>
                  html`<p><strong>${
                    t.attempt(a.attempt, Pages.when(f, a.started_at), a.status_code === null ? (a.error ?? t.noAnswer) : `HTTP ${a.status_code}`, a.latency_ms)
                  }</strong></p>
<p><small>${t.answer}</small></p><pre dir="ltr">${a.response_body ?? t.noBody}</pre>${
                    a.request === null ? "" : html`<p><small>${t.headersSent}</small></p><pre dir="ltr">${
                      Object.entries(a.request.headers).sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, v]) => `${k}: ${v}`).join("\n")
                    }</pre>`
                  }`
                )
              }<p><small>${t.bodySent}</small></p><pre dir="ltr">${d.request_body}</pre></details></td></tr>`
            }`
          })
        }</tbody></table>${log.items.length === 0 ? html`<p class="muted">${t.noDeliveries}</p>` : ""}${
          log.next_cursor === null ? "" : html`<p><a href="${here}?cursor=${log.next_cursor}">${t.older}</a></p>`
        }</div>`), f.nonce)
      })

    yield* kit.get("/dashboard/:mode/developers/webhooks/:id", kit.withUser((_, f, scope) => endpointPage(f, scope)))

    yield* kit.post("/dashboard/:mode/developers/webhooks/:id/edit", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!mayManage(signed.user.role, scope.livemode)) return kit.page(403, forbidden(f, signed, f.t.developers.forbidden.changeEndpoints), f.nonce)
        const endpoint = yield* endpointOf(scope)
        if (Option.isNone(endpoint)) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const id = endpoint.value.webhook_id
        // As typed; a field sent back as shown keeps its stored value byte for byte.
        const patch = decodeWebhookUpdate({
          url: unchanged(kit.field(params, "url"), endpoint.value.url, "input"),
          description: unchanged(kit.field(params, "description"), endpoint.value.description, "textarea"),
          event_types: UrlParams.getAll(params, "event_types")
        })
        if (Either.isLeft(patch)) {
          return yield* endpointPage(f, scope, undefined, undefined, Pages.refused(f, describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(patch.left) })))
        }
        const updated = yield* attempt(webhooks.update(scope, id, patch.right))
        if (Either.isLeft(updated)) {
          const error = updated.left
          if (error._tag === "NotFound") return kit.page(404, Pages.notFoundPage(f), f.nonce)
          return yield* endpointPage(f, scope, undefined, undefined, Pages.refused(f, error.message))
        }
        yield* kit.audit(signed, "webhook.update", id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/developers/webhooks/${id}`, f.t.developers.done.saved)
      })))

    /** What deleting endpoint `w` will do. */
    const deletion = (f: Pages.SignedFrame, w: { readonly webhook_id: string; readonly url: string; readonly disabled: boolean }): Confirm.Confirmation => {
      const here = `${Pages.modePath(f)}/developers/webhooks/${w.webhook_id}`
      const t = f.t.developers.delete
      return {
        title: t.title,
        what: [t.stops(w.url), t.secretAndLog, t.eventsStay],
        action: `${here}/manage`,
        fields: { action: "delete" },
        button: t.button,
        back: here
      }
    }

    yield* kit.get("/dashboard/:mode/developers/webhooks/:id/delete", kit.withUser((signed, f, scope) =>
      Effect.gen(function*() {
        if (!mayManage(signed.user.role, scope.livemode)) return kit.page(403, forbidden(f, signed, f.t.developers.forbidden.changeEndpoints), f.nonce)
        const endpoint = yield* endpointOf(scope)
        return Option.isNone(endpoint) ? kit.page(404, Pages.notFoundPage(f), f.nonce) : kit.page(200, Confirm.confirmPage(f, deletion(f, endpoint.value)), f.nonce)
      })))

    yield* kit.post("/dashboard/:mode/developers/webhooks/:id/manage", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!mayManage(signed.user.role, scope.livemode)) return kit.page(403, forbidden(f, signed, f.t.developers.forbidden.changeEndpoints), f.nonce)
        const endpoint = yield* endpointOf(scope)
        if (Option.isNone(endpoint)) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const w = endpoint.value
        const here = `${Pages.modePath(f)}/developers/webhooks/${w.webhook_id}`
        const action = kit.field(params, "action")
        switch (action) {
          case "enable":
          case "disable": {
            yield* kit.audited(signed, `webhook.${action}`, w.webhook_id, scope.livemode, webhooks.update(scope, w.webhook_id, { disabled: action === "disable" }))
            return kit.done(f, here, action === "disable" ? f.t.developers.done.disabled : f.t.developers.done.enabled)
          }
          case "reveal": {
            // Revealing a secret is itself recorded (the secret is not).
            const { secret } = yield* webhooks.secret(scope, w.webhook_id)
            yield* kit.audit(signed, "webhook.secret.reveal", w.webhook_id, scope.livemode)
            return yield* endpointPage(f, scope, undefined, secret)
          }
          case "rotate": {
            const { secret } = yield* kit.audited(signed, "webhook.secret.rotate", w.webhook_id, scope.livemode, webhooks.rotateSecret(scope, w.webhook_id))
            return yield* endpointPage(f, scope, f.t.developers.done.rotated, secret)
          }
          case "resend_failed": {
            const failed = (yield* deliveries.list({ webhook_id: w.webhook_id, status: "failed" }, 1000))
            for (const d of failed) yield* attempt(deliveries.retry(scope, d.delivery_id))
            yield* kit.audit(signed, "webhook.resend_failed", w.webhook_id, scope.livemode)
            return kit.done(f, here, f.t.developers.done.resentFailed(failed.length))
          }
          case "delete": {
            const confirmation = deletion(f, w)
            if (!Confirm.isConfirmed(kit.field(params, Confirm.confirmField))) return kit.page(400, Confirm.confirmPage(f, confirmation, true), f.nonce)
            yield* kit.audited(signed, "webhook.delete", w.webhook_id, scope.livemode, webhooks.remove(scope, w.webhook_id))
            return kit.redirect(`${Pages.modePath(f)}/developers`)
          }
          default:
            return kit.page(404, Pages.notFoundPage(f), f.nonce)
        }
      })))

    yield* kit.post("/dashboard/:mode/developers/webhooks/:id/test", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!mayManage(signed.user.role, scope.livemode)) return kit.page(403, forbidden(f, signed, f.t.developers.forbidden.sendTests), f.nonce)
        const endpoint = yield* endpointOf(scope)
        if (Option.isNone(endpoint)) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const type = decodeEventType(kit.field(params, "type"))
        if (Either.isLeft(type)) return yield* endpointPage(f, scope, undefined, undefined, f.t.developers.done.chooseType(endpoint.value.event_types.join(", ")))
        const sent = yield* attempt(deliveries.sendTest(scope, endpoint.value.webhook_id, type.right, eventExample(type.right)))
        if (Either.isLeft(sent)) return yield* endpointPage(f, scope, undefined, undefined, Pages.refused(f, sent.left.message))
        yield* kit.audit(signed, "webhook.test", endpoint.value.webhook_id, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/developers/webhooks/${endpoint.value.webhook_id}`, f.t.developers.done.testQueued(type.right))
      })))

    yield* kit.post("/dashboard/:mode/developers/webhooks/:id/recover", kit.withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        if (!mayManage(signed.user.role, scope.livemode)) return kit.page(403, forbidden(f, signed, f.t.developers.forbidden.resend), f.nonce)
        const endpoint = yield* endpointOf(scope)
        if (Option.isNone(endpoint)) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const typed = kit.field(params, "since")
        const since = parseTime(typed, f.timeZone)
        if (Option.isNone(since)) {
          return yield* endpointPage(f, scope, undefined, undefined, f.t.developers.done.badSince(timeFormat, f.timeZone, typed))
        }
        const done = yield* attempt(deliveries.recover(scope, endpoint.value.webhook_id, since.value))
        if (Either.isLeft(done)) return yield* endpointPage(f, scope, undefined, undefined, Pages.refused(f, done.left.message))
        yield* kit.audit(signed, "webhook.recover", endpoint.value.webhook_id, scope.livemode)
        const n = done.right.resent
        return kit.done(f, `${Pages.modePath(f)}/developers/webhooks/${endpoint.value.webhook_id}`, f.t.developers.done.recovered(n, Pages.when(f, since.value)))
      })))

    yield* kit.post("/dashboard/:mode/developers/webhooks/:id/deliveries/:delivery/resend", kit.withPost((signed, f, scope) =>
      Effect.gen(function*() {
        if (!mayManage(signed.user.role, scope.livemode)) return kit.page(403, forbidden(f, signed, f.t.developers.forbidden.resend), f.nonce)
        const deliveryId = yield* kit.param("delivery")
        // Only a delivery of this scope's endpoint: another account's or mode's is not found.
        const endpoint = yield* endpointOf(scope)
        if (Option.isNone(endpoint)) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const w = endpoint.value
        const delivery = yield* deliveries.get(scope, deliveryId)
        if (Option.isNone(delivery) || delivery.value.webhook_id !== w.webhook_id) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const resent = yield* attempt(deliveries.retry(scope, deliveryId))
        if (Either.isLeft(resent)) return kit.page(409, Pages.forbiddenPage(f, Pages.refused(f, resent.left.message)), f.nonce)
        yield* kit.audit(signed, "delivery.resend", deliveryId, scope.livemode)
        return kit.done(f, `${Pages.modePath(f)}/developers/webhooks/${w.webhook_id}`, f.t.developers.done.resent)
      })))
  })

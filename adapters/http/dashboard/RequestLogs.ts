/**
 * The developers section's request logs: the mode's API requests, newest first, filtered by status, path, key and
 * time (the API's own filters, decoded as `GET /request_logs` decodes them: a filter it refuses is shown, not
 * altered), and a request's line with the events it caused and their deliveries. Reading needs `read`.
 */
import { DateTime, Effect, Either, ParseResult, Schema } from "effect"
import { Accounts } from "../../../src/application/Accounts.js"
import { Deliveries } from "../../../src/application/Deliveries.js"
import { Events } from "../../../src/application/Events.js"
import { RequestLogs } from "../../../src/application/RequestLogs.js"
import { parseId, RequestLogId } from "../../../src/domain/Ids.js"
import type { RequestLog } from "../../../src/domain/RequestLog.js"
import { RequestLogListQuery } from "../Api.js"
import { lookup } from "../html/Attempt.js"
import { html, raw } from "../html/Html.js"
import { describeDecodeError } from "../SchemaIssues.js"
import * as Pages from "./Pages.js"
import type { Kit } from "./Kit.js"

const lineIdOf = parseId(RequestLogId)
const decodeQuery = Schema.decodeUnknownEither(RequestLogListQuery, { onExcessProperty: "ignore", errors: "all" })
const filterNames = ["status", "path", "key_id", "request_id", "since", "until"] as const
/** The path filter's example: an API path, the same in every language. */
const examplePath = "/api/v1/payments"
/** A header's name, the same in every language. */
const idempotencyHeader = "Idempotency-Key"

/** A time as the log keeps it, in UTC: its date and its clock to `length` characters of the ISO form (seconds: 19). */
const isoParts = (at: DateTime.Utc, length: number) => {
  const [date, clock] = DateTime.formatIso(at).slice(0, length).split("T") as [string, string]
  return [date, clock] as const
}

/** A `datetime-local` field's value (`2026-11-27T10:00`, read as UTC) as the API's instant; anything else as typed. */
const instantOf = (value: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00.000Z` : value

export const requestLogRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const logs = yield* RequestLogs
    const accounts = yield* Accounts
    const events = yield* Events
    const deliveries = yield* Deliveries

    yield* kit.get("/dashboard/:mode/developers/logs", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const query = yield* kit.query
        // The filters as typed (empty fields are no filter), shown back in the form whatever becomes of them.
        const typed: Record<string, string> = {}
        for (const name of filterNames) {
          const value = query.get(name) ?? ""
          if (value !== "") typed[name] = value
        }
        const cursor = query.get("cursor") ?? undefined
        const decoded = decodeQuery({
          ...typed,
          ...(typed.since === undefined ? {} : { since: instantOf(typed.since) }),
          ...(typed.until === undefined ? {} : { until: instantOf(typed.until) }),
          limit: "50",
          ...(cursor === undefined ? {} : { cursor })
        })
        const listed = Either.isLeft(decoded)
          ? Either.left(describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(decoded.left) }))
          : yield* logs.list(scope, decoded.right).pipe(
            Effect.map(Either.right),
            // A cursor of other filters; the store's failures are the guard's to answer.
            Effect.catchTag("InvalidRequest", (e) => Effect.succeed(Either.left(e.message)))
          )
        const keys = yield* accounts.keys(scope)
        const field = (name: string) => typed[name] ?? ""
        const lines: ReadonlyArray<RequestLog> = Either.isRight(listed) ? listed.right.items : []
        const next = Either.isRight(listed) ? listed.right.next_cursor : null
        const here = `${Pages.modePath(f)}/developers/logs`
        const t = f.t.requestLogs.list
        return kit.page(Either.isLeft(listed) ? 400 : 200, Pages.chrome(f, t.title, html`
${Either.isLeft(listed) ? html`<p class="alert" role="alert">${Pages.refused(f, listed.left)}</p>` : ""}
<p class="muted">${t.intro(logs.retentionDays)}</p>
<form method="get" action="${here}">
<label for="status">${t.status("404", "4xx")}</label><input id="status" name="status" size="5" value="${field("status")}">
<label for="path">${t.path}</label><input id="path" name="path" size="30" dir="ltr" placeholder="${examplePath}" value="${field("path")}">
<label for="key_id">${t.key}</label><select id="key_id" name="key_id"><option value="">${f.t.frame.common.any}</option>${
          keys.map((k) => html`<option value="${k.key_id}"${raw(field("key_id") === k.key_id ? " selected" : "")}>…${k.last4} (${k.key_id})</option>`)
        }</select>
<label for="since">${t.from}</label><input id="since" name="since" type="datetime-local" value="${field("since")}">
<label for="until">${t.until}</label><input id="until" name="until" type="datetime-local" value="${field("until")}">
${field("request_id") === "" ? "" : html`<input type="hidden" name="request_id" value="${field("request_id")}">`}
<button type="submit">${f.t.frame.common.filter}</button> <a href="${here}">${t.clear}</a></form>
<div class="card"><table><thead><tr><th>${t.time}</th><th class="num">${t.statusColumn}</th><th>${t.request}</th><th class="num">${t.duration}</th><th>${t.key}</th></tr></thead><tbody>${
          lines.map((l) =>
            html`<tr><td><a href="${here}/${l.request_log_id}">${t.at(...isoParts(l.created_at, 19))}</a></td>
<td class="num">${l.status >= 400 ? html`<strong>${l.status}</strong>` : String(l.status)}</td><td><code>${l.method} ${l.path}</code>${l.error_code === null ? "" : html` <small>${l.error_code}</small>`}</td>
<td class="num">${f.t.requestLogs.milliseconds(l.duration_ms.toFixed(1))}</td><td><code>${l.key_id}</code></td></tr>`
          )
        }</tbody></table>${lines.length === 0 ? html`<p class="muted">${t.none}</p>` : ""}${
          next === null ? "" : html`<p><a href="${here}?${new URLSearchParams({ ...typed, cursor: next }).toString()}">${t.older}</a></p>`
        }</div>`), f.nonce)
      })))

    yield* kit.get("/dashboard/:mode/developers/logs/:id", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const id = lineIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(logs.get(scope, id))
        if (found === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const caused = (yield* events.list(scope, { request_id: found.request_id, limit: 100 })).items
        const sent = yield* Effect.forEach(caused, (e) => deliveries.list({ event_id: e.event_id }, 100))
        const row = (label: string, value: ReturnType<typeof html> | string) => html`<tr><th>${label}</th><td>${value}</td></tr>`
        const t = f.t.requestLogs.request
        return kit.page(200, Pages.chrome(f, t.title, html`
<p><a href="${Pages.modePath(f)}/developers/logs">${t.back}</a></p>
<div class="card"><table>
${row(t.requestId, html`<code id="request-id">${found.request_id}</code>`)}
${row(t.time, t.at(...isoParts(found.created_at, 23)))}
${row(t.request, html`<code>${found.method} ${found.path}</code>`)}
${row(t.status, String(found.status))}
${row(t.errorCode, found.error_code ?? t.none)}
${row(t.duration, f.t.requestLogs.milliseconds(found.duration_ms.toFixed(1)))}
${row(t.key, html`<code>${found.key_id}</code>`)}
${row(idempotencyHeader, found.idempotency_key === null ? t.none : html`<code>${found.idempotency_key}</code>`)}
</table><p class="muted">${t.bodies}</p></div>
<div class="card"><h2>${t.events}</h2><table><thead><tr><th>${t.event}</th><th>${t.type}</th><th>${t.deliveries}</th></tr></thead><tbody>${
          caused.map((e, i) =>
            html`<tr><td><a href="${Pages.modePath(f)}/events/${e.event_id}"><code>${e.event_id}</code></a></td><td>${e.type}</td><td>${
              sent[i]!.length === 0
                ? t.none
                : sent[i]!.map((d) => html`<a href="${Pages.modePath(f)}/developers/webhooks/${d.webhook_id}">${f.t.requestLogs.deliveryStatus(d.status)}</a> `)
            }</td></tr>`
          )
        }</tbody></table>${caused.length === 0 ? html`<p class="muted">${t.noEvents}</p>` : ""}</div>`), f.nonce)
      })))
  })

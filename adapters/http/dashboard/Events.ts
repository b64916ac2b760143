/**
 * The dashboard's events pages: the events of the mode (filter by type) and an event's JSON with its deliveries to
 * each endpoint. Reading needs `read`.
 */
import { Effect, Schema } from "effect"
import { Deliveries } from "../../../src/application/Deliveries.js"
import { Events } from "../../../src/application/Events.js"
import { EventType } from "../../../src/domain/Event.js"
import { EventId, parseId } from "../../../src/domain/Ids.js"
import { lookup } from "../html/Attempt.js"
import { html, raw } from "../html/Html.js"
import * as Pages from "./Pages.js"
import type { Kit } from "./Kit.js"

const eventIdOf = parseId(EventId)
const isEventType = Schema.is(EventType)
const eventTypes: ReadonlyArray<string> = EventType.literals

export const eventRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const events = yield* Events
    const deliveries = yield* Deliveries

    yield* kit.get("/dashboard/:mode/events", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const type = (yield* kit.query).get("type") ?? ""
        // A type that is none of the choices lists nothing, and says so; it is not read as any.
        const refused = type !== "" && !isEventType(type)
        const list = refused ? { items: [] } : yield* events.list(scope, { limit: 100, ...(isEventType(type) ? { type } : {}) })
        const t = f.t.events
        return kit.page(refused ? 400 : 200, Pages.chrome(f, t.title, html`${refused ? Pages.notAnOption(f, type) : ""}
<form method="get" action="${Pages.modePath(f)}/events"><label for="type">${t.type}</label><select id="type" name="type"><option value="">${f.t.frame.common.any}</option>${
          eventTypes.map((name) => html`<option value="${name}"${raw(name === type ? " selected" : "")}>${name}</option>`)
        }</select> <button type="submit">${f.t.frame.common.filter}</button></form>
<div class="card"><table><thead><tr><th>${t.event}</th><th>${t.type}</th><th>${t.created}</th></tr></thead><tbody>${
          list.items.map((e) => html`<tr><td><a href="${Pages.modePath(f)}/events/${e.event_id}"><code>${e.event_id}</code></a></td><td data-label="${t.type}">${e.type}</td><td data-label="${t.created}">${Pages.when(f, e.created_at)}</td></tr>`)
        }</tbody></table>${list.items.length === 0 ? html`<p class="muted">${t.none}</p>` : ""}</div>`), f.nonce)
      })))

    yield* kit.get("/dashboard/:mode/events/:id", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const id = eventIdOf(yield* kit.param("id"))
        const found = id === undefined ? undefined : yield* lookup(events.get(scope, id))
        if (found === undefined || id === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const sent = yield* deliveries.list({ event_id: id }, 100)
        const t = f.t.events
        // The event's JSON reads left to right on an Arabic page too.
        return kit.page(200, Pages.chrome(f, t.eventTitle(found.type), html`
${
          found.request_id === null
            ? ""
            : html`<p>${
              t.causedBy(html`<a href="${Pages.modePath(f)}/developers/logs?${new URLSearchParams({ request_id: found.request_id }).toString()}"><code>${found.request_id}</code></a>`)
            }</p>`
        }
<div class="card"><pre dir="ltr">${JSON.stringify(found, null, 2)}</pre></div>
<div class="card"><h2>${t.deliveries}</h2><table><thead><tr><th>${t.endpoint}</th><th>${t.status}</th><th class="num">${t.attempts}</th><th>${t.lastAnswer}</th></tr></thead><tbody>${
          sent.map((d) => html`<tr><td><a href="${Pages.modePath(f)}/developers/webhooks/${d.webhook_id}"><code>${d.webhook_id}</code></a></td><td data-label="${t.status}">${Pages.badge(f, d.status)}</td><td class="num" data-label="${t.attempts}">${Pages.count(f, d.attempts)}</td><td data-label="${t.lastAnswer}">${d.last_status_code ?? d.last_error ?? ""}</td></tr>`)
        }</tbody></table>${sent.length === 0 ? html`<p class="muted">${t.noEndpoint}</p>` : ""}</div>`), f.nonce)
      })))
  })

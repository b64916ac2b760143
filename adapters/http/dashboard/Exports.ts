/**
 * CSV exports of a mode's payments, refunds, subscriptions and customers created in a range of the account's days.
 * The file is streamed: each list is read a keyset page at a time (the next page asked for once the last is
 * written), so a million rows take the memory of one page. Newest first, as the lists are.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Cause, Chunk, DateTime, Effect, Option, Stream } from "effect"
import type { Customers } from "../../../src/application/Customers.js"
import type { Payments } from "../../../src/application/Payments.js"
import type { Subscriptions } from "../../../src/application/Subscriptions.js"
import { can } from "../../../src/domain/DashboardUser.js"
import * as Refund from "../../../src/domain/Refund.js"
import { html } from "../html/Html.js"
import { aed, type Cell, row } from "./Csv.js"
import { type FieldErrors, selectField, textField } from "./Fields.js"
import type { Kit, Scope } from "./Kit.js"
import * as Pages from "./Pages.js"
import { parseDay } from "./Parse.js"

/**
 * Rows read at a time from payments and refunds (the long lists): a page's memory, and a query per page. The
 * subscriptions' and customers' lists read the API's pages (100).
 */
const exportPageSize = 500

export const exportKinds = ["payments", "refunds", "subscriptions", "customers"] as const
export type ExportKind = typeof exportKinds[number]
const isKind = (value: string): value is ExportKind => (exportKinds as ReadonlyArray<string>).includes(value)

/** A newest-first page of a list, as the use cases answer. */
interface ListPage<A> {
  readonly items: ReadonlyArray<A>
  readonly next_cursor: string | null
}

/** A list's items, one page after another: a page is read only when the stream needs its rows. */
export const paged = <A, E>(fetch: (cursor: string | undefined) => Effect.Effect<ListPage<A>, E>): Stream.Stream<A, E> =>
  Stream.paginateChunkEffect(undefined as string | undefined, (cursor) =>
    Effect.map(fetch(cursor), (page) =>
      [Chunk.fromIterable(page.items), Option.fromNullable(page.next_cursor)] as const))

/** Created in `[from, before)`, from a newest-first list that cannot filter by date itself: skip newer, stop at older. */
const within = <A>(rows: Stream.Stream<A, unknown>, createdAt: (a: A) => DateTime.Utc, range: ExportRange) =>
  rows.pipe(
    Stream.dropWhile((a) => !DateTime.lessThan(createdAt(a), range.before)),
    Stream.takeWhile((a) => !DateTime.lessThan(createdAt(a), range.from))
  )

export interface ExportRange {
  readonly from: DateTime.Utc
  readonly before: DateTime.Utc
}

export interface ExportSources {
  readonly payments: Payments
  readonly subscriptions: Subscriptions
  readonly customers: Customers
}

/** The CSV's records, header first; `pageSize` rows read at a time. */
export const exportRows = (
  sources: ExportSources,
  kind: ExportKind,
  scope: Scope,
  range: ExportRange,
  timeZone: string,
  pageSize = exportPageSize
): Stream.Stream<string, unknown> => {
  const zone = DateTime.zoneUnsafeMakeNamed(timeZone)
  // Local time with its offset: unambiguous, and what a spreadsheet reads as a date.
  const at = (t: DateTime.Utc): Cell => DateTime.formatIsoOffset(DateTime.setZone(t, zone))
  const opt = (t: DateTime.Utc | null): Cell => t === null ? null : at(t)
  const created = `created (${timeZone})`
  const dated = { created_from: range.from, created_before: range.before, limit: pageSize }
  const body = (() => {
    switch (kind) {
      case "payments":
        return Stream.concat(
          Stream.make(row(["payment_id", created, "status", "amount_aed", "fee_aed", "refunded_aed", "net_aed", "customer_email", "customer_name", "description", "card", "subscription_id", "checkout_session_id"])),
          Stream.map(paged((cursor) => sources.payments.list(scope, { ...dated, cursor }, pageSize)), (p) =>
            row([
              p.payment_id, at(p.created_at), p.status, aed(p.total_amount), aed(p.fee_amount), aed(p.refunded_amount),
              aed(p.net_amount), p.customer?.email ?? null, p.customer?.name ?? null, p.description,
              p.card === null ? null : `${p.card.brand} ${p.card.last4}`, p.subscription_id, p.checkout_session_id
            ]))
        )
      case "refunds":
        return Stream.concat(
          Stream.make(row(["refund_id", created, "payment_id", "status", "amount_aed", "reason", "note", "failure_reason"])),
          Stream.map(paged((cursor) => sources.payments.listRefunds(scope, { ...dated, cursor }, pageSize)), (r) =>
            row([
              r.refund_id, at(r.created_at), r.payment_id, r.status, aed(r.amount),
              r.reason === null ? null : Refund.reasonWords[r.reason], r.note, r.failure_reason
            ]))
        )
      case "subscriptions":
        return Stream.concat(
          Stream.make(row(["subscription_id", created, "status", "customer_email", "name", "amount_aed", "interval", "interval_count", "current_period_start", "next_billing_date", "cancel_at_period_end", "cancelled_at"])),
          Stream.map(
            within(paged((cursor) => sources.subscriptions.list(scope, { limit: Math.min(pageSize, 100), cursor })), (s) => s.created_at, range),
            (s) =>
              row([
                s.subscription_id, at(s.created_at), s.status, s.customer.email, s.name, aed(s.recurring_amount), s.billing_interval,
                { number: String(s.interval_count) }, at(s.current_period_start), at(s.next_billing_date),
                s.cancel_at_period_end ? "yes" : "no", opt(s.cancelled_at)
              ])
          )
        )
      case "customers":
        return Stream.concat(
          Stream.make(row(["customer_id", created, "email", "name", "phone_number"])),
          Stream.map(
            within(paged((cursor) => sources.customers.list(scope, { limit: Math.min(pageSize, 100), cursor })), (c) => c.created_at, range),
            (c) => row([c.customer_id, at(c.created_at), c.email, c.name, c.phone_number])
          )
        )
    }
  })()
  // One string per page: a write per page, not per row.
  return Stream.mapChunks(body, (rows) => Chunk.of(Chunk.join(rows, "")))
}

/** The node response under `request`, when the server is node's (the CLI's and the embedded handler's). */
const nodeResponse = (request: HttpServerRequest.HttpServerRequest) => {
  try {
    const response: ReturnType<typeof NodeHttpServerRequest.toServerResponse> | undefined = NodeHttpServerRequest.toServerResponse(request)
    return typeof response?.destroy === "function" && typeof response.once === "function" ? response : undefined
  } catch {
    return undefined
  }
}

/**
 * A CSV attachment of `rows`. Its status and headers leave before the first row, so a failure midway (the store down
 * on page 37) can no longer answer an error; the server would end the chunked body cleanly and the file would look
 * complete. So the failure is logged and the connection cut instead: without the body's last chunk, the client sees
 * a failed download, never a truncated file.
 */
export const csvDownload = (rows: Stream.Stream<string, unknown>, name: string) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const cut = (cause: Cause.Cause<unknown>) =>
      Cause.isInterruptedOnly(cause) ? Effect.void : Effect.zipRight(
        Effect.logError("A CSV export failed midway; its download was cut off", cause).pipe(Effect.annotateLogs({ file: name })),
        Effect.async<void>((resume) => {
          const response = nodeResponse(request)
          if (response === undefined) return resume(Effect.void)
          let cut = false
          const destroy = () => {
            if (cut) return
            cut = true
            clearTimeout(timer)
            response.destroy()
            resume(Effect.void)
          }
          // Before the platform ends the body, and after the rows written so far have left: the client gets
          // them, then a closed connection instead of the last chunk.
          const timer = setTimeout(destroy, 1_000)
          const socket = response.socket
          if (socket === null || socket.destroyed) destroy()
          else socket.write("", destroy)
        })
      )
    return HttpServerResponse.stream(Stream.encodeText(Stream.tapErrorCause(rows, cut)), {
      contentType: "text/csv; charset=utf-8",
      headers: {
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff"
      }
    })
  })

/**
 * Exports running at once per account in this process: each holds a store connection for as long as its client
 * reads, so one account's downloads cannot take them all.
 */
export const exportsAtOnce = 2

/**
 * The slots of exports running per account: `take` answers the slot's release (safe to call more than once), or
 * `undefined` when the account already runs `limit`.
 */
export const exportSlots = (limit: number) => {
  const running = new Map<string, number>()
  return {
    take: (account: string): (() => void) | undefined => {
      const busy = running.get(account) ?? 0
      if (busy >= limit) return undefined
      running.set(account, busy + 1)
      let held = true
      return () => {
        if (!held) return
        held = false
        const left = (running.get(account) ?? 1) - 1
        if (left <= 0) running.delete(account)
        else running.set(account, left)
      }
    }
  }
}

/** What the export form was sent with, as typed. */
interface ExportForm {
  readonly kind: string
  readonly from: string
  readonly to: string
}

const exportsRefused = (f: Pages.SignedFrame) => f.t.csvExports.notAllowed(f.t.frame.roles[f.user.role])

const exportPage = (f: Pages.SignedFrame, typed: ExportForm, errors: FieldErrors, allowed = true) => {
  const t = f.t.csvExports
  return Pages.chrome(
    f,
    t.title,
    !allowed ? html`<div class="card"><p class="alert" role="alert">${exportsRefused(f)}</p></div>` : html`<div class="card"><p>${t.intro(f.livemode, f.timeZone)}</p>
<form method="get" action="${Pages.modePath(f)}/exports/csv">
${selectField({ name: "kind", label: t.what, value: typed.kind, options: exportKinds.map((k) => [k, t.kinds[k]] as const), errors })}
${textField({ name: "from", label: t.from(f.timeZone), value: typed.from, errors, attributes: `type="date" required` })}
${textField({ name: "to", label: t.to(f.timeZone), value: typed.to, errors, attributes: `type="date" required` })}
<p><button type="submit">${t.download}</button></p></form></div>`
  )
}

export const exportRoutes = (kit: Kit, sources: ExportSources) =>
  Effect.gen(function*() {
    const slots = exportSlots(exportsAtOnce)

    yield* kit.get("/dashboard/:mode/exports", kit.withUser((signed, f) =>
      Effect.gen(function*() {
        // The last 30 days, today included, as the account counts them.
        const day = (t: DateTime.Utc) =>
          new Intl.DateTimeFormat("en-CA", { timeZone: f.timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(DateTime.toDate(t))
        const now = yield* DateTime.now
        const local = day(now)
        const start = day(DateTime.subtract(now, { days: 29 }))
        return kit.page(200, exportPage(f, { kind: "payments", from: start, to: local }, {}, can(signed.user.role, "export")), f.nonce)
      })))

    yield* kit.get("/dashboard/:mode/exports/csv", kit.withUser((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "export")) return kit.page(403, Pages.forbiddenPage(f, exportsRefused(f)), f.nonce)
        const query = yield* kit.query
        const typed: ExportForm = { kind: query.get("kind") ?? "", from: query.get("from") ?? "", to: query.get("to") ?? "" }
        const from = parseDay(typed.from, f.timeZone)
        const to = parseDay(typed.to, f.timeZone)
        const t = f.t.csvExports
        const errors: Record<string, string> = {}
        if (!isKind(typed.kind)) errors["kind"] = t.chooseKind
        if (from === undefined) errors["from"] = t.enterDate
        if (to === undefined) errors["to"] = t.enterDate
        if (from !== undefined && to !== undefined && DateTime.lessThan(to.start, from.start)) errors["to"] = t.lastBeforeFirst
        if (Object.keys(errors).length > 0 || from === undefined || to === undefined || !isKind(typed.kind)) {
          return kit.page(400, exportPage(f, typed, errors), f.nonce)
        }
        const mode = f.livemode ? "live" : "test"
        const release = slots.take(signed.user.account_id)
        if (release === undefined) {
          return kit.page(
            429,
            Pages.forbiddenPage(f, t.busy(Pages.count(f, exportsAtOnce))),
            f.nonce
          ).pipe(HttpServerResponse.setHeader("retry-after", "10"))
        }
        // The slot is given back when the response closes, however the download ends (done, failed, the client
        // gone, a HEAD answered without its body); the stream's end is the fallback where the server is not node's.
        nodeResponse(yield* HttpServerRequest.HttpServerRequest)?.once("close", release)
        yield* Effect.onError(
          kit.audit(signed, "export.csv", `${typed.kind} ${from.day} to ${to.day}`, scope.livemode),
          () => Effect.sync(release)
        )
        const body = exportRows(sources, typed.kind, scope, { from: from.start, before: to.end }, f.timeZone)
        return yield* csvDownload(Stream.ensuring(body, Effect.sync(release)), `${typed.kind}-${mode}-${from.day}-to-${to.day}.csv`)
      })))
  })

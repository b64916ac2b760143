/**
 * Checkout sessions on PostgreSQL. `find` (by id alone, for the hosted page) locks the row inside `transact`, so two
 * submissions of one session take turns; `claimExpired` hands each due session to one claimer (`SKIP LOCKED`).
 */
import { Effect } from "effect"
import type { SessionsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as Rows from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

export const makeSessionsRepo = ({ first, forUpdateInTransaction, inScope, page, sql }: Queries): SessionsRepo => {
  const insertAll: SessionsRepo["insertAll"] = Effect.fnUntraced(function*(sessions) {
    if (sessions.length === 0) return
    yield* sql`INSERT INTO checkout_sessions ${sql.insert(sessions.map(Rows.sessionToRow))}`
  }, orUnavailable)

  return {
    insert: (session) => insertAll([session]),

    insertAll,

    list: Effect.fnUntraced(function*(scope, request) {
      return yield* page("checkout_sessions", [inScope(scope)], request, Rows.sessionFromRow)
    }, orUnavailable),

    get: Effect.fnUntraced(function*(scope, id) {
      const rows = yield* sql<Rows.CheckoutSessionRow>`SELECT * FROM checkout_sessions
        WHERE session_id = ${id} AND ${inScope(scope)}`
      return first(rows, Rows.sessionFromRow)
    }, orUnavailable),

    find: Effect.fnUntraced(function*(id) {
      const rows = yield* sql<Rows.CheckoutSessionRow>`SELECT * FROM checkout_sessions WHERE session_id = ${id}`
      return first(rows, Rows.sessionFromRow)
    }, orUnavailable),

    lock: Effect.fnUntraced(function*(id) {
      const lock = yield* forUpdateInTransaction
      const rows = yield* sql<Rows.CheckoutSessionRow>`SELECT * FROM checkout_sessions WHERE session_id = ${id} ${lock}`
      return first(rows, Rows.sessionFromRow)
    }, orUnavailable),

    update: Effect.fnUntraced(function*(session) {
      yield* sql`UPDATE checkout_sessions SET ${sql.update(Rows.sessionChanges(session))}
        WHERE session_id = ${session.session_id}
          AND ${inScope({ accountId: session.account_id, livemode: session.livemode })}`
    }, orUnavailable),

    claimExpired: Effect.fnUntraced(function*(now, limit, livemode, clock) {
      const mode = livemode === undefined ? sql.literal("") : sql`AND s.livemode = ${livemode}`
      // A test clock's sessions only with its advance (migration 0025).
      const onClock = clock === undefined ? sql`AND s.test_clock_id IS NULL` : sql`AND s.test_clock_id = ${clock}`
      const due = yield* sql<Rows.CheckoutSessionRow>`SELECT * FROM checkout_sessions AS s
        WHERE s.status = 'open' AND s.expires_at <= ${Rows.toTimestamp(now)} ${mode} ${onClock}
          AND NOT EXISTS (
            SELECT 1 FROM payments AS p WHERE p.checkout_session_id = s.session_id AND p.status = 'processing'
          )
        ORDER BY s.expires_at, s.session_id
        LIMIT ${limit}
        FOR UPDATE OF s SKIP LOCKED`
      if (due.length === 0) return []
      // The statement above judged "no processing payment" by its snapshot, taken before it locked the rows. A checkout
      // that held a session's lock while recording a processing payment, and committed in between, is seen only by a
      // new statement: now that the rows are ours, ask again, and leave such sessions open for the settlement.
      const busy = yield* sql<{ readonly checkout_session_id: string }>`SELECT checkout_session_id FROM payments
        WHERE status = 'processing' AND checkout_session_id IN ${sql.in(due.map((row) => row.session_id))}`
      const charging = new Set(busy.map((row) => row.checkout_session_id))
      return due.filter((row) => !charging.has(row.session_id)).map(Rows.sessionFromRow)
    }, orUnavailable)
  }
}

/**
 * Customer portal sessions on PostgreSQL (migration 0015). The link (`url`, which holds its secret) is sealed by the
 * SecretBox, bound to the session's id; the link's secret and the browser cookie are found by their hashes.
 */
import { Effect, Either, Redacted } from "effect"
import type { PortalSession } from "../../../src/domain/PortalSession.js"
import type { SecretBoxShape } from "../../../src/ports/SecretBox.js"
import type { PortalSessionsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import { portalSessionFromRow, portalSessionToRow, type PortalSessionRow, toTimestamp } from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

export const makePortalSessionsRepo = ({ first, inScope, sql }: Queries, box: SecretBoxShape): PortalSessionsRepo => {
  /** The session with its link opened. One the box cannot open (a key this process lacks) is a configuration fault. */
  const fromRow = (row: PortalSessionRow): Effect.Effect<PortalSession> => {
    const stored = portalSessionFromRow(row)
    return Either.match(box.open(Redacted.value(stored.url), stored.customer_portal_session_id), {
      onLeft: (error) => Effect.dieMessage(`customer portal session ${stored.customer_portal_session_id}: ${error.message}`),
      onRight: (url) => Effect.succeed({ ...stored, url: Redacted.make(url) })
    })
  }
  const one = (rows: ReadonlyArray<PortalSessionRow>) => Effect.transposeOption(first(rows, fromRow))

  return {
    insert: Effect.fnUntraced(function*(s) {
      const url = yield* box.seal(Redacted.value(s.url), s.customer_portal_session_id)
      yield* sql`INSERT INTO customer_portal_sessions ${sql.insert(portalSessionToRow({ ...s, url: Redacted.make(url) }))}`
    }, orUnavailable),
    get: Effect.fnUntraced(function*(scope, id) {
      return yield* one(yield* sql<PortalSessionRow>`SELECT * FROM customer_portal_sessions
        WHERE customer_portal_session_id = ${id} AND ${inScope(scope)}`)
    }, orUnavailable),
    findByToken: Effect.fnUntraced(function*(tokenHash) {
      return yield* one(yield* sql<PortalSessionRow>`SELECT * FROM customer_portal_sessions WHERE token_hash = ${tokenHash}`)
    }, orUnavailable),
    findByCookie: Effect.fnUntraced(function*(cookieHash) {
      return yield* one(yield* sql<PortalSessionRow>`SELECT * FROM customer_portal_sessions WHERE cookie_hash = ${cookieHash}`)
    }, orUnavailable),
    markOpened: Effect.fnUntraced(function*(s) {
      if (s.opened_at === null || s.session_expires_at === null) return false
      const rows = yield* sql`UPDATE customer_portal_sessions SET opened_at = ${toTimestamp(s.opened_at)},
        cookie_hash = ${s.cookie_hash}, csrf_token = ${s.csrf_token},
        session_expires_at = ${toTimestamp(s.session_expires_at)}
        WHERE customer_portal_session_id = ${s.customer_portal_session_id} AND opened_at IS NULL
        RETURNING customer_portal_session_id`
      return rows.length === 1
    }, orUnavailable),
    endBrowsing: Effect.fnUntraced(function*(id, at) {
      yield* sql`UPDATE customer_portal_sessions SET session_expires_at = ${toTimestamp(at)}
        WHERE customer_portal_session_id = ${id} AND session_expires_at > ${toTimestamp(at)}`
    }, orUnavailable)
  }
}

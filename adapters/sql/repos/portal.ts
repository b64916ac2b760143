/**
 * Customer portal sessions on PostgreSQL (migration 0015). The link (`url`, which holds its secret) is sealed by the
 * SecretBox, bound to the session's id; the link's secret and the browser cookie are found by their hashes.
 */
import { Effect, Either, Redacted } from "effect"
import type { AccountId, CustomerId, PortalSessionId } from "../../../src/domain/Ids.js"
import type { PortalSession } from "../../../src/domain/PortalSession.js"
import type { SecretBoxShape } from "../../../src/ports/SecretBox.js"
import type { PortalSessionsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import { fromTimestamp, toTimestamp } from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

type Timestamp = Date | string

interface PortalRow {
  readonly customer_portal_session_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly customer_id: string
  readonly url: string
  readonly return_url: string | null
  readonly token_hash: string
  readonly created_at: Timestamp
  readonly expires_at: Timestamp
  readonly opened_at: Timestamp | null
  readonly cookie_hash: string | null
  readonly csrf_token: string | null
  readonly session_expires_at: Timestamp | null
}

const optionalTime = (t: Timestamp | null) => (t === null ? null : fromTimestamp(t))

export const makePortalSessionsRepo = ({ first, inScope, sql }: Queries, box: SecretBoxShape): PortalSessionsRepo => {
  /** The session with its link opened. One the box cannot open (a key this process lacks) is a configuration fault. */
  const fromRow = (row: PortalRow): Effect.Effect<PortalSession> =>
    Either.match(box.open(row.url, row.customer_portal_session_id), {
      onLeft: (error) => Effect.dieMessage(`customer portal session ${row.customer_portal_session_id}: ${error.message}`),
      onRight: (url): Effect.Effect<PortalSession> =>
        Effect.succeed({
          object: "customer_portal_session",
          customer_portal_session_id: row.customer_portal_session_id as PortalSessionId,
          account_id: row.account_id as AccountId,
          livemode: row.livemode,
          customer_id: row.customer_id as CustomerId,
          url: Redacted.make(url),
          return_url: row.return_url,
          token_hash: row.token_hash,
          created_at: fromTimestamp(row.created_at),
          expires_at: fromTimestamp(row.expires_at),
          opened_at: optionalTime(row.opened_at),
          cookie_hash: row.cookie_hash,
          csrf_token: row.csrf_token,
          session_expires_at: optionalTime(row.session_expires_at)
        })
    })
  const one = (rows: ReadonlyArray<PortalRow>) => Effect.transposeOption(first(rows, fromRow))

  return {
    insert: Effect.fnUntraced(function*(s) {
      const url = yield* box.seal(Redacted.value(s.url), s.customer_portal_session_id)
      yield* sql`INSERT INTO customer_portal_sessions ${
        sql.insert({
          customer_portal_session_id: s.customer_portal_session_id,
          account_id: s.account_id,
          livemode: s.livemode,
          customer_id: s.customer_id,
          url,
          return_url: s.return_url,
          token_hash: s.token_hash,
          created_at: toTimestamp(s.created_at),
          expires_at: toTimestamp(s.expires_at)
        })
      }`
    }, orUnavailable),
    get: Effect.fnUntraced(function*(scope, id) {
      return yield* one(yield* sql<PortalRow>`SELECT * FROM customer_portal_sessions
        WHERE customer_portal_session_id = ${id} AND ${inScope(scope)}`)
    }, orUnavailable),
    findByToken: Effect.fnUntraced(function*(tokenHash) {
      return yield* one(yield* sql<PortalRow>`SELECT * FROM customer_portal_sessions WHERE token_hash = ${tokenHash}`)
    }, orUnavailable),
    findByCookie: Effect.fnUntraced(function*(cookieHash) {
      return yield* one(yield* sql<PortalRow>`SELECT * FROM customer_portal_sessions WHERE cookie_hash = ${cookieHash}`)
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

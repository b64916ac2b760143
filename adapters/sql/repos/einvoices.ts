/**
 * The e-invoice outbox on PostgreSQL (migration 0020; docs/einvoicing.md).
 *
 * - `enqueue` inserts once per document (`ON CONFLICT DO NOTHING`), in the transaction that issues it.
 * - `claimDue` is one statement: the due, unleased pending rows of the given modes, oldest due first,
 *   `FOR UPDATE SKIP LOCKED` (concurrent claimers take different rows), one more attempt and the lease.
 * - `record` and `resend` lock the row, apply the domain's transition (`EInvoiceTransmission.afterOutcome`,
 *   `.resend`: the rule lives there, not here) and write it back, in one transaction.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { DateTime, Effect, Option, Schema } from "effect"
import * as T from "../../../src/domain/EInvoiceTransmission.js"
import type { EInvoicesRepo } from "../../../src/ports/repositories/EInvoiceRepository.js"
import type { Queries } from "../queries.js"
import { fromTimestamp, toTimestamp } from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"
import { inTransaction } from "./webhooks.js"

type Timestamp = Date | string

interface TransmissionRow {
  readonly document_id: string
  readonly kind: string
  readonly account_id: string
  readonly livemode: boolean
  readonly number: string
  readonly status: string
  readonly attempts: number
  readonly next_attempt_at: Timestamp | null
  readonly lease_until: Timestamp | null
  readonly reference: string | null
  readonly errors: unknown
  readonly last_error: string | null
  readonly parties: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const Stored = Schema.Struct({ errors: Schema.Array(T.ProviderError), parties: Schema.NullOr(T.Parties) })
const decodeStored = Schema.decodeUnknownSync(Stored)
const encodeParties = Schema.encodeSync(Schema.NullOr(T.Parties))

const fromRow = (row: TransmissionRow): T.Transmission => {
  const { errors, parties } = decodeStored({ errors: row.errors, parties: row.parties })
  return {
    document_id: row.document_id as T.Transmission["document_id"],
    kind: row.kind as T.DocumentKind,
    account_id: row.account_id as T.Transmission["account_id"],
    livemode: row.livemode,
    number: row.number,
    status: row.status as T.TransmissionStatus,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at === null ? null : fromTimestamp(row.next_attempt_at),
    reference: row.reference,
    errors,
    last_error: row.last_error,
    parties,
    created_at: fromTimestamp(row.created_at),
    updated_at: fromTimestamp(row.updated_at)
  }
}

const noNul = (text: string) => text.replace(/\u0000/g, "")

/** The columns a transition may change (with the lease), as a statement writes them. */
const changes = (t: T.Transmission) => ({
  status: t.status,
  attempts: t.attempts,
  next_attempt_at: t.next_attempt_at === null ? null : toTimestamp(t.next_attempt_at),
  reference: t.reference,
  // jsonb cannot carry a NUL character; a provider's message has no use for one.
  errors: JSON.stringify(t.errors.map((e) => ({ code: noNul(e.code), message: noNul(e.message) }))),
  last_error: t.last_error === null ? null : noNul(t.last_error),
  parties: t.parties === null ? null : JSON.stringify(encodeParties(t.parties)),
  updated_at: toTimestamp(t.updated_at)
})

export const makeEInvoicesRepo = ({ sql }: Queries): EInvoicesRepo => {
  const write = (t: T.Transmission) => {
    const c = changes(t)
    return sql`UPDATE einvoice_transmissions SET status = ${c.status}, attempts = ${c.attempts},
      next_attempt_at = ${c.next_attempt_at}, lease_until = NULL, reference = ${c.reference}, errors = ${c.errors}::jsonb,
      last_error = ${c.last_error}, parties = ${c.parties}::jsonb, updated_at = ${c.updated_at}
      WHERE document_id = ${t.document_id}`
  }
  const locked = (sql_: SqlClient.SqlClient, documentId: string) =>
    Effect.map(
      sql_<TransmissionRow>`SELECT * FROM einvoice_transmissions WHERE document_id = ${documentId} FOR UPDATE`,
      (rows) => rows[0]
    )

  return {
    enqueue: Effect.fnUntraced(function*(t) {
      const c = changes(t)
      yield* sql`INSERT INTO einvoice_transmissions (document_id, kind, account_id, livemode, number, status, attempts,
          next_attempt_at, reference, errors, last_error, parties, created_at, updated_at)
        VALUES (${t.document_id}, ${t.kind}, ${t.account_id}, ${t.livemode}, ${t.number}, ${c.status}, ${c.attempts},
          ${c.next_attempt_at}, ${c.reference}, ${c.errors}::jsonb, ${c.last_error}, ${c.parties}::jsonb,
          ${toTimestamp(t.created_at)}, ${c.updated_at})
        ON CONFLICT (document_id) DO NOTHING`
    }, orUnavailable),

    claimDue: Effect.fnUntraced(function*(now, limit, leaseMillis, livemodes) {
      if (livemodes.length === 0 || limit <= 0) return []
      const at = toTimestamp(now)
      const leaseUntil = toTimestamp(DateTime.add(now, { millis: leaseMillis }))
      const rows = yield* sql<TransmissionRow>`
        WITH due AS (
          SELECT document_id FROM einvoice_transmissions
          WHERE status = 'pending' AND next_attempt_at <= ${at} AND (lease_until IS NULL OR lease_until <= ${at})
            AND livemode IN ${sql.in(livemodes)}
          ORDER BY next_attempt_at, document_id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE einvoice_transmissions t SET attempts = t.attempts + 1, lease_until = ${leaseUntil}, updated_at = ${at}
        FROM due WHERE t.document_id = due.document_id
        RETURNING t.*`
      return rows.map(fromRow).sort((a, b) =>
        DateTime.toEpochMillis(a.next_attempt_at!) - DateTime.toEpochMillis(b.next_attempt_at!) ||
        (a.document_id < b.document_id ? -1 : 1)
      )
    }, orUnavailable),

    record: Effect.fnUntraced(function*({ at, attempt, documentId, outcome }) {
      return yield* inTransaction(sql, Effect.gen(function*() {
        const row = yield* locked(sql, documentId)
        if (row === undefined) return Option.none()
        const t = fromRow(row)
        const leased = row.lease_until !== null
        if (!T.outcomeApplies(t, leased, attempt)) return Option.some(t)
        const next = T.afterOutcome(t, leased, attempt, outcome, at)
        yield* write(next)
        return Option.some(next)
      }))
    }, orUnavailable),

    get: Effect.fnUntraced(function*(documentId) {
      const rows = yield* sql<TransmissionRow>`SELECT * FROM einvoice_transmissions WHERE document_id = ${documentId}`
      return Option.map(Option.fromNullable(rows[0]), fromRow)
    }, orUnavailable),

    resend: Effect.fnUntraced(function*(documentId, parties, now) {
      return yield* inTransaction(sql, Effect.gen(function*() {
        const row = yield* locked(sql, documentId)
        if (row === undefined) return Option.none()
        const t = fromRow(row)
        if (T.resendRefusal(t) !== undefined) return Option.some({ transmission: t, resent: false })
        const next = T.resend(t, parties, now)
        yield* write(next)
        return Option.some({ transmission: next, resent: true })
      }))
    }, orUnavailable),

    list: Effect.fnUntraced(function*(filter, limit) {
      const conditions = [
        filter.account_id === undefined ? sql`true` : sql`account_id = ${filter.account_id}`,
        filter.livemode === undefined ? sql`true` : sql`livemode = ${filter.livemode}`,
        filter.status === undefined ? sql`true` : sql`status = ${filter.status}`
      ]
      const rows = yield* sql<TransmissionRow>`SELECT * FROM einvoice_transmissions WHERE ${sql.and(conditions)}
        ORDER BY created_at DESC, document_id DESC LIMIT ${limit}`
      return rows.map(fromRow)
    }, orUnavailable)
  }
}

/**
 * The e-invoice outbox in memory (`Store.einvoices`), on a table of the memory store so that a transmission queued
 * in a document's transaction is undone with it. Same contract as PostgreSQL's (repos/einvoices.ts); the machine's
 * rules are the domain's (`EInvoiceTransmission`).
 */
import { DateTime, Option } from "effect"
import * as T from "../../src/domain/EInvoiceTransmission.js"
import type { EInvoicesRepo } from "../../src/ports/repositories/EInvoiceRepository.js"
import type { Access, Table } from "./Table.js"

/** A transmission with its lease (epoch millis; 0 when none). */
export type TransmissionRow = T.Transmission & { readonly lease_until: number }

const publicOf = ({ lease_until: _, ...t }: TransmissionRow): T.Transmission => t
const millis = DateTime.toEpochMillis

export const makeEInvoicesMemory = (
  table: Table<TransmissionRow>,
  { read, write }: Access
): EInvoicesRepo => ({
  enqueue: (t) =>
    write(() => {
      if (table.get(t.document_id) === undefined) table.set(t.document_id, { ...t, lease_until: 0 })
    }),
  claimDue: (now, limit, leaseMillis, livemodes) =>
    write(() => {
      const at = millis(now)
      const due = [...table.rows.values()]
        .filter((t) =>
          t.status === "pending" && t.next_attempt_at !== null && millis(t.next_attempt_at) <= at && t.lease_until <= at &&
          livemodes.includes(t.livemode)
        )
        .sort((a, b) =>
          millis(a.next_attempt_at!) - millis(b.next_attempt_at!) || (a.document_id < b.document_id ? -1 : 1)
        )
        .slice(0, limit)
      return due.map((t) => {
        const next = { ...T.claim(t, now), lease_until: at + leaseMillis }
        table.set(t.document_id, next)
        return publicOf(next)
      })
    }),
  record: ({ at, attempt, documentId, outcome }) =>
    write(() => {
      const t = table.get(documentId)
      if (t === undefined) return Option.none()
      const leased = t.lease_until !== 0
      if (!T.outcomeApplies(t, leased, attempt)) return Option.some(publicOf(t))
      const next = { ...T.afterOutcome(t, leased, attempt, outcome, at), lease_until: 0 }
      table.set(documentId, next)
      return Option.some(publicOf(next))
    }),
  get: (documentId) => read(() => Option.map(Option.fromNullable(table.get(documentId)), publicOf)),
  resend: (documentId, parties, now) =>
    write(() => {
      const t = table.get(documentId)
      if (t === undefined) return Option.none()
      if (T.resendRefusal(t) !== undefined) return Option.some({ transmission: publicOf(t), resent: false })
      const next = { ...T.resend(t, parties, now), lease_until: 0 }
      table.set(documentId, next)
      return Option.some({ transmission: publicOf(next), resent: true })
    }),
  list: (filter, limit) =>
    read(() =>
      [...table.rows.values()]
        .filter((t) =>
          (filter.account_id === undefined || t.account_id === filter.account_id) &&
          (filter.livemode === undefined || t.livemode === filter.livemode) &&
          (filter.status === undefined || t.status === filter.status)
        )
        .sort((a, b) => millis(b.created_at) - millis(a.created_at) || (a.document_id < b.document_id ? 1 : -1))
        .slice(0, limit)
        .map(publicOf)
    )
})

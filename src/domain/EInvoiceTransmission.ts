/**
 * E-invoice transmissions (docs/einvoicing.md): a business-to-business tax document handed to the merchant's
 * Accredited Service Provider (ASP). One transmission per document, queued in the transaction that issues it, then
 * attempted until the provider accepts or rejects it; an outage is retried on the webhook deliveries' schedule
 * (`Delivery.retrySchedule`), its last wait repeating: a tax document is never given up on.
 *
 * `pending` → `accepted` (final) | `rejected` (final, until the merchant fixes its details and sends it again).
 * Attempts only grow. The provider takes the document id as its idempotency key, so an attempt repeated after a
 * crash (its lease ran out) gets the first answer and transmits nothing twice.
 */
import { DateTime, Schema } from "effect"
import { retrySchedule } from "./Delivery.js"
import { AccountId, CreditNoteId, InvoiceId } from "./Ids.js"
import { type CreditNote, idOf, type Invoice } from "./TaxDocument.js"
import { Buyer, TaxProfile } from "./TaxProfile.js"

export const TransmissionStatus = Schema.Literal("pending", "accepted", "rejected")
export type TransmissionStatus = typeof TransmissionStatus.Type

export const DocumentKind = Schema.Literal("invoice", "credit_note")
export type DocumentKind = typeof DocumentKind.Type

/** Why a provider refused a document, in its words. */
export const ProviderError = Schema.Struct({ code: Schema.String, message: Schema.String }).annotations({
  identifier: "EInvoiceProviderError"
})
export type ProviderError = typeof ProviderError.Type

/**
 * The parties a resend writes instead of the document's own (the account's current tax profile, the customer's
 * current business details): the document's number, dates, lines and amounts never change.
 */
export const Parties = Schema.Struct({ supplier: Schema.NullOr(TaxProfile), buyer: Schema.NullOr(Buyer) }).annotations({
  identifier: "EInvoiceParties"
})
export type Parties = typeof Parties.Type

export const Transmission = Schema.Struct({
  /** The document's id: one transmission per document, and the provider's idempotency key. */
  document_id: Schema.Union(InvoiceId, CreditNoteId),
  kind: DocumentKind,
  account_id: AccountId,
  livemode: Schema.Boolean,
  /** The document's number (`INV-000001`), as lists show it. */
  number: Schema.String,
  status: TransmissionStatus,
  /** Attempts started so far (a claimed attempt counts even if its server died before it was answered). */
  attempts: Schema.NonNegativeInt,
  next_attempt_at: Schema.NullOr(Schema.DateTimeUtcFromSelf),
  /** The provider's reference, once accepted. */
  reference: Schema.NullOr(Schema.String),
  /** Why the provider rejected it (the last rejection). */
  errors: Schema.Array(ProviderError),
  /** Why the last attempt got no answer (the provider unavailable). */
  last_error: Schema.NullOr(Schema.String),
  /** Party details a resend writes instead of the document's (null: the document's own). */
  parties: Schema.NullOr(Parties),
  created_at: Schema.DateTimeUtcFromSelf,
  updated_at: Schema.DateTimeUtcFromSelf
}).annotations({ identifier: "EInvoiceTransmission" })
export type Transmission = typeof Transmission.Type

/** The provider took the document: its reference for it. */
export class Accepted extends Schema.TaggedClass<Accepted>()("Accepted", { reference: Schema.String }) {}
/** The provider refused the document: nothing was transmitted. */
export class Rejected extends Schema.TaggedClass<Rejected>()("Rejected", { errors: Schema.Array(ProviderError) }) {}
/** The provider gave no answer (transport failure, timeout, 5xx): the attempt is made again later. */
export class Unanswered extends Schema.TaggedClass<Unanswered>()("Unanswered", { message: Schema.String }) {}

/** A provider's answer to a submit. */
export type Answer = Accepted | Rejected
/** What one attempt came to. */
export type Outcome = Answer | Unanswered

type Document = Invoice | CreditNote

/** Whether a document goes to the ASP: its buyer is a business with a Peppol endpoint (business to business). */
export const needsEInvoice = (doc: Document): boolean => doc.buyer.business?.peppol_endpoint != null

export const documentIdOf: (doc: Document) => Transmission["document_id"] = idOf

/** The transmission a document issued at `now` queues: pending, due at once. */
export const make = (doc: Document, now: DateTime.Utc): Transmission => ({
  document_id: documentIdOf(doc),
  kind: doc.object,
  account_id: doc.account_id,
  livemode: doc.livemode,
  number: doc.number,
  status: "pending",
  attempts: 0,
  next_attempt_at: now,
  reference: null,
  errors: [],
  last_error: null,
  parties: null,
  created_at: now,
  updated_at: now
})

/**
 * The document as its e-invoice states it: the document itself, with a resend's parties instead of its own (the
 * buyer's customer and contact stay the document's).
 */
export const asSent = <D extends Document>(doc: D, parties: Parties | null): D =>
  parties === null ? doc : {
    ...doc,
    supplier: parties.supplier ?? doc.supplier,
    buyer: parties.buyer === null ? doc.buyer : { ...doc.buyer, business: parties.buyer }
  }

/**
 * The wait after attempt number `attempts` (1-based) went unanswered: the webhook deliveries' schedule (5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h), then 10 h for every attempt after.
 */
export const nextAttemptAt = (attempts: number, now: DateTime.Utc): DateTime.Utc =>
  DateTime.addDuration(now, retrySchedule[Math.min(Math.max(attempts, 1), retrySchedule.length) - 1]!)

/** A claim: attempt number `attempts + 1` starts (the store leases the row meanwhile). Only a pending one. */
export const claim = (t: Transmission, now: DateTime.Utc): Transmission =>
  t.status !== "pending" ? t : { ...t, attempts: t.attempts + 1, updated_at: now }

/**
 * Whether attempt number `attempt`'s outcome still applies: the transmission is pending, still at that attempt, and
 * leased. One claimed again since (its lease ran out) or already answered has moved on. (Written again as SQL in the
 * PostgreSQL store; the store agreement test proves the two agree.)
 */
export const outcomeApplies = (t: Transmission, leased: boolean, attempt: number): boolean =>
  t.status === "pending" && t.attempts === attempt && leased

/** What attempt number `attempt`'s outcome, at `now`, makes of the transmission (unchanged when it no longer applies). */
export const afterOutcome = (
  t: Transmission,
  leased: boolean,
  attempt: number,
  outcome: Outcome,
  now: DateTime.Utc
): Transmission => {
  if (!outcomeApplies(t, leased, attempt)) return t
  switch (outcome._tag) {
    case "Accepted":
      return { ...t, status: "accepted", reference: outcome.reference, errors: [], last_error: null, next_attempt_at: null, updated_at: now }
    case "Rejected":
      return { ...t, status: "rejected", errors: outcome.errors, last_error: null, next_attempt_at: null, updated_at: now }
    case "Unanswered":
      return { ...t, last_error: outcome.message, next_attempt_at: nextAttemptAt(attempt, now), updated_at: now }
  }
}

/** Why a transmission cannot be sent again. */
export const resendRefusal = (t: Transmission): string | undefined =>
  t.status === "rejected"
    ? undefined
    : `E-invoice ${t.number} (${t.document_id}) is ${t.status}: only a rejected e-invoice can be sent again`

/** Sent again with `parties` (a rejected one only: anything else is returned as it is): pending, due at once. */
export const resend = (t: Transmission, parties: Parties, now: DateTime.Utc): Transmission =>
  resendRefusal(t) !== undefined ? t : { ...t, status: "pending", parties, errors: [], next_attempt_at: now, updated_at: now }

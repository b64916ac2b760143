/**
 * The merchant's Accredited Service Provider (ASP), which takes a business-to-business e-invoice into the UAE's
 * Peppol network (docs/einvoicing.md), and the writer of the e-invoice it takes.
 *
 * What an adapter must guarantee:
 * 1. `submit` is idempotent by `document_id` (the idempotency key): a provider never makes two transmissions for one
 *    document id. Once a document was accepted, every later submit of its id answers that acceptance (the same
 *    reference) and transmits nothing. A rejected submit transmitted nothing, so a later one of the same id is
 *    checked afresh: the same e-invoice gets the same rejection, a corrected one (a resend) may be accepted.
 * 2. The answer is `Accepted { reference }` or `Rejected { errors }`. Anything else (a transport failure, a timeout,
 *    a 5xx) is `ProviderUnavailable`: whether the document arrived is unknown, and the same submit is made again
 *    later (1. makes that safe).
 * 3. `serves(livemode)`: whether it takes documents of that mode at all. A mode no provider serves keeps its
 *    documents pending (a live merchant without a configured ASP), never rejected.
 */
import type { Effect } from "effect"
import { Context, Schema } from "effect"
import type { Answer, DocumentKind, Parties } from "../domain/EInvoiceTransmission.js"
import type { CreditNote, Invoice } from "../domain/TaxDocument.js"

export { Accepted, type Answer, Rejected } from "../domain/EInvoiceTransmission.js"

/** The provider could not be reached or did not answer (transport failure, timeout, 5xx): retryable. */
export class ProviderUnavailable extends Schema.TaggedError<ProviderUnavailable>()("ProviderUnavailable", {
  message: Schema.String
}) {}

/** One document handed to the provider. */
export interface Submission {
  /** The idempotency key. */
  readonly document_id: string
  /** The document's UUID (PINT AE `UUID`). */
  readonly uuid: string
  readonly kind: DocumentKind
  readonly livemode: boolean
  /** The PINT AE e-invoice. */
  readonly xml: string
  /** The document as the e-invoice states it (with a resend's parties). */
  readonly document: Invoice | CreditNote
}

/** Where a transmission the provider accepted stands now, in the provider's words. */
export interface ProviderStatus {
  readonly reference: string
  /** `received`, `delivered`, `failed`…; `unknown` for a reference the provider does not know. */
  readonly status: string
  readonly detail: string | null
}

export interface EInvoiceProviderShape {
  readonly serves: (livemode: boolean) => boolean
  readonly submit: (submission: Submission) => Effect.Effect<Answer, ProviderUnavailable>
  readonly status: (reference: string, livemode: boolean) => Effect.Effect<ProviderStatus, ProviderUnavailable>
}

export class EInvoiceProvider extends Context.Tag("fils/EInvoiceProvider")<EInvoiceProvider, EInvoiceProviderShape>() {}

export interface EInvoiceWriterShape {
  /** The e-invoice of a document, with `parties` written instead of its own when given (the rest unchanged). */
  readonly xml: (document: Invoice | CreditNote, parties: Parties | null) => string
}

/** The e-invoice format (PINT AE: adapters/einvoice/PintAe.ts). */
export class EInvoiceWriter extends Context.Tag("fils/EInvoiceWriter")<EInvoiceWriter, EInvoiceWriterShape>() {}

/**
 * E-invoicing (docs/einvoicing.md): a business-to-business tax document is handed to the merchant's Accredited
 * Service Provider through the EInvoiceProvider port. `enqueue` queues its transmission in the transaction that
 * issues the document (so the transmission exists exactly when the document does); the worker claims what is due,
 * writes the e-invoice and submits it under the document's id as the idempotency key, and records the answer:
 * accepted, rejected, or unanswered (tried again later on the webhook deliveries' schedule). A claimed transmission
 * whose server died is claimed again once its lease runs out; the provider answers a repeated submit with its first
 * answer, so nothing is transmitted twice. A rejected one is sent again by hand (`resend`) once the merchant fixed
 * its tax profile or the customer's details.
 */
import { DateTime, Duration, Effect, Option, Schedule } from "effect"
import { type Authority, sees } from "../domain/Account.js"
import * as T from "../domain/EInvoiceTransmission.js"
import { InvalidState, notFound, type StoreUnavailable } from "../domain/Errors.js"
import type { CreditNoteId, InvoiceId } from "../domain/Ids.js"
import type { CreditNote, Invoice } from "../domain/TaxDocument.js"
import { EInvoiceProvider, EInvoiceWriter, ProviderUnavailable } from "../ports/EInvoiceProvider.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { CustomerRepository } from "../ports/repositories/CustomerRepository.js"
import { DocumentRepository } from "../ports/repositories/DocumentRepository.js"
import { EInvoiceRepository, type TransmissionFilter } from "../ports/repositories/EInvoiceRepository.js"
import { eventTime } from "./Time.js"

/** Transmissions claimed at once, and submitted at once. */
const batch = 16
/** How long a submit may take before it counts as unanswered: longer than any adapter's own timeout (10 s). */
const submitTimeout = Duration.seconds(30)
/** Longer than a submit may take, so a live attempt never loses its lease. */
const leaseMillis = Duration.toMillis(submitTimeout) + 30_000
/** How long an idle worker waits before it looks again. */
const pollMillis = 1_000

/**
 * Queues the e-invoice of a document just issued: call it inside the transaction that inserts the document. Nothing
 * for a document that goes to no ASP (`EInvoiceTransmission.needsEInvoice`).
 */
export const enqueue = Effect.fn("EInvoices.enqueue")(function*(document: Invoice | CreditNote) {
  if (!T.needsEInvoice(document)) return
  const repo = yield* EInvoiceRepository
  // Queued on the real time, also for a document issued on a test clock's: the sender runs on the real time.
  yield* repo.enqueue(T.make(document, yield* eventTime))
})

/** A transmission as lists show it: `waiting` says why a pending one is not being sent, when nothing sends it. */
export interface Listed extends T.Transmission {
  readonly waiting: string | null
}

export class EInvoices extends Effect.Service<EInvoices>()("fils/EInvoices", {
  effect: Effect.gen(function*() {
    const repo = yield* EInvoiceRepository
    const documents = yield* DocumentRepository
    const provider = yield* EInvoiceProvider
    const writer = yield* EInvoiceWriter
    const accounts = yield* AccountRepository
    const customers = yield* CustomerRepository
    const livemodes = [false, true].filter(provider.serves)

    const documentOf = (t: T.Transmission): Effect.Effect<Option.Option<Invoice | CreditNote>, StoreUnavailable> =>
      t.kind === "invoice"
        ? documents.findInvoice(t.document_id as InvoiceId)
        : documents.findCreditNote(t.document_id as CreditNoteId)

    /**
     * Writes, submits and records one claimed attempt. Only the submit can be interrupted (its timeout must cut off a
     * provider that never answers): a shutdown then leaves the attempt unrecorded, and once its lease runs out it is
     * made again under the same idempotency key, which the provider answers with its first answer.
     */
    const attempt = (t: T.Transmission) =>
      Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
        const found = yield* documentOf(t)
        const outcome: T.Outcome = Option.isNone(found)
          ? new T.Unanswered({ message: `Document ${t.document_id} was not found` })
          : yield* restore(provider.submit({
            document_id: t.document_id,
            uuid: found.value.uuid,
            kind: t.kind,
            livemode: t.livemode,
            xml: writer.xml(found.value, t.parties),
            document: T.asSent(found.value, t.parties)
          })).pipe(
            Effect.timeoutFail({
              duration: submitTimeout,
              onTimeout: () => new ProviderUnavailable({ message: `No answer within ${Duration.format(submitTimeout)}` })
            }),
            Effect.catchTag("ProviderUnavailable", (e) => Effect.succeed(new T.Unanswered({ message: e.message })))
          )
        yield* repo.record({ documentId: t.document_id, attempt: t.attempts, outcome, at: yield* DateTime.now })
        yield* Effect.logInfo(`E-invoice ${t.number} ${outcome._tag.toLowerCase()}`).pipe(
          Effect.annotateLogs({ document_id: t.document_id, attempt: t.attempts })
        )
      }))

    /** One round: claim what is due (of the modes a provider serves) and submit it. How many were attempted. */
    const processOnce = Effect.fn("EInvoices.processOnce")(function*() {
      if (livemodes.length === 0) return 0
      const claimed = yield* repo.claimDue(yield* DateTime.now, batch, leaseMillis, livemodes)
      yield* Effect.forEach(
        claimed,
        (t) =>
          attempt(t).pipe(
            // Not recorded (the store went away): the lease runs out and the attempt is made again.
            Effect.catchAllCause((cause) => Effect.logWarning("E-invoice attempt not recorded", cause))
          ),
        { concurrency: batch, discard: true }
      )
      return claimed.length
    })

    /**
     * Sends forever: a round, then the next at once while there was work, else after the poll interval. A store
     * outage backs off up to 30 s and resumes by itself.
     */
    const worker: Effect.Effect<never> = Effect.gen(function*() {
      if (!provider.serves(true)) {
        yield* Effect.logWarning(
          "No e-invoice provider is configured for live mode: live e-invoices stay pending until one is (docs/einvoicing.md)"
        )
      }
      const round = Effect.flatMap(processOnce(), (n) => (n === 0 ? Effect.sleep(pollMillis) : Effect.void))
      return yield* round.pipe(
        Effect.retry(Schedule.exponential("500 millis").pipe(Schedule.either(Schedule.spaced("30 seconds")))),
        Effect.catchAllCause((cause) => Effect.logError("E-invoice round failed", cause)),
        Effect.forever
      )
    }).pipe(Effect.withSpan("EInvoices.worker"))

    const listed = (t: T.Transmission): Listed => ({
      ...t,
      waiting: t.status === "pending" && !provider.serves(t.livemode)
        ? `No e-invoice provider is configured for ${t.livemode ? "live" : "test"} mode: it waits until one is`
        : null
    })

    /** Transmissions `authority` may see, newest first (a scope sees only its own, whatever the filter says). */
    const list = Effect.fn("EInvoices.list")(function*(authority: Authority, filter: TransmissionFilter, limit = 100) {
      const scoped: TransmissionFilter = "_tag" in authority
        ? filter
        : { ...filter, account_id: authority.accountId, livemode: authority.livemode }
      return (yield* repo.list(scoped, limit)).map(listed)
    })

    /** A transmission `authority` may see, by its document's id. */
    const get = Effect.fn("EInvoices.get")(function*(authority: Authority, documentId: string) {
      const found = Option.filter(yield* repo.get(documentId), (t) => sees(authority, t))
      return Option.isSome(found) ? listed(found.value) : yield* notFound("e-invoice", documentId)
    })

    /**
     * Sends a rejected e-invoice again, with the supplier's details from the account's current tax profile and the
     * buyer's from the customer's current business details: the document's number, dates, lines and amounts never
     * change. Anything but a rejected one is refused, and nothing changes.
     */
    const resend = Effect.fn("EInvoices.resend")(function*(authority: Authority, documentId: string) {
      const t = yield* get(authority, documentId)
      const refusal = T.resendRefusal(t)
      if (refusal !== undefined) return yield* new InvalidState({ message: refusal })
      const doc = yield* documentOf(t)
      if (Option.isNone(doc)) return yield* notFound("document", documentId)
      const account = yield* accounts.get(t.account_id)
      const customerId = doc.value.buyer.customer_id
      const customer = customerId === null
        ? Option.none()
        : yield* customers.get({ accountId: t.account_id, livemode: t.livemode }, customerId)
      // The current details, where there are any; else the document's own.
      const parties: T.Parties = {
        supplier: Option.getOrNull(Option.flatMapNullable(account, (a) => a.tax_profile)),
        buyer: Option.getOrNull(Option.flatMapNullable(customer, (c) => c.business))
      }
      const resent = yield* repo.resend(documentId, parties, yield* DateTime.now)
      if (Option.isNone(resent)) return yield* notFound("e-invoice", documentId)
      // Sent again by someone else meanwhile: refused, as if that had come first.
      if (!resent.value.resent) {
        return yield* new InvalidState({
          message: T.resendRefusal(resent.value.transmission) ?? `E-invoice ${t.number} was just sent again`
        })
      }
      return listed(resent.value.transmission)
    })

    return { processOnce, worker, list, get, resend } as const
  })
}) {}

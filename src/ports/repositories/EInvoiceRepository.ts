/**
 * The e-invoice outbox: one transmission per business-to-business tax document (docs/einvoicing.md).
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Option } from "effect"
import { Context } from "effect"
import type { Outcome, Parties, Transmission, TransmissionStatus } from "../../domain/EInvoiceTransmission.js"
import type { AccountId } from "../../domain/Ids.js"
import type { Op } from "./Op.js"

export interface TransmissionFilter {
  readonly account_id?: AccountId | undefined
  readonly livemode?: boolean | undefined
  readonly status?: TransmissionStatus | undefined
}

/** How attempt number `attempt` of a transmission went (`EInvoicesRepo.record`). */
export interface TransmissionRecord {
  readonly documentId: string
  readonly attempt: number
  readonly outcome: Outcome
  readonly at: DateTime.Utc
}

export interface EInvoicesRepo {
  /** Queues a transmission, inside the transaction that issues its document. Once per document: again, nothing. */
  readonly enqueue: (transmission: Transmission) => Op<void>
  /**
   * Claims up to `limit` pending transmissions due at `now` whose lease is free, of the modes in `livemodes`, oldest
   * due first: each one's `attempts` goes up by one (`EInvoiceTransmission.claim`) and it is leased until
   * `now + leaseMillis`, so no other server starts the same attempt; one whose server died is claimed again once the
   * lease ran out. Atomic.
   */
  readonly claimDue: (
    now: DateTime.Utc,
    limit: number,
    leaseMillis: number,
    livemodes: ReadonlyArray<boolean>
  ) => Op<ReadonlyArray<Transmission>>
  /**
   * Records how an attempt went (`EInvoiceTransmission.afterOutcome`) and drops the lease; ignored when the
   * transmission moved on meanwhile (claimed again, or answered). The transmission as it is afterwards.
   */
  readonly record: (record: TransmissionRecord) => Op<Option.Option<Transmission>>
  readonly get: (documentId: string) => Op<Option.Option<Transmission>>
  /**
   * Makes a rejected transmission pending again with `parties` (`EInvoiceTransmission.resend`), atomically: the
   * transmission as it is afterwards and whether this call sent it again (not when it was not rejected), none when
   * there is none.
   */
  readonly resend: (
    documentId: string,
    parties: Parties,
    now: DateTime.Utc
  ) => Op<Option.Option<{ readonly transmission: Transmission; readonly resent: boolean }>>
  /** Newest first, at most `limit`. */
  readonly list: (filter: TransmissionFilter, limit: number) => Op<ReadonlyArray<Transmission>>
}

export type EInvoiceRepositoryShape = EInvoicesRepo

export class EInvoiceRepository extends Context.Tag("fils/EInvoiceRepository")<EInvoiceRepository, EInvoiceRepositoryShape>() {}

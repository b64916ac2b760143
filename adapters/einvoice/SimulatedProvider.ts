/**
 * A simulated Accredited Service Provider (docs/einvoicing.md), for test mode and staging as the simulated processor
 * is for payments: it keeps the EInvoiceProvider port's whole contract (idempotent by document id) and can be made
 * to show the faults a real ASP has, by the buyer's TRN (`testTrns`). It checks a document with Fils' own PINT AE
 * rules (PintAeRules.ts) and rejects it with their findings; it transmits nothing anywhere. It never takes live-mode
 * documents. What it answered lives in this process's memory.
 */
import { Duration, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { Accepted, type Answer, Rejected } from "../../src/domain/EInvoiceTransmission.js"
import type { ProviderError } from "../../src/domain/EInvoiceTransmission.js"
import { EInvoiceProvider, type ProviderStatus, ProviderUnavailable, type Submission } from "../../src/ports/EInvoiceProvider.js"
import { check } from "./PintAeRules.js"

/** The simulated provider's test TRNs, by what a buyer with that TRN gets (each a valid UAE TRN). */
export const testTrns = {
  /** Rejected, always (`sim-rejected-trn`): a buyer the ASP refuses. */
  rejected: "100000000000103",
  /** Unavailable for the first two submits of each document, then answered. */
  unavailableTwice: "100000000000203",
  /** Answered after `slow` (by default 15 s: past the HTTP adapter's 10 s timeout, so unavailable over HTTP). */
  slow: "100000000000303"
} as const

/** What the simulation decides on: the document id, its e-invoice, the buyer's TRN and what Fils' rules found. */
export interface View {
  readonly document_id: string
  readonly xml: string
  readonly buyer_trn: string | null
  readonly findings: ReadonlyArray<ProviderError>
}

export interface SimulationOptions {
  /** How long a `testTrns.slow` buyer's documents take. */
  readonly slow?: Duration.DurationInput
}

/**
 * The simulated ASP's memory and decisions, shared by the in-process provider and the HTTP test server
 * (test/support/einvoiceServer.ts). Every submit of a document id after an acceptance answers that acceptance; a
 * rejected e-invoice submitted again unchanged gets the same rejection, a changed one (a resend) is checked afresh.
 */
export const makeSimulation = (options: SimulationOptions = {}) =>
  Effect.sync(() => {
    const slow = Duration.decode(options.slow ?? Duration.seconds(15))
    const accepted = new Map<string, string>()
    const rejected = new Map<string, { readonly xml: string; readonly answer: Rejected }>()
    const submits = new Map<string, number>()
    const references = new Map<string, string>()

    const decide = (view: View): Answer => {
      const reference = accepted.get(view.document_id)
      if (reference !== undefined) return new Accepted({ reference })
      const before = rejected.get(view.document_id)
      if (before !== undefined && before.xml === view.xml) return before.answer
      const errors: ReadonlyArray<ProviderError> = view.buyer_trn === testTrns.rejected
        ? [...view.findings, {
          code: "sim-rejected-trn",
          message: `The simulated provider rejects the buyer TRN ${testTrns.rejected} (a test TRN: docs/einvoicing.md)`
        }]
        : view.findings
      if (errors.length > 0) {
        const answer = new Rejected({ errors })
        rejected.set(view.document_id, { xml: view.xml, answer })
        return answer
      }
      const made = `sim_${randomUUID()}`
      accepted.set(view.document_id, made)
      references.set(made, view.document_id)
      return new Accepted({ reference: made })
    }

    const answer = (view: View): Effect.Effect<Answer, ProviderUnavailable> =>
      Effect.suspend(() => {
        const n = (submits.get(view.document_id) ?? 0) + 1
        submits.set(view.document_id, n)
        if (view.buyer_trn === testTrns.unavailableTwice && n <= 2) {
          return Effect.fail(new ProviderUnavailable({ message: `The simulated provider is unavailable (submit ${n} of 2)` }))
        }
        const answered = Effect.sync(() => decide(view))
        return view.buyer_trn === testTrns.slow ? Effect.delay(answered, slow) : answered
      })

    const status = (reference: string): ProviderStatus =>
      references.has(reference)
        ? { reference, status: "delivered", detail: null }
        : { reference, status: "unknown", detail: "The simulated provider made no transmission with this reference" }

    return {
      answer,
      status,
      /** Transmissions made for a document id (0 or 1: never two). */
      transmissionsOf: (documentId: string): number => (accepted.has(documentId) ? 1 : 0),
      /** Submits received for a document id, answered or not. */
      submitsOf: (documentId: string): number => submits.get(documentId) ?? 0
    }
  })

export type Simulation = Effect.Effect.Success<ReturnType<typeof makeSimulation>>

/** The view of a submission made in this process: the document itself is at hand, so Fils' rules check it. */
export const viewOf = (submission: Submission): View => ({
  document_id: submission.document_id,
  xml: submission.xml,
  buyer_trn: submission.document.buyer.business?.trn ?? null,
  findings: check(submission.document).map((f) => ({ code: f.rule, message: f.message }))
})

/** The EInvoiceProvider port on a simulation: test mode only. */
export const simulatedProvider = (simulation: Simulation) =>
  EInvoiceProvider.of({
    serves: (livemode) => !livemode,
    submit: (submission) =>
      submission.livemode
        ? Effect.fail(new ProviderUnavailable({ message: "The simulated provider takes no live-mode documents" }))
        : simulation.answer(viewOf(submission)),
    status: (reference) => Effect.sync(() => simulation.status(reference))
  })

export const makeSimulatedProvider = (options: SimulationOptions = {}) =>
  Layer.effect(EInvoiceProvider, Effect.map(makeSimulation(options), simulatedProvider))

export const SimulatedProvider = makeSimulatedProvider()

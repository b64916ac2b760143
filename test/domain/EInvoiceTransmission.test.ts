/**
 * The e-invoice transmission (docs/einvoicing.md) as a pure machine over random sequences: two servers claim,
 * leases run out, attempts are answered late or in any order, the provider accepts, rejects or is unavailable, and
 * the merchant sends a rejected one again. Accepted and rejected are final (rejected until a resend), attempts only
 * grow, and a provider that keys on the document id never accepts two submits of it.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, FastCheck as fc } from "effect"
import * as Delivery from "../../src/domain/Delivery.js"
import * as T from "../../src/domain/EInvoiceTransmission.js"
import type { AccountId, InvoiceId } from "../../src/domain/Ids.js"

type Command =
  | { readonly _tag: "Claim"; readonly worker: 0 | 1 }
  | { readonly _tag: "ExpireLease" }
  | { readonly _tag: "Answer"; readonly worker: 0 | 1; readonly reachable: boolean }
  | { readonly _tag: "Resend"; readonly fixed: boolean }

const worker = fc.constantFrom(0 as const, 1 as const)
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ _tag: fc.constant("Claim" as const), worker }),
  fc.record({ _tag: fc.constant("ExpireLease" as const) }),
  fc.record({ _tag: fc.constant("Answer" as const), worker, reachable: fc.boolean() }),
  fc.record({ _tag: fc.constant("Resend" as const), fixed: fc.boolean() })
)

const t0 = DateTime.unsafeMake(Date.UTC(2026, 10, 25, 8))

const transmission = (): T.Transmission => ({
  document_id: "inv_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f" as InvoiceId,
  kind: "invoice",
  account_id: "acct_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f" as AccountId,
  livemode: false,
  number: "INV-000001",
  status: "pending",
  attempts: 0,
  next_attempt_at: t0,
  reference: null,
  errors: [],
  last_error: null,
  parties: null,
  created_at: t0,
  updated_at: t0
})

const fixedBuyer: T.Parties = {
  supplier: null,
  buyer: { business_name: "Fixed LLC", trn: "100000000000003" as never, address: null, peppol_endpoint: null }
}

/**
 * Runs `commands` against the machine and a provider that keys on the document id, checking the invariants after
 * every step.
 */
const run = (commands: ReadonlyArray<Command>, rejectedAtFirst: boolean): void => {
  let t = transmission()
  let now = t0
  // The row's lease: present from a claim until an outcome that applied; `expired` lets another claim take it.
  let leased = false
  let expired = false
  // Each server's attempt in flight, with the content it claimed.
  const inFlight: Array<{ attempt: number; parties: T.Parties | null } | undefined> = [undefined, undefined]
  // The provider: keyed by the document id, an acceptance is answered again and never made twice.
  let accepted: string | undefined
  let acceptances = 0
  const submit = (parties: T.Parties | null): T.Answer => {
    if (accepted !== undefined) return new T.Accepted({ reference: accepted })
    if (rejectedAtFirst && parties === null) return new T.Rejected({ errors: [{ code: "BR-AE-01", message: "bad TRN" }] })
    accepted = `ref-${++acceptances}`
    return new T.Accepted({ reference: accepted })
  }

  for (const command of commands) {
    now = DateTime.addDuration(now, Duration.seconds(1))
    const before = t
    switch (command._tag) {
      case "Claim": {
        if (t.status !== "pending" || (leased && !expired) || inFlight[command.worker] !== undefined) break
        t = T.claim(t, now)
        leased = true
        expired = false
        inFlight[command.worker] = { attempt: t.attempts, parties: t.parties }
        break
      }
      case "ExpireLease":
        expired = leased
        break
      case "Answer": {
        const running = inFlight[command.worker]
        if (running === undefined) break
        inFlight[command.worker] = undefined
        const outcome: T.Outcome = command.reachable ? submit(running.parties) : new T.Unanswered({ message: "timeout" })
        const applies = T.outcomeApplies(t, leased, running.attempt)
        t = T.afterOutcome(t, leased, running.attempt, outcome, now)
        if (applies) {
          leased = false
          expired = false
        } else assert.deepStrictEqual(t, before, "an outcome that no longer applies changes nothing")
        break
      }
      case "Resend": {
        const refusal = T.resendRefusal(t)
        t = T.resend(t, command.fixed ? fixedBuyer : { supplier: null, buyer: null }, now)
        if (refusal !== undefined) assert.deepStrictEqual(t, before, "only a rejected transmission is sent again")
        else {
          assert.strictEqual(t.status, "pending")
          assert.deepStrictEqual(t.errors, [])
        }
        break
      }
    }
    assert.isAtLeast(t.attempts, before.attempts, "attempts only grow")
    if (before.status === "accepted") assert.deepStrictEqual(t, before, "accepted is final")
    if (before.status === "rejected" && command._tag !== "Resend") assert.deepStrictEqual(t, before, "rejected is final")
    assert.isAtMost(acceptances, 1, "the provider accepted one document twice")
    if (t.status === "accepted") assert.strictEqual(t.reference, accepted)
    else assert.isNull(t.reference)
    assert.strictEqual(t.status === "rejected", t.errors.length > 0)
    if (t.status === "rejected") assert.isUndefined(accepted, "rejected here, accepted at the provider")
    assert.strictEqual(t.status === "pending", t.next_attempt_at !== null, "a pending one is due some time, no other")
  }
}

describe("EInvoiceTransmission (property)", () => {
  it.prop("accepted and rejected are final, attempts only grow, never two acceptances for one document", {
    commands: fc.array(commandArb, { maxLength: 60 }),
    // The document as first issued may be one the provider rejects.
    rejectedAtFirst: fc.boolean()
  }, ({ commands, rejectedAtFirst }) => run(commands, rejectedAtFirst), { fastCheck: { numRuns: 1_000 } })

  it("an attempt answered after its lease ran out changes nothing, even once the transmission was sent again", () =>
    run([
      { _tag: "Claim", worker: 0 },
      { _tag: "ExpireLease" },
      { _tag: "Claim", worker: 1 },
      { _tag: "Answer", worker: 1, reachable: true }, // rejected
      { _tag: "Resend", fixed: true },
      { _tag: "Claim", worker: 1 },
      { _tag: "Answer", worker: 0, reachable: true }, // the first attempt's rejection, late
      { _tag: "Answer", worker: 1, reachable: true } // the corrected one: accepted
    ], true))


  it("an unanswered attempt waits as webhook deliveries do, then 10 hours for every attempt after", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) =>
      DateTime.toEpochMillis(T.nextAttemptAt(n, t0)) - DateTime.toEpochMillis(t0)
    )
    assert.deepStrictEqual(waits, [
      ...Delivery.retrySchedule.map(Duration.toMillis),
      Duration.toMillis(Duration.hours(10)),
      Duration.toMillis(Duration.hours(10))
    ])
  })

  it("goes to the ASP only when the buyer is a business with a Peppol endpoint", () => {
    const buyer = (business: T.Parties["buyer"]) => ({ customer_id: null, name: null, email: null, business })
    const doc = (business: T.Parties["buyer"]) => ({ buyer: buyer(business) }) as never
    assert.isFalse(T.needsEInvoice(doc(null)))
    assert.isFalse(T.needsEInvoice(doc({ ...fixedBuyer.buyer!, peppol_endpoint: null })))
    assert.isTrue(T.needsEInvoice(doc({ ...fixedBuyer.buyer!, peppol_endpoint: { scheme: "0235", id: "1000000000" } })))
  })
})

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import type { Principal } from "../../../src/application/Accounts.js"
import { Payments } from "../../../src/application/Payments.js"
import { CheckoutSessionId, CustomerId, parseId, PaymentId } from "../../../src/domain/Ids.js"
import { CurrentPrincipal, FilsApi, type PaymentListQuery } from "../Api.js"
import { pathId } from "./ids.js"

const withId = pathId(PaymentId, "payment")
const customerId = parseId(CustomerId)
const sessionId = parseId(CheckoutSessionId)
/** An id filter of the wrong shape can match nothing: it is kept as given (never equal to a real id). */
const asFilter = <A>(parse: (s: string) => A | undefined, raw: string | undefined) =>
  raw === undefined ? undefined : (parse(raw) ?? (raw as A))

/** The two reads, as the group's endpoints and their hot routes (`ApiMiddleware.ts`) both answer them. */
export const paymentReads = (payments: Payments) => ({
  list: (principal: Principal, query: typeof PaymentListQuery.Type) =>
    payments.list(principal, {
      ...query,
      customer_id: asFilter(customerId, query.customer_id),
      checkout_session_id: asFilter(sessionId, query.checkout_session_id)
    }),
  get: (principal: Principal, rawId: string) => Effect.flatMap(withId(rawId), (id) => payments.get(principal, id))
})

export const PaymentsLive = HttpApiBuilder.group(FilsApi, "payments", (handlers) =>
  Effect.gen(function*() {
    const reads = paymentReads(yield* Payments)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => reads.list(p, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => reads.get(p, path.id)))
  }))

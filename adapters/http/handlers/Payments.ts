import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Payments } from "../../../src/application/Payments.js"
import { CheckoutSessionId, CustomerId, parseId, PaymentId } from "../../../src/domain/Ids.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { pathId } from "./ids.js"

const withId = pathId(PaymentId, "payment")
const customerId = parseId(CustomerId)
const sessionId = parseId(CheckoutSessionId)
/** An id filter of the wrong shape can match nothing: it is kept as given (never equal to a real id). */
const asFilter = <A>(parse: (s: string) => A | undefined, raw: string | undefined) =>
  raw === undefined ? undefined : (parse(raw) ?? (raw as A))

export const PaymentsLive = HttpApiBuilder.group(FilsApi, "payments", (handlers) =>
  Effect.gen(function*() {
    const payments = yield* Payments
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          payments.list(p, {
            ...urlParams,
            customer_id: asFilter(customerId, urlParams.customer_id),
            checkout_session_id: asFilter(sessionId, urlParams.checkout_session_id)
          })))
      .handle("get", ({ path }) =>
        Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => payments.get(p, id))))
  }))

/**
 * A whole sale with the library alone, no HTTP: creates a product and a checkout session, pays it with a simulated
 * test card (a decline first, then a success), refunds part of it, and reads the event record. On the memory store,
 * or on PostgreSQL with `FILS_STORE=postgres` (`DATABASE_URL`, or the embedded database; see engine.ts).
 *
 *   node --import tsx examples/engine/checkout.ts
 *   FILS_STORE=postgres node --import tsx examples/engine/checkout.ts
 */
import { Console, Effect } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Events } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { Products } from "../../src/application/Products.js"
import { fromSubmitted } from "../../src/domain/CheckoutForm.js"
import { formatAmount } from "../../src/domain/Money.js"
import { EngineLive } from "./engine.js"

/**
 * The form a customer submits, with a test card that expires a few years from now, whenever this runs. The card
 * number and CVC are `Redacted` from the moment the form is read (`fromSubmitted`) to the processor's adapter.
 */
const card = (number: string) => fromSubmitted({
  name: "Layla Haddad",
  email: "layla@example.ae",
  card_number: number,
  exp_month: "12",
  exp_year: String(new Date().getUTCFullYear() + 3),
  cvc: "123"
})

const program = Effect.gen(function*() {
  const { account } = yield* (yield* Accounts).create({ business_name: "Dune Coffee Roasters" })
  const scope = { accountId: account.account_id, livemode: false }

  const beans = yield* (yield* Products).create(scope, { name: "Single origin, 250 g", price: 6500, currency: "AED" })
  const checkout = yield* Checkout
  const session = yield* checkout.create(scope, {
    product_cart: [{ product_id: beans.product_id, quantity: 2 }],
    return_url: "https://dune.example/thanks"
  })
  yield* Console.log(`session ${session.session_id}: ${formatAmount(session.total_amount, session.currency)}`)

  // The hosted page does this when the customer submits the form (form_token guards against forged posts).
  const declined = yield* checkout.pay(session.session_id, session.form_token, card("4000000000000002"))
  if (declined._tag === "Paid") yield* Console.log(`first try: ${declined.payment.status} (${declined.payment.failure_code})`)
  const paid = yield* checkout.pay(session.session_id, session.form_token, card("4242424242424242"))
  if (paid._tag !== "Paid") return yield* Effect.die("the form was valid")
  const { payment } = paid
  yield* Console.log(
    `second try: ${payment.status}; fee ${formatAmount(payment.fee_amount, "AED")}, net ${formatAmount(payment.net_amount, "AED")}; session ${paid.session.status}`
  )

  const refund = yield* (yield* Payments).refund(scope, payment.payment_id, 2000)
  yield* Console.log(`refunded ${formatAmount(refund.refundAmount, "AED")}: payment is ${refund.payment.status}`)

  const events = yield* (yield* Events).list(scope, {})
  yield* Console.log(`events (newest first): ${events.items.map((e) => e.type).join(", ")}`)
})

Effect.runPromise(Effect.provide(program, EngineLive)).catch((error) => {
  console.error(error)
  process.exit(1)
})

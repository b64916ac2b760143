/**
 * A customer whose renewal was declined fixes it themselves: subscribe on 31 January with a card that declines
 * later (4000 0000 0000 0341), see the renewal of 28 February put the subscription on hold, then give the customer
 * a portal link, and replace the card the way the portal's card form does (`PaymentMethods.replace`): the overdue
 * renewal is charged on the new card at once and the subscription is active again. Last, the payment's receipt.
 *
 * On the memory store, or on PostgreSQL with `FILS_STORE=postgres` (see engine.ts).
 *
 *   node --import tsx examples/engine/portal.ts
 */
import { Console, DateTime, Effect, Redacted } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing, stoppedClock } from "../../src/application/Billing.js"
import { Checkout } from "../../src/application/Checkout.js"
import { PaymentMethods } from "../../src/application/PaymentMethods.js"
import { Portal } from "../../src/application/Portal.js"
import { Products } from "../../src/application/Products.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import { fromSubmitted } from "../../src/domain/CheckoutForm.js"
import { formatAmount } from "../../src/domain/Money.js"
import { EngineLive } from "./engine.js"

/** Runs `effect` as if the time were `iso` (the clock `fils billing run --at` uses). */
const at = (iso: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.withClock(effect, stoppedClock(Date.parse(iso)))

const program = Effect.gen(function*() {
  const { account } = yield* (yield* Accounts).create({ business_name: "Dune Coffee Roasters", support_email: "help@dunecoffee.ae" })
  const scope = { accountId: account.account_id, livemode: false }
  const plan = yield* (yield* Products).create(scope, {
    name: "Monthly beans",
    price: 34900,
    currency: "AED",
    billing: "recurring",
    billing_interval: "month"
  })
  const checkout = yield* Checkout
  const subscribed = yield* Effect.gen(function*() {
    const session = yield* checkout.create(scope, { product_cart: [{ product_id: plan.product_id }] })
    return yield* checkout.pay(session.session_id, session.form_token, fromSubmitted({
      name: "Layla Haddad",
      email: "layla@example.ae",
      card_number: "4000000000000341",
      exp_month: "12",
      exp_year: "2030",
      cvc: "123"
    }))
  }).pipe(at("2027-01-31T09:00:00Z"))
  if (subscribed._tag !== "Paid" || subscribed.session.subscription_id === null) return yield* Effect.die("not subscribed")
  const id = subscribed.session.subscription_id
  const subscriptions = yield* Subscriptions
  yield* (yield* Billing).runOnce({ livemode: false }).pipe(at("2027-02-28T09:00:00Z"))
  const held = yield* subscriptions.get(scope, id)
  yield* Console.log(`after February's run: ${held.status}, card •••• ${held.payment_method.last4}`)

  // The merchant sends the customer a portal link (the API's POST /customer_portal_sessions).
  const portal = yield* Portal
  const link = yield* portal.create(scope, { customer_id: held.customer.customer_id, return_url: "https://dunecoffee.example/account" })
  yield* Console.log(`portal link for ${held.customer.email}: ${link.url.replace(/[^/]+$/, "…")} (one use, until ${DateTime.formatIso(link.expires_at)})`)

  // The customer enters a new card in the portal (its number and CVC `Redacted`, as the portal's page reads them).
  const card = { number: Redacted.make("4242424242424242"), expMonth: 12, expYear: 2030, cvc: Redacted.make("123") }
  const replaced = yield* (yield* PaymentMethods).replace(scope, id, card)
    .pipe(at("2027-03-01T08:00:00Z"))
  const retry = replaced.retry!
  yield* Console.log(`new card: ${replaced.subscription.status}, card •••• ${replaced.subscription.payment_method.last4}, ` +
    `renewal ${retry.status}, next billing ${DateTime.formatIso(replaced.subscription.next_billing_date).slice(0, 10)}`)

  const receipt = yield* portal.receipt(scope, retry.payment_id)
  yield* Console.log(`receipt: ${receipt.lines.map((l) => `${l.name} × ${l.quantity}`).join(", ")}, ` +
    `${formatAmount(receipt.payment.total_amount, receipt.payment.currency)} from ${receipt.account.business_name}`)
})

Effect.runPromise(Effect.provide(program, EngineLive)).catch((error) => {
  console.error(error)
  process.exit(1)
})

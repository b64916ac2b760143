/**
 * A subscription's life with the library alone: subscribe on the 31st of January, watch it renew on the last day
 * of February and on 31 March, then cancel at the period end. Billing runs "as of" chosen instants, the way
 * `fils billing run --at` does, so a quarter passes in a moment.
 *
 * On the memory store, or on PostgreSQL with `FILS_STORE=postgres` (see engine.ts).
 *
 *   node --import tsx examples/engine/subscription.ts
 *   FILS_STORE=postgres node --import tsx examples/engine/subscription.ts
 */
import { Console, DateTime, Effect } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing, stoppedClock } from "../../src/application/Billing.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Events } from "../../src/application/Events.js"
import { Products } from "../../src/application/Products.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import { fromSubmitted } from "../../src/domain/CheckoutForm.js"
import { EngineLive } from "./engine.js"

/** Runs `effect` as if the time were `iso` (the clock `fils billing run --at` uses). */
const at = (iso: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.withClock(effect, stoppedClock(Date.parse(iso)))

const day = (d: DateTime.Utc) => DateTime.formatIso(d).slice(0, 10)

const program = Effect.gen(function*() {
  const { account } = yield* (yield* Accounts).create({ business_name: "Dune Coffee Roasters" })
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
      card_number: "4242424242424242",
      exp_month: "12",
      exp_year: "2030",
      cvc: "123"
    }))
  }).pipe(at("2027-01-31T09:00:00Z"))
  if (subscribed._tag !== "Paid" || subscribed.session.subscription_id === null) return yield* Effect.die("not subscribed")
  const id = subscribed.session.subscription_id
  const subscriptions = yield* Subscriptions
  const show = Effect.map(subscriptions.get(scope, id), (s) =>
    `${s.status}, period from ${day(s.current_period_start)}, next billing ${day(s.next_billing_date)}`)

  yield* Console.log(`subscribed: ${yield* show}`)
  const billing = yield* Billing
  yield* billing.runOnce({ livemode: false }).pipe(at("2027-02-28T09:00:00Z"))
  yield* Console.log(`after February's run: ${yield* show}`)
  yield* billing.runOnce({ livemode: false }).pipe(at("2027-03-31T09:00:00Z"))
  yield* Console.log(`after March's run: ${yield* show}`)

  yield* subscriptions.update(scope, id, { cancel_at_period_end: true })
  yield* billing.runOnce({ livemode: false }).pipe(at("2027-04-30T09:00:00Z"))
  const ended = yield* subscriptions.get(scope, id)
  yield* Console.log(`at the period end: ${ended.status} (${ended.cancellation_reason}) on ${day(ended.cancelled_at!)}`)

  const events = yield* (yield* Events).list(scope, { limit: 100 })
  yield* Console.log(`events, oldest first: ${events.items.map((e) => e.type).reverse().join(", ")}`)
})

Effect.runPromise(Effect.provide(program, EngineLive)).catch((error) => {
  console.error(error)
  process.exit(1)
})

/**
 * Ready test layers: the whole engine in memory, with the Node signer, the simulated processor (test cards) and a
 * webhook transport that records what it would send instead of sending it. Every `provide` builds a fresh store,
 * so each test (and each property run) starts empty. Configuration comes from the given map only, never from the
 * environment, so a developer's shell cannot change a test.
 *
 *   it.effect("sells", () => Effect.gen(function*() {
 *     const shop = yield* FilsTest.account
 *     const product = yield* (yield* Products).create(shop.test, { name: "Beans", price: 6500, currency: "AED" })
 *   }).pipe(Effect.provide(FilsTest.layer())))
 */
import { ConfigProvider, Context, Effect, Layer, Option, Ref } from "effect"
import { SignerNode } from "../crypto/SignerNode.js"
import { EInvoiceAdapters } from "../einvoice/ProviderConfig.js"
import { StoreMemory } from "../memory/StoreMemory.js"
import { cards, SimulatedProcessor } from "../processor/SimulatedProcessor.js"
import { SettingsFromConfig } from "../runtime/Settings.js"
import { Accounts, type AccountSettings } from "../../src/application/Accounts.js"
import { Checkout } from "../../src/application/Checkout.js"
import { Engine } from "../../src/application/Engine.js"
import type { Scope } from "../../src/domain/Account.js"
import type { AttemptOutcome } from "../../src/domain/Delivery.js"
import * as CheckoutForm from "../../src/domain/CheckoutForm.js"
import type { CheckoutSessionId } from "../../src/domain/Ids.js"
import { notFound } from "../../src/domain/Errors.js"
import { type OutboundRequest, WebhookTransport } from "../../src/ports/WebhookTransport.js"
import { Store } from "../../src/ports/Store.js"

/** The webhook deliveries the engine attempted, in order, and how the recording transport answers them. */
export interface WebhookRecorderShape {
  readonly sent: Effect.Effect<ReadonlyArray<OutboundRequest>>
  /** The status every later attempt gets (200 by default; anything but 2xx is a failed attempt). */
  readonly answerWith: (statusCode: number) => Effect.Effect<void>
}
export class WebhookRecorder extends Context.Tag("fils/testing/WebhookRecorder")<WebhookRecorder, WebhookRecorderShape>() {}

/**
 * A `WebhookTransport` that records each request and answers with the recorder's status, sending nothing. It
 * resolves no names either: every endpoint host is `allowed` (the url's own rules still apply), so tests need no DNS.
 */
export const WebhookRecorderLive: Layer.Layer<WebhookRecorder | WebhookTransport> = Layer.effectContext(
  Effect.gen(function*() {
    const sent = yield* Ref.make<ReadonlyArray<OutboundRequest>>([])
    const status = yield* Ref.make(200)
    const recorder = WebhookRecorder.of({ sent: Ref.get(sent), answerWith: (code) => Ref.set(status, code) })
    const transport = WebhookTransport.of({
      send: (request) =>
        Effect.gen(function*() {
          yield* Ref.update(sent, (all) => [...all, request])
          const statusCode = yield* Ref.get(status)
          return { ok: statusCode >= 200 && statusCode < 300, statusCode, error: null, durationMillis: 0 } satisfies AttemptOutcome
        }),
      checkHost: () => Effect.succeed("allowed")
    })
    return Context.make(WebhookRecorder, recorder).pipe(Context.add(WebhookTransport, transport))
  })
)

export interface Options {
  /** Settings as environment variables would give them (`FILS_FEE_BPS`, `FILS_SIMULATED_LIVE`, …). */
  readonly config?: Readonly<Record<string, string>> | undefined
}

/**
 * Every use case of the engine, its ports (Store, Signer, PaymentProcessor, WebhookTransport, the e-invoice provider
 * and writer: the simulated ASP in test mode) and the recorder.
 */
export const layer = (options: Options = {}) =>
  Engine.pipe(
    Layer.provideMerge(
      Layer.mergeAll(StoreMemory, SignerNode, SimulatedProcessor, WebhookRecorderLive, EInvoiceAdapters, SettingsFromConfig)
    ),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(options.config ?? {})))))
  )

/** `layer()` with the defaults. */
export const FilsTestLive = layer()

/** A new account, its two keys' secrets, and the scopes they act in. */
export const account = (settings: AccountSettings = { business_name: "Test shop" }) =>
  Effect.gen(function*() {
    const { account, keys } = yield* (yield* Accounts).create(settings)
    const test: Scope = { accountId: account.account_id, livemode: false }
    const live: Scope = { accountId: account.account_id, livemode: true }
    return { account, keys, test, live }
  })

/** The test cards of the simulated processor by what they do. */
export { cards }

/**
 * Pays an open checkout session as its hosted page would, with `card` (a number from `cards`) and a valid form
 * (expiry in 2090, so any test clock passes).
 */
export const pay = (sessionId: CheckoutSessionId, card: string = cards.visa) =>
  Effect.gen(function*() {
    const store = yield* Store
    const session = yield* store.sessions.find(sessionId)
    if (Option.isNone(session)) return yield* notFound("checkout session", sessionId)
    return yield* (yield* Checkout).pay(sessionId, session.value.form_token, CheckoutForm.fromSubmitted({
      name: "Layla Haddad",
      email: session.value.customer?.email ?? "layla@example.ae",
      card_number: card,
      exp_month: "12",
      exp_year: "2090",
      cvc: "123"
    }))
  })

/**
 * The engine's settings come from `Settings`, provided at the edge: the server's configuration through
 * `SettingsFromConfig`, an embedding team's choices through `Settings.layer`, and the defaults without either.
 */
import { EInvoiceAdapters } from "../../adapters/einvoice/ProviderConfig.js"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { SimulatedProcessor } from "../../adapters/processor/SimulatedProcessor.js"
import { SettingsFromConfig } from "../../adapters/runtime/Settings.js"
import { WebhookTransportHttp } from "../../adapters/webhooks/WebhookTransportHttp.js"
import { Engine } from "../../src/application/Engine.js"
import * as Settings from "../../src/application/Settings.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { newAccount } from "./harness.js"

const ports = Layer.mergeAll(StoreMemory, SignerNode, SimulatedProcessor, WebhookTransportHttp, EInvoiceAdapters)
const engineWith = (settings: Layer.Layer<never> | Layer.Layer<Settings.Settings, unknown>) =>
  Engine.pipe(Layer.provideMerge(Layer.merge(ports, settings)))

const fromConfig = SettingsFromConfig.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
  ["FILS_PUBLIC_URL", "https://fils.example/"],
  ["FILS_FEE_BPS", "200"],
  ["FILS_FEE_FIXED", "0"]
])))))

/** A paid checkout's link and its payment's fee, as the engine makes them. */
const paidCheckout = Effect.gen(function*() {
  const { test } = yield* newAccount
  const session = yield* makeSession(test, { product_cart: [{ product_id: (yield* makeProduct(test, { price: 10_000 })).product_id }] })
  const result = yield* pay(session.session_id, formWith(cards.visa))
  if (result._tag !== "Paid") throw new Error("expected a payment")
  return { url: session.checkout_url, fee: result.payment.fee_amount }
})

describe("Settings", () => {
  it.effect("without any, the defaults: links on http://127.0.0.1:4242, 2.9 % + 1 AED", () =>
    Effect.gen(function*() {
      const { fee, url } = yield* paidCheckout
      assert.match(url, /^http:\/\/127\.0\.0\.1:4242\/checkout\/cks_/)
      assert.strictEqual(fee, Math.round(10_000 * Settings.defaults.fees.bps / 10_000) + Settings.defaults.fees.fixed)
    }).pipe(Effect.provide(engineWith(Layer.empty))))

  it.effect("an embedding team's choices (Settings.layer)", () =>
    Effect.gen(function*() {
      const { fee, url } = yield* paidCheckout
      assert.match(url, /^https:\/\/pay\.shop\.example\/checkout\/cks_/)
      assert.strictEqual(fee, 150 + 50)
    }).pipe(Effect.provide(engineWith(Settings.layer({ publicUrl: "https://pay.shop.example", fees: { bps: 150, fixed: 50 } })))))

  it.effect("the server's configuration (SettingsFromConfig), a trailing slash dropped", () =>
    Effect.gen(function*() {
      const { fee, url } = yield* paidCheckout
      assert.match(url, /^https:\/\/fils\.example\/checkout\/cks_/)
      assert.strictEqual(fee, 200 + 0)
    }).pipe(Effect.provide(engineWith(fromConfig))))
})

/**
 * The engine over the memory store and the node signer, with configuration from a map (no environment).
 * Each `provide` builds a fresh store, so every test (and every property run) starts empty.
 */
import { ConfigProvider, Effect, Layer } from "effect"
import { EInvoiceAdapters } from "../../adapters/einvoice/ProviderConfig.js"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Engine } from "../../src/application/Engine.js"
import type { Scope } from "../../src/domain/Account.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"
import { type Kdf, makeSignerNode } from "../../adapters/crypto/SignerNode.js"
import { Signer } from "../../src/ports/Signer.js"
import { WebhookTransportHttp } from "../../adapters/webhooks/WebhookTransportHttp.js"

export const engineLayer = (config: ReadonlyArray<readonly [string, string]> = [], kdf?: Kdf) =>
  Engine.pipe(
    // With a `kdf`, the node signer hashing with it stands in for NodeAdapters' own (the later layer wins).
    Layer.provideMerge(Layer.mergeAll(StoreMemory, NodeAdapters, ...(kdf === undefined ? [] : [Layer.succeed(Signer, makeSignerNode(kdf))]))),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(config))))
  )

/**
 * The engine over the ports given (a store, a signer, a processor), with the HTTP webhook transport, the simulated
 * e-invoice provider and no configuration.
 */
export const engineOver = <ROut, E>(ports: Layer.Layer<ROut, E>) =>
  Engine.pipe(
    Layer.provideMerge(Layer.mergeAll(ports, WebhookTransportHttp, EInvoiceAdapters)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))
  )

/** Runs `effect` against a fresh engine. */
export const withEngine = (config: ReadonlyArray<readonly [string, string]> = [], kdf?: Kdf) =>
<A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, engineLayer(config, kdf))

/**
 * scrypt at 1/128 of OWASP's memory and time (N = 2^10): for tests of the rules around passwords (links, sessions,
 * throttling, two-factor), which hash dozens of times. The product's parameters keep their own tests.
 */
export const lightKdf: Kdf = { N: 1024, r: 8, p: 1 }

/** A new account and its four-way split: the scopes its test and live keys act in. */
export const newAccount = Effect.gen(function*() {
  const accounts = yield* Accounts
  const { account, keys } = yield* accounts.create({ business_name: "Shop" })
  const test = yield* accounts.authenticate(keys.test.secret)
  const live = yield* accounts.authenticate(keys.live.secret)
  const asScope = (p: Scope): Scope => ({ accountId: p.accountId, livemode: p.livemode })
  return { account, keys, test: asScope(test), live: asScope(live) }
})

/** Two accounts × test/live: four scopes that must never see each other's objects. */
export const fourScopes = Effect.gen(function*() {
  const a = yield* newAccount
  const b = yield* newAccount
  return [a.test, a.live, b.test, b.live] as const
})

export const scopeName = (s: Scope) => `${s.accountId.slice(-6)}:${s.livemode ? "live" : "test"}`

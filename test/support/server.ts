/**
 * A real Fils HTTP server for tests: the engine (`Engine` + the node adapters + a Store) behind `HttpAppLive`, served by
 * `HttpApiBuilder.serve()` on a random port of 127.0.0.1, with two accounts (each with a test and a live key).
 *
 * `startServer(store, config)` builds one such server; `storeVariants` lists the stores every HTTP suite runs against
 * (memory, and PostgreSQL on a fresh migrated database per test file).
 */
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime, Redacted } from "effect"
import { NodeServer } from "../../adapters/http/Server.js"
import * as Client from "../../adapters/http/Client.js"
import { HttpAppLive } from "../../adapters/http/App.js"
import { makeStoreMemory } from "../../adapters/memory/StoreMemory.js"
import { Accounts, type AccountSettings, type IssuedKey } from "../../src/application/Accounts.js"
import { Engine } from "../../src/application/Engine.js"
import type { Customers } from "../../src/application/Customers.js"
import type { Deliveries } from "../../src/application/Deliveries.js"
import type { IdempotencyService } from "../../src/application/Idempotency.js"
import type { Products } from "../../src/application/Products.js"
import type { RateLimits } from "../../src/application/RateLimits.js"
import type { AccountId } from "../../src/domain/Ids.js"
import type { Signer } from "../../src/ports/Signer.js"
import { Store, layerStore, type Repositories } from "../../src/ports/Store.js"
import { postgresStore } from "./postgresStore.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"

/** One caller: an account in one mode, through one key. */
export interface Principal {
  readonly name: string
  readonly accountId: AccountId
  readonly livemode: boolean
  readonly key: string
  readonly issued: IssuedKey
}

export interface TestAccount {
  readonly accountId: AccountId
  readonly test: Principal
  readonly live: Principal
}

/** The services a test may use directly, next to the HTTP interface (e.g. `Accounts.revokeKey`). */
export type EngineServices = Accounts | Products | Customers | Deliveries | IdempotencyService | RateLimits | Signer | Store

const EngineLayerOf = (store: Layer.Layer<Store | Repositories>) =>
  Engine.pipe(Layer.provideMerge(Layer.mergeAll(store, NodeAdapters)))

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** `origin + /api/v1` */
  readonly baseUrl: string
  readonly accountA: TestAccount
  readonly accountB: TestAccount
  /** Runs an effect against this server's engine (same process, same caches). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, EngineServices>) => Promise<A>
  readonly createAccount: (settings?: AccountSettings) => Promise<TestAccount>
  readonly close: () => Promise<void>
}

/**
 * Limits are raised far above what the tests use unless a test asks for small ones, so that tests sharing a server
 * (and every request from 127.0.0.1 sharing one failed-authentication budget) do not throttle each other. The key
 * cache is off, so a revocation applies at once whatever process made it.
 */
export const defaultConfig: Readonly<Record<string, string>> = {
  FILS_RATE_LIMIT_PER_MIN: "100000",
  FILS_AUTH_FAILURES_PER_MIN: "100000",
  FILS_KEY_CACHE_TTL: "0 millis",
  // Staging: the simulated processor takes live charges, so enabling live payments on an account takes effect.
  FILS_SIMULATED_LIVE: "true"
}

const toAccount = (
  created: { readonly account: { readonly account_id: AccountId }; readonly keys: { readonly test: IssuedKey; readonly live: IssuedKey } },
  label: string
): TestAccount => ({
  accountId: created.account.account_id,
  test: {
    name: `${label}/test`,
    accountId: created.account.account_id,
    livemode: false,
    key: Redacted.value(created.keys.test.secret),
    issued: created.keys.test
  },
  live: {
    name: `${label}/live`,
    accountId: created.account.account_id,
    livemode: true,
    key: Redacted.value(created.keys.live.secret),
    issued: created.keys.live
  }
})

let accountCounter = 0

/** Starts a server on `store` with `config` (merged over `defaultConfig`, then the environment). */
export const startServer = async (
  store: Layer.Layer<Store | Repositories>,
  config: Readonly<Record<string, string>> = {}
): Promise<TestServer> => {
  const provider = ConfigProvider.fromMap(new Map(Object.entries({ ...defaultConfig, ...config }))).pipe(
    ConfigProvider.orElse(() => ConfigProvider.fromEnv())
  )
  const engine = EngineLayerOf(store)
  const http = HttpApiBuilder.serve().pipe(
    Layer.provide(HttpAppLive),
    Layer.provideMerge(NodeServer({ port: 0, host: "127.0.0.1" }))
  )
  const full = http.pipe(
    Layer.provideMerge(engine),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Error)),
    Layer.provide(Layer.setConfigProvider(provider))
  )
  const runtime = ManagedRuntime.make(full)
  const address = await runtime.runPromise(HttpServer.addressWith((a) => Effect.succeed(a)))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const origin = `http://127.0.0.1:${address.port}`
  const run = <A, E>(effect: Effect.Effect<A, E, EngineServices>) => runtime.runPromise(effect)
  const createAccount = async (settings: AccountSettings = {}) => {
    const label = `acct${++accountCounter}`
    const created = await run(Effect.flatMap(Accounts, (a) => a.create({ business_name: `Shop ${label}`, ...settings })))
    return toAccount(created, label)
  }
  const accountA = await createAccount({ business_name: "Souq A", support_email: "help@a.example" })
  const accountB = await createAccount({ business_name: "Souq B" })
  return {
    origin,
    baseUrl: `${origin}/api/v1`,
    accountA,
    accountB,
    run,
    createAccount,
    close: () => runtime.dispose()
  }
}

/** The typed client of `FilsApi` for one key: the exported `fils/http` client over `fetch`. */
export const clientFor = (server: TestServer, key: string): Promise<FilsClient> =>
  Effect.runPromise(Client.makeFetch({ baseUrl: server.origin, apiKey: key }))
export type FilsClient = Client.Client

/** Runs a client call (or any effect without requirements) as a promise. */
export const call = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)

// Raw HTTP ------------------------------------------------------------------------------------------------------------

export interface RawResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON (`undefined` when it is not JSON). */
  readonly json: any
}

export interface RawRequest {
  readonly key?: string | undefined
  /** A value to send as JSON, or a string or bytes sent as they are. */
  readonly body?: unknown
  readonly headers?: Record<string, string>
}

/** A plain `fetch` against `baseUrl + path` (path starting with `/`), for exact statuses, headers and bodies. */
export const request = async (
  server: TestServer,
  method: string,
  path: string,
  options: RawRequest = {}
): Promise<RawResponse> => {
  const headers: Record<string, string> = {}
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
  let body: string | Uint8Array | undefined
  if (options.body !== undefined) {
    body = typeof options.body === "string" || options.body instanceof Uint8Array ? options.body : JSON.stringify(options.body)
    headers["content-type"] = "application/json"
  }
  Object.assign(headers, options.headers ?? {})
  // An absolute URL as is; `/api/…` from the origin; anything else relative to `/api/v1`.
  const url = path.startsWith("http") ? path : path.startsWith("/api/") ? `${server.origin}${path}` : `${server.baseUrl}${path}`
  const res = await fetch(url, { method, headers, ...(body !== undefined ? { body: body as BodyInit } : {}) })
  const text = await res.text()
  let json: any = undefined
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, text, json }
}

/** Raw calls bound to one server and (optionally) one key. */
export const rawFor = (server: TestServer, key?: string) => ({
  get: (path: string, options: RawRequest = {}) => request(server, "GET", path, { key, ...options }),
  post: (path: string, body: unknown, options: RawRequest = {}) => request(server, "POST", path, { key, body, ...options }),
  patch: (path: string, body: unknown, options: RawRequest = {}) =>
    request(server, "PATCH", path, { key, body, ...options }),
  send: (method: string, path: string, options: RawRequest = {}) => request(server, method, path, { key, ...options })
})

// Stores ----------------------------------------------------------------------------------------------------------

export interface StoreVariant {
  readonly name: "memory" | "postgres"
  /**
   * A Store layer. Every server built from one layer value shares one store: for PostgreSQL, the test file's
   * database (each server with its own pool, like several `fils serve` processes); for memory, one instance made
   * by this call.
   */
  readonly store: () => Promise<Layer.Layer<Store | Repositories>>
}

export const memoryVariant: StoreVariant = {
  name: "memory",
  store: async () => layerStore(Effect.succeed(await Effect.runPromise(makeStoreMemory)))
}
export const postgresVariant: StoreVariant = { name: "postgres", store: postgresStore }

export const storeVariants: ReadonlyArray<StoreVariant> = [memoryVariant, postgresVariant]

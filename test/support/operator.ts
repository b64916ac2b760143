/**
 * What the operator e2e tests share: `fils serve` on a fresh database of the suite's PostgreSQL, `fils billing run
 * --at` as a process, and a subscription's payments and events read back through the API.
 */
import { expect } from "vitest"
import { runFils, type Served, serveFils } from "./cli.js"
import { type TestDatabase, testDatabase } from "./load.js"

export interface OperatorServer {
  readonly db: TestDatabase
  readonly served: Served
  /** The environment the server runs with: give it to `runFils` so commands share its database. */
  readonly env: Record<string, string | undefined>
}

/** `fils serve` on a fresh database (no embedded PostgreSQL, keys never cached, live payments off). */
export const serveOnFreshDatabase = async (): Promise<OperatorServer> => {
  const db = await testDatabase()
  const env = {
    DATABASE_URL: db.url,
    FILS_DATA_DIR: undefined,
    FILS_PUBLIC_URL: undefined,
    FILS_KEY_CACHE_TTL: "0 millis",
    FILS_SIMULATED_LIVE: undefined
  }
  return { db, served: await serveFils(env, 60_000), env }
}

export interface BillingRunReport {
  readonly renewals_charged: number
  readonly subscriptions_ended: number
  readonly expired_sessions: number
  readonly settled_payments: number
}

/** `fils billing run --at <instant>` in `env`: its JSON report, checked to be a test-mode pass as of `instant`. */
export const billingRunAt = async (env: Record<string, string | undefined>, instant: string) => {
  const result = await runFils(["billing", "run", "--at", instant], env)
  expect(result.code, result.stderr).toBe(0)
  const report = JSON.parse(result.stdout)
  expect(report).toMatchObject({ at: instant, livemode: false })
  return report as BillingRunReport
}

/** A subscription's payments and event types, oldest first, read with `get(key, path)` (a GET that must succeed). */
export const subscriptionReads = (get: (key: string, path: string) => Promise<any>) => ({
  paymentsOf: async (key: string, subscriptionId: string): Promise<Array<any>> =>
    ((await get(key, "/payments?limit=100")).items as Array<any>)
      .filter((p) => p.subscription_id === subscriptionId)
      .reverse(),
  /** The types of the subscription's events (its own and its payments'). */
  eventTypesOf: async (key: string, subscriptionId: string): Promise<Array<string>> =>
    ((await get(key, "/events?limit=100")).items as Array<any>)
      .filter((e) => e.data.subscription_id === subscriptionId)
      .reverse()
      .map((e) => e.type as string)
})

/**
 * examples/express/server.ts as a real process: an Express 5 app with its own routes and Fils mounted under `/fils`
 * (the Node listener), on PostgreSQL (a new, empty database, which it migrates). A restart on the same database keeps
 * the account, the key and the paid session.
 */
import { Effect, Exit, Redacted, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { emptyDatabaseUrl } from "../support/database.js"
import {
  checkDashboard,
  checkDocs,
  checkHostRoutes,
  checkNotFound,
  checkWebhookDelivery,
  type RunningExample,
  sellThroughPrefix,
  startExample,
  testKeyOf
} from "./hostExample.js"

const file = "examples/express/server.ts"
const host404 = /Cannot GET \//
const scope = Effect.runSync(Scope.make())
let env: Record<string, string> = {}
let running: RunningExample | undefined

beforeAll(async () => {
  const url = await Effect.runPromise(Scope.extend(emptyDatabaseUrl, scope))
  env = { FILS_STORE: "postgres", DATABASE_URL: Redacted.value(url) }
}, 60_000)

afterAll(async () => {
  if (running !== undefined && running.child.exitCode === null) running.child.kill("SIGKILL")
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("examples/express: Fils under /fils of an Express app, on PostgreSQL", () => {
  let key = ""
  let sessionId = ""

  it("starts, prints the URLs under /fils and a test key; the host's own routes answer", async () => {
    running = await startExample(file, env)
    const out = running.stdout()
    expect(out).toContain(`Fils API     ${running.origin}/fils/api/v1`)
    expect(out).toContain(`Reference    ${running.origin}/fils/docs`)
    key = testKeyOf(out)
    await checkHostRoutes(running.origin, "express-host", host404)
  }, 120_000)

  it("sells through /fils: product, session with a prefixed checkout_url, the page, the paid form, the redirect", async () => {
    sessionId = await sellThroughPrefix(running!.origin, key)
  }, 120_000)

  it("answers Fils JSON 404s under /fils and leaves other 404s to Express", async () => {
    await checkNotFound(running!.origin, host404)
  }, 60_000)

  it("serves the dashboard under /fils: the printed sign-in link, then its pages with prefixed links", async () => {
    await checkDashboard(running!.origin, running!.stdout())
  }, 60_000)

  it("serves /fils/docs and /fils/api/v1/openapi.json", async () => {
    await checkDocs(running!.origin)
  }, 60_000)

  it("runs the background workers in the host process: a webhook registered under /fils is delivered, signed", async () => {
    await checkWebhookDelivery(running!.origin, key)
  }, 120_000)

  it("stops on SIGTERM, and a restart on the same database keeps the account and the sale", async () => {
    const before = running!.origin
    expect(await running!.stop()).toBe(0)
    running = await startExample(file, env)
    expect(running.stdout()).toContain("the store already has accounts")
    expect(running.stdout()).not.toContain("Test key")
    const res = await fetch(`${running.origin}/fils/api/v1/checkout_sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${key}` }
    })
    expect(res.status).toBe(200)
    // Stored as created: the link carries the prefix (and the address of the first run's free port).
    expect(await res.json()).toMatchObject({ status: "complete", checkout_url: `${before}/fils/checkout/${sessionId}` })
    expect(await running.stop()).toBe(0)
  }, 180_000)
})

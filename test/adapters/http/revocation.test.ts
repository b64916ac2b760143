/**
 * Revocation reaches every server at once: two servers share one store and cache key lookups for a minute;
 * a key revoked through one is refused by the other on its next requests, long before its cached lookup would run
 * out, because the store announces the revocation to every process.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { Accounts } from "../../../src/application/Accounts.js"
import { describeStores, expectError } from "../../support/httpSuite.js"
import { rawFor, startServer, type TestServer } from "../../support/server.js"

const oneMinuteCache = { FILS_KEY_CACHE_TTL: "60 seconds" }

describeStores("revocation across servers", (variant) => {
  let a: TestServer
  let b: TestServer
  beforeAll(async () => {
    const store = await variant.store()
    ;[a, b] = await Promise.all([startServer(store, oneMinuteCache), startServer(store, oneMinuteCache)])
  })
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()])
  })

  it("a key revoked through one server is refused by the other well within its one-minute cache", async () => {
    const shop = await a.createAccount()
    const other = await a.createAccount()
    // Both servers have looked the key up, so both hold it in their caches.
    for (const server of [a, b]) expect((await rawFor(server, shop.test.key).get("/account")).status).toBe(200)
    expect((await rawFor(b, other.test.key).get("/account")).status).toBe(200)

    const revokedAt = Date.now()
    await a.run(Effect.flatMap(Accounts, (accounts) => accounts.revokeKey(shop.test.issued.key_id)))
    expectError(await rawFor(a, shop.test.key).get("/account"), 401, "UNAUTHORIZED")
    // The notification travels through the store: wait for it, bounded far below the cache's minute.
    let status = 200
    while (status === 200 && Date.now() - revokedAt < 10_000) {
      status = (await rawFor(b, shop.test.key).get("/account")).status
      if (status === 200) await new Promise((r) => setTimeout(r, 25))
    }
    expect(status, "refused by the other server long before the cached lookup expires").toBe(401)
    // Other keys stay cached and keep working.
    expect((await rawFor(b, other.test.key).get("/account")).status).toBe(200)
  })
})

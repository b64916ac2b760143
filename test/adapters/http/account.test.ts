/** `GET /api/v1/account`: the account as the calling key's mode sees it. */
import { Effect } from "effect"
import { expect, it } from "vitest"
import { Accounts } from "../../../src/application/Accounts.js"
import { call, clientFor, rawFor } from "../../support/server.js"
import { vatProfile, vatProfileJson } from "../../support/taxProfile.js"
import { describeStores, useServer } from "../../support/httpSuite.js"

describeStores("GET /account", (variant) => {
  const server = useServer(variant)

  it("shows the test mode to a test key: livemode false, payments enabled", async () => {
    const client = await clientFor(server(), server().accountA.test.key)
    const account = await call(client.account.get())
    expect(account).toStrictEqual({
      object: "account",
      account_id: server().accountA.accountId,
      business_name: "Souq A",
      support_email: "help@a.example",
      livemode: false,
      payments_enabled: true,
      currencies: ["AED"],
      tax_profile: null
    })
  })

  it("shows the live mode to a live key: payments disabled until the operator enables them", async () => {
    const s = server()
    const res = await rawFor(s, s.accountB.live.key).get("/account")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    expect(res.json).toStrictEqual({
      object: "account",
      account_id: s.accountB.accountId,
      business_name: "Souq B",
      support_email: null,
      livemode: true,
      payments_enabled: false,
      currencies: ["AED"],
      tax_profile: null
    })
    await s.run(Effect.flatMap(Accounts, (a) => a.update(s.accountB.accountId, { live_payments_enabled: true })))
    const enabled = await rawFor(s, s.accountB.live.key).get("/account")
    expect(enabled.json).toMatchObject({ livemode: true, payments_enabled: true })
    const test = await rawFor(s, s.accountB.test.key).get("/account")
    expect(test.json).toMatchObject({ livemode: false, payments_enabled: true })
    // the other account is untouched
    const other = await rawFor(s, s.accountA.live.key).get("/account")
    expect(other.json).toMatchObject({ business_name: "Souq A", livemode: true, payments_enabled: false })
  })

  it("shows the tax profile the operator set, to both modes' keys, and only on that account", async () => {
    const s = server()
    const shop = await s.createAccount({ business_name: "Karak House" })
    await s.run(Effect.flatMap(Accounts, (a) => a.update(shop.accountId, { tax_profile: vatProfile })))
    for (const key of [shop.test.key, shop.live.key]) {
      const res = await rawFor(s, key).get("/account")
      expect(res.status, res.text).toBe(200)
      expect(res.json.tax_profile).toStrictEqual(vatProfileJson)
    }
    expect((await rawFor(s, s.accountA.test.key).get("/account")).json.tax_profile).toBeNull()
  })

  it("refuses a request without a key", async () => {
    const res = await rawFor(server()).get("/account")
    expect(res.status).toBe(401)
    expect(res.json.code).toBe("UNAUTHORIZED")
  })
})

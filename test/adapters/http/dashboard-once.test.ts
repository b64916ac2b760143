/**
 * The dashboard's forms that make an object carry a one-time token: posted twice (a double click, a request the
 * browser sent again), they make one object, both posts are answered with it, and its audit entry is written once.
 */
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { Users } from "../../../src/application/Users.js"
import { dashboardCatalogues } from "../../../adapters/http/i18n/dashboard/Catalogues.js"
import { onceLifetimeMillis, onceToken } from "../../../adapters/http/html/Forms.js"
import { cards, formWith, makeProduct, makeSession, paidWith, pay } from "../../support/checkout.js"
import { dashboardAs } from "../../support/dashboard.js"
import { describeStores, useServer } from "../../support/httpSuite.js"
import { rawFor, type TestServer } from "../../support/server.js"

const auditedCount = (s: TestServer, action: string, objectId: string) =>
  s.run(Effect.map(Effect.flatMap(Users, (users) => users.auditLog(s.accountA.accountId, 1000)), (entries) =>
    entries.filter((e) => e.action === action && e.object_id === objectId).length) as unknown as Effect.Effect<number, unknown, never>)

describeStores("dashboard forms posted twice", (variant) => {
  const server = useServer(variant)

  describe("a new product", () => {
    it("is made once per form token and fields, both posts answered with it, audited once; other fields or a new form make another", async () => {
      const s = server()
      const page = await dashboardAs(s)
      const form = await page("/products")
      const once = /action="\/dashboard\/test\/products"[^]*?name="once" value="([^"]+)"/.exec(form.body)?.[1]
      expect(once).toBeDefined()
      const name = `Dates ${once!.slice(0, 8)}`
      const fields = { once: once!, name, price: "25.00", billing: "one_time", description: "", tax_category: "S", item_type: "G" }
      const [first, second] = await Promise.all([page("/products", fields), page("/products", fields)])
      expect([first.status, second.status]).toEqual([303, 303])
      const third = await page("/products", fields)
      expect(third.status).toBe(303)
      const made = ((await rawFor(s, s.accountA.test.key).get("/products?limit=100")).json.items as Array<any>).filter((p) => p.name === name)
      expect(made).toHaveLength(1)
      expect(await auditedCount(s, "product.create", made[0].product_id)).toBe(1)
      const named = async () =>
        ((await rawFor(s, s.accountA.test.key).get("/products?limit=100")).json.items as Array<any>).filter((p) => p.name === name)
      // The same token with other fields (the form shown again by Back, edited, sent) is another product.
      expect((await page("/products", { ...fields, price: "30.00" })).status).toBe(303)
      expect((await named()).map((p) => p.price).sort()).toEqual([2500, 3000])
      // A form shown again has a token of its own: the same fields make another product.
      const again = /action="\/dashboard\/test\/products"[^]*?name="once" value="([^"]+)"/.exec((await page("/products")).body)?.[1]
      expect(again).not.toBe(once)
      expect((await page("/products", { ...fields, once: again! })).status).toBe(303)
      expect(await named()).toHaveLength(3)
    })
  })

  const tokenOf = (body: string, action: string) =>
    new RegExp(`action="/dashboard/test${action}"[^]*?name="once" value="([^"]+)"`).exec(body)?.[1]

  it("a new customer and a new webhook endpoint: each form posted twice at once makes one", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const page = await dashboardAs(s)
    const email = `twice-${randomUUID()}@example.ae`
    const customerToken = tokenOf((await page("/customers")).body, "/customers")
    expect(customerToken).toBeDefined()
    const customer = { once: customerToken!, email, name: "Noor", phone_number: "" }
    const posted = await Promise.all([page("/customers", customer), page("/customers", customer)])
    expect(posted.map((r) => r.status)).toEqual([303, 303])
    const customers = (await raw.get(`/customers?email=${encodeURIComponent(email)}`)).json.items as Array<any>
    expect(customers).toHaveLength(1)
    expect(await auditedCount(s, "customer.create", customers[0].customer_id)).toBe(1)

    // A refused endpoint keeps its form as posted, token included: nothing was made under it.
    const refusedToken = tokenOf((await page("/developers")).body, "/developers/webhooks")
    const refused = await page("/developers/webhooks", { once: refusedToken!, url: "not a url" })
    expect(refused.status).toBe(400)
    expect(tokenOf(refused.body, "/developers/webhooks")).toBe(refusedToken)
    expect(refused.body).toContain('value="not a url"')

    const url = `https://example.ae/hooks/${randomUUID()}`
    const webhookToken = tokenOf((await page("/developers")).body, "/developers/webhooks")
    expect(webhookToken).toBeDefined()
    const endpoint = { once: webhookToken!, url }
    const made = await Promise.all([page("/developers/webhooks", endpoint), page("/developers/webhooks", endpoint)])
    expect(made.map((r) => r.status)).toEqual([303, 303])
    const endpoints = ((await raw.get("/webhooks?limit=100")).json.items as Array<any>).filter((w) => w.url === url)
    expect(endpoints).toHaveLength(1)
    expect(await auditedCount(s, "webhook.create", endpoints[0].webhook_id)).toBe(1)
  })

  /** The text of a redirect's flash (its signed payload is `[tone, text]`). */
  const flashOf = (location: string | null) =>
    JSON.parse(Buffer.from(new URL(location!, "http://x").searchParams.get("flash")!.split(".")[0]!, "base64url").toString())[1] as string

  it("a new discount: posted twice, with its code or without, makes one, and both posts name its code", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const page = await dashboardAs(s)
    const discounts = async () => (await raw.get("/discounts?limit=100")).json.items as Array<any>
    const fields = { name: "", type: "percentage", amount: "10", usage_limit: "", subscription_cycles: "", expires_on: "" }

    // A refused form keeps its token: nothing was made under it.
    const refusedToken = tokenOf((await page("/discounts")).body, "/discounts")
    expect(refusedToken).toBeDefined()
    const refused = await page("/discounts", { ...fields, once: refusedToken!, code: "", amount: "0" })
    expect(refused.status).toBe(400)
    expect(tokenOf(refused.body, "/discounts")).toBe(refusedToken)

    // The code given: the second post's own write meets the first's code, and is answered with the first's discount.
    const code = `TWICE${randomUUID().slice(0, 8).toUpperCase()}`
    const named = { ...fields, once: tokenOf((await page("/discounts")).body, "/discounts")!, code }
    const both = await Promise.all([page("/discounts", named), page("/discounts", named)])
    const later = await page("/discounts", named)
    expect([...both, later].map((r) => r.status)).toEqual([303, 303, 303])
    expect([...both, later].map((r) => flashOf(r.location))).toEqual(Array(3).fill(expect.stringContaining(code)))
    const withCode = (await discounts()).filter((d) => d.code === code)
    expect(withCode).toHaveLength(1)
    expect(await auditedCount(s, "discount.create", withCode[0].discount_id)).toBe(1)
    // Another form with the same code is refused in words: its code is taken.
    const other = await page("/discounts", { ...named, once: tokenOf((await page("/discounts")).body, "/discounts")! })
    expect(other.status).toBe(400)

    // No code: the first post makes one up, and the second is answered with it, not with a code of its own.
    const before = (await discounts()).length
    const unnamed = { ...fields, amount: "15", once: tokenOf((await page("/discounts")).body, "/discounts")!, code: "" }
    const made = await Promise.all([page("/discounts", unnamed), page("/discounts", unnamed)])
    expect(made.map((r) => r.status)).toEqual([303, 303])
    const after = await discounts()
    expect(after).toHaveLength(before + 1)
    const [made1, made2] = made.map((r) => flashOf(r.location))
    expect(made1).toBe(made2)
    expect(made1).toContain(after[0].code)
  })

  it("a form sent again after what it made was deleted makes nothing, says so, and comes back with a new token", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const page = await dashboardAs(s)
    const code = `GONE${randomUUID().slice(0, 8).toUpperCase()}`
    const token = tokenOf((await page("/discounts")).body, "/discounts")!
    const fields = { once: token, code, name: "", type: "percentage", amount: "10", usage_limit: "", subscription_cycles: "", expires_on: "" }
    expect((await page("/discounts", fields)).status).toBe(303)
    const made = ((await raw.get("/discounts?limit=100")).json.items as Array<any>).find((d) => d.code === code)
    expect((await raw.send("DELETE", `/discounts/${made.discount_id}`)).status).toBe(200)

    // The browser's Back button: the same form, the same token, sent again.
    const again = await page("/discounts", fields)
    expect(again.status).toBe(400)
    expect(again.body).toContain("what it made has since been deleted")
    expect(again.body).toContain(`value="${code}"`)
    const fresh = tokenOf(again.body, "/discounts")
    expect(fresh).toBeDefined()
    expect(fresh).not.toBe(token)
    expect(((await raw.get("/discounts?limit=100")).json.items as Array<any>).filter((d) => d.code === code)).toHaveLength(0)
    // Sent once more, as it came back: a discount of its own.
    expect((await page("/discounts", { ...fields, once: fresh! })).status).toBe(303)
    expect(((await raw.get("/discounts?limit=100")).json.items as Array<any>).filter((d) => d.code === code)).toHaveLength(1)

    const url = `https://example.ae/hooks/${randomUUID()}`
    const endpoint = { once: tokenOf((await page("/developers")).body, "/developers/webhooks")!, url }
    const created = await page("/developers/webhooks", endpoint)
    expect(created.status).toBe(303)
    const webhookId = created.location!.split("/").pop()!
    expect((await raw.send("DELETE", `/webhooks/${webhookId}`)).status).toBe(200)
    const resent = await page("/developers/webhooks", endpoint)
    expect(resent.status).toBe(400)
    expect(resent.body).toContain("what it made has since been deleted")
    expect(tokenOf(resent.body, "/developers/webhooks")).not.toBe(endpoint.once)
  })

  it("every form that acts once, sent more than 23 hours after it was made, does nothing and leads back to the page it acts from", async () => {
    const s = server()
    const scope = { accountId: s.accountA.accountId, livemode: false }
    const made = await s.run(Effect.gen(function*() {
      const paid = yield* paidWith(scope, cards.visa, 9_000)
      const plan = yield* makeProduct(scope, { price: 4500, billing: "recurring", billing_interval: "month" })
      const session = yield* makeSession(scope, { product_cart: [{ product_id: plan.product_id }] })
      const result = yield* pay(session.session_id, formWith(cards.visa))
      return { paymentId: paid.payment_id, subscriptionId: result._tag === "Paid" ? result.payment.subscription_id : null }
    }) as unknown as Effect.Effect<{ readonly paymentId: string; readonly subscriptionId: string | null }, unknown, never>)
    expect(made.subscriptionId).not.toBeNull()
    const page = await dashboardAs(s)
    const raw = rawFor(s, s.accountA.test.key)
    const refunded = async () => (await raw.get(`/payments/${made.paymentId}`)).json.refunded_amount
    const counts = async () => [
      (await raw.get("/products?limit=100")).json.items.length,
      (await raw.get("/customers?limit=100")).json.items.length,
      (await raw.get("/discounts?limit=100")).json.items.length,
      (await raw.get("/webhooks?limit=100")).json.items.length,
      (await raw.get(`/payments?subscription_id=${made.subscriptionId}&limit=100`)).json.items.length,
      await refunded()
    ]
    const before = await counts()
    const shown = [
      await page("/products"),
      await page("/customers"),
      await page("/discounts"),
      await page("/developers"),
      await page(`/payments/${made.paymentId}/refund?amount=30.00&reason=requested_by_customer`),
      await page(`/subscriptions/${made.subscriptionId}/charge`, { amount: "12.00", description: "Extra box" })
    ]
    const forms = shown.flatMap((r) =>
      [...r.body.matchAll(/<form method="post" action="\/dashboard\/test([^"]+)">([\s\S]*?)<\/form>/g)]
        .filter((m) => m[2]!.includes('name="once"'))
        .map((m) => ({ action: m[1]!, fields: Object.fromEntries([...m[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((f) => [f[1]!, f[2]!])) }))
    )
    expect(forms.map((f) => f.action)).toEqual([
      "/products",
      "/customers",
      "/discounts",
      "/developers/webhooks",
      `/payments/${made.paymentId}/refund`,
      `/subscriptions/${made.subscriptionId}/charge`
    ])
    for (const form of forms) {
      const old = await page(form.action, { ...form.fields, once: onceToken(Date.now() - onceLifetimeMillis - 60_000) })
      expect(old.status, form.action).toBe(400)
      expect(old.body).toContain(dashboardCatalogues.en.frame.pages.outOfDateText)
      const back = /<a href="\/dashboard\/test([^"]*)">Back to the page<\/a>/.exec(old.body)?.[1]
      expect(back, form.action).toBe(form.fields["back"]!.replace("/dashboard/test", ""))
      expect((await page(back!)).status, back).toBe(200)
    }
    expect(await counts()).toEqual(before)
    // Made a little under 23 hours ago, a form is sent.
    const refund = forms.find((f) => f.action.endsWith("/refund"))!
    expect((await page(refund.action, { ...refund.fields, once: onceToken(Date.now() - onceLifetimeMillis + 60_000) })).status).toBe(303)
    expect(await refunded()).toBe(3_000)
  })
})

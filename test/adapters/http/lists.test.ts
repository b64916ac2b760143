/** List behaviour over HTTP (`GET /products`): filters, page size, order, cursors, stability under inserts. */
import { expect, it } from "vitest"
import { call, clientFor, rawFor, type TestAccount, type TestServer } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

const product = (name: string, extra: Record<string, unknown> = {}) => ({ name, price: 1000, currency: "AED", ...extra })

/** Creates products one after the other (so their order is their creation order); returns their ids. */
const createMany = async (server: TestServer, key: string, count: number, extra: Record<string, unknown> = {}) => {
  const raw = rawFor(server, key)
  const ids: Array<string> = []
  for (let i = 0; i < count; i++) {
    const res = await raw.post("/products", product(`P${i}`, extra))
    expect(res.status, res.text).toBe(200)
    ids.push(res.json.product_id)
  }
  return ids
}

/** Every page of a list, following `next_cursor`. */
const walk = async (server: TestServer, key: string, query: string, between?: () => Promise<void>) => {
  const raw = rawFor(server, key)
  const pages: Array<{ items: Array<any>; has_more: boolean; next_cursor: string | null }> = []
  let cursor: string | null = null
  for (let i = 0; i < 100; i++) {
    const params = new URLSearchParams(query)
    if (cursor !== null) params.set("cursor", cursor)
    const res = await raw.get(`/products?${params.toString()}`)
    expect(res.status, res.text).toBe(200)
    pages.push(res.json)
    if (between) await between()
    if (!res.json.has_more) break
    cursor = res.json.next_cursor
  }
  return pages
}

describeStores("lists over HTTP", (variant) => {
  const server = useServer(variant)
  let shop: TestAccount

  it("lists newest first with the list shape, default page size 20", async () => {
    shop = await server().createAccount()
    const ids = await createMany(server(), shop.test.key, 25)
    const res = await rawFor(server(), shop.test.key).get("/products")
    expect(res.status).toBe(200)
    expect(Object.keys(res.json).sort()).toEqual(["has_more", "items", "next_cursor"])
    expect(res.json.items).toHaveLength(20)
    expect(res.json.has_more).toBe(true)
    expect(typeof res.json.next_cursor).toBe("string")
    expect(res.json.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/) // URL-safe
    expect(res.json.items.map((p: any) => p.product_id)).toEqual([...ids].reverse().slice(0, 20))
    for (const item of res.json.items) expect(item.object).toBe("product")

    const typed = await call((await clientFor(server(), shop.test.key)).products.list({ urlParams: { limit: 5 } }))
    expect(typed.items.map((p) => p.product_id)).toEqual([...ids].reverse().slice(0, 5))
    expect(typed.has_more).toBe(true)
  })

  it("walks every item exactly once with the cursor; the last page has no cursor", async () => {
    const pages = await walk(server(), shop.test.key, "limit=10")
    expect(pages.map((p) => p.items.length)).toEqual([10, 10, 5])
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false])
    expect(pages[2]!.next_cursor).toBeNull()
    const seen = pages.flatMap((p) => p.items.map((i: any) => i.product_id))
    expect(new Set(seen).size).toBe(25)
    const created = seen.map((id) => id as string)
    expect([...created].sort().reverse()).toEqual(created) // time-ordered ids, newest first
  })

  it("bounds limit to 1..100", async () => {
    const raw = rawFor(server(), shop.test.key)
    const one = await raw.get("/products?limit=1")
    expect(one.status).toBe(200)
    expect(one.json.items).toHaveLength(1)
    expect(one.json.has_more).toBe(true)
    const hundred = await raw.get("/products?limit=100")
    expect(hundred.status).toBe(200)
    expect(hundred.json.items).toHaveLength(25)
    expect(hundred.json).toMatchObject({ has_more: false, next_cursor: null })
    const exact = await raw.get("/products?limit=25")
    expect(exact.json).toMatchObject({ has_more: false, next_cursor: null })
    for (const limit of ["0", "101", "-1", "abc", "1.5", ""]) {
      expectError(await raw.get(`/products?limit=${limit}`), 400, "INVALID_REQUEST")
    }
  })

  it("filters by status and billing, and pages within the filter", async () => {
    const s = server()
    const filtered = await s.createAccount()
    const key = filtered.test.key
    const drafts = await createMany(s, key, 3, { status: "draft" })
    const monthly = await createMany(s, key, 4, { billing: "recurring", billing_interval: "month" })
    const archivedMonthly = await createMany(s, key, 2, {
      billing: "recurring",
      billing_interval: "month",
      status: "archived"
    })
    const plain = await createMany(s, key, 2)
    const raw = rawFor(s, key)
    const ids = async (query: string) => {
      const res = await raw.get(`/products?limit=100&${query}`)
      expect(res.status, res.text).toBe(200)
      return res.json.items.map((p: any) => p.product_id)
    }
    expect(await ids("status=draft")).toEqual([...drafts].reverse())
    expect(await ids("status=archived")).toEqual([...archivedMonthly].reverse())
    expect(await ids("status=active")).toEqual([...plain, ...monthly].sort().reverse())
    expect(await ids("billing=recurring")).toEqual([...monthly, ...archivedMonthly].sort().reverse())
    expect(await ids("billing=one_time")).toEqual([...drafts, ...plain].sort().reverse())
    expect(await ids("billing=recurring&status=active")).toEqual([...monthly].reverse())
    expect(await ids("billing=one_time&status=archived")).toEqual([])
    expectError(await raw.get("/products?status=deleted"), 400, "INVALID_REQUEST")
    expectError(await raw.get("/products?billing=weekly"), 400, "INVALID_REQUEST")

    const pages = await walk(s, key, "billing=recurring&limit=4")
    expect(pages.flatMap((p) => p.items.map((i: any) => i.product_id))).toEqual(
      [...monthly, ...archivedMonthly].sort().reverse()
    )
    for (const page of pages) for (const item of page.items) expect(item.billing).toBe("recurring")
  })

  it("refuses a cursor that cannot be decoded with 400 INVALID_REQUEST", async () => {
    const raw = rawFor(server(), shop.test.key)
    const good = (await raw.get("/products?limit=2")).json.next_cursor as string
    const cursors = [
      "abc",
      "!!!",
      "x".repeat(2000),
      Buffer.from("{\"l\":\"products\"}").toString("base64url"),
      Buffer.from("not json").toString("base64url"),
      good.slice(0, -3),
      good + "AAAA"
    ]
    for (const cursor of cursors) {
      expectError(await raw.get(`/products?cursor=${encodeURIComponent(cursor)}`), 400, "INVALID_REQUEST")
    }
  })

  it("refuses a cursor of another list or another filter with 400 INVALID_REQUEST", async () => {
    const raw = rawFor(server(), shop.test.key)
    const plain = (await raw.get("/products?limit=2")).json.next_cursor as string
    const active = (await raw.get("/products?limit=2&status=active")).json.next_cursor as string
    expect(plain).not.toBeNull()
    expect(active).not.toBeNull()
    // the cursor is valid where it came from
    expect((await raw.get(`/products?limit=2&cursor=${encodeURIComponent(plain)}`)).status).toBe(200)
    expect((await raw.get(`/products?limit=2&status=active&cursor=${encodeURIComponent(active)}`)).status).toBe(200)
    // a different filter set
    expectError(await raw.get(`/products?status=active&cursor=${encodeURIComponent(plain)}`), 400, "INVALID_REQUEST")
    expectError(await raw.get(`/products?cursor=${encodeURIComponent(active)}`), 400, "INVALID_REQUEST")
    expectError(await raw.get(`/products?status=draft&cursor=${encodeURIComponent(active)}`), 400, "INVALID_REQUEST")
    expectError(await raw.get(`/products?billing=one_time&cursor=${encodeURIComponent(plain)}`), 400, "INVALID_REQUEST")
    // another list
    const customers = rawFor(server(), shop.test.key)
    for (let i = 0; i < 3; i++) {
      expect((await customers.post("/customers", { email: `c${i}@shop.example` })).status).toBe(200)
    }
    const customerCursor = (await customers.get("/customers?limit=1")).json.next_cursor as string
    expect(customerCursor).not.toBeNull()
    expectError(await raw.get(`/products?cursor=${encodeURIComponent(customerCursor)}`), 400, "INVALID_REQUEST")
    expectError(await customers.get(`/customers?cursor=${encodeURIComponent(plain)}`), 400, "INVALID_REQUEST")
  })

  it("pages stably while products are inserted concurrently", async () => {
    const s = server()
    const busy = await s.createAccount()
    const before = await createMany(s, busy.test.key, 45)
    const raw = rawFor(s, busy.test.key)
    const inserted: Array<string> = []
    const writers: Array<Promise<void>> = []
    const insertSome = async () => {
      // several inserts racing the next page read
      writers.push(...Array.from({ length: 3 }, async (_, i) => {
        const res = await raw.post("/products", product(`new ${inserted.length}-${i}`))
        expect(res.status, res.text).toBe(200)
        inserted.push(res.json.product_id)
      }))
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    const pages = await walk(s, busy.test.key, "limit=10", insertSome)
    await Promise.all(writers)
    const seen = pages.flatMap((p) => p.items.map((i: any) => i.product_id as string))
    expect(new Set(seen).size, "an item was repeated").toBe(seen.length)
    for (const id of before) expect(seen.filter((x) => x === id), `${id} should appear exactly once`).toHaveLength(1)
    // order across pages is strictly newest first
    for (let i = 1; i < seen.length; i++) expect(seen[i]! < seen[i - 1]!).toBe(true)
    expect(writers.length).toBeGreaterThanOrEqual(12)
    expect(inserted).toHaveLength(writers.length)
    const all = await raw.get("/products?limit=100")
    expect(all.json.items).toHaveLength(45 + inserted.length)
  })

  it("lists only the caller's account and mode", async () => {
    const s = server()
    const other = await s.createAccount()
    const live = await createMany(s, other.live.key, 2)
    const test = await createMany(s, other.test.key, 3)
    const ids = async (key: string) => (await rawFor(s, key).get("/products?limit=100")).json.items.map((p: any) => p.product_id)
    expect(await ids(other.live.key)).toEqual([...live].reverse())
    expect(await ids(other.test.key)).toEqual([...test].reverse())
    const shops = await ids(shop.test.key)
    for (const id of [...live, ...test]) expect(shops).not.toContain(id)
  })
})

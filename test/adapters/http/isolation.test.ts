/**
 * Property over every endpoint of the contract: four callers (two accounts × test/live keys), each owning objects of
 * every kind (products, customers, sessions, payments, a subscription, webhook endpoints, events). For a random
 * (caller, endpoint, someone else's object): a read, change or delete of it is 404 `NOT_FOUND`; a list filtered by
 * it is empty; a create that names it is refused; a create that reuses someone else's `Idempotency-Key` and body is
 * the caller's own; lists never hold another account's or mode's objects; and the owner's view of everything is
 * unchanged afterwards. The endpoint list comes from `FilsApi`: a new endpoint fails the first test until it has an
 * attack here.
 */
import { HttpApi } from "@effect/platform"
import { FastCheck as fc } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { basePath, FilsApi } from "../../../adapters/http/Api.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"
import { type Kind, kinds, type Seeded, seedObjects } from "../../support/seed.js"
import { type Principal, rawFor, type RawResponse, type TestServer } from "../../support/server.js"

interface Endpoint {
  readonly name: string
  readonly method: string
  readonly path: string
  readonly collection: string
  readonly hasId: boolean
}

const endpoints: Array<Endpoint> = []
HttpApi.reflect(FilsApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, group }) =>
    endpoints.push({
      name: `${group.identifier}.${endpoint.name}`,
      method: endpoint.method,
      path: endpoint.path,
      collection: endpoint.path.slice(basePath.length + 1).split("/")[0]!,
      hasId: endpoint.path.includes("/:id")
    })
})

interface World {
  readonly server: TestServer
  readonly principals: ReadonlyArray<Principal>
  readonly seeded: ReadonlyArray<Seeded>
  /** Every known id → the index of its owner. */
  readonly owner: Map<string, number>
  /** Per caller, what a create with the shared Idempotency-Key returned, by endpoint name. */
  readonly sharedCreates: ReadonlyArray<Map<string, string>>
}

/** What the caller sends to attack `victim`'s objects through one endpoint, and what must come back. */
type Attack = (w: World, caller: number, victim: number, pick: number) => Promise<void>

const pickOf = <A>(xs: ReadonlyArray<A>, n: number): A => {
  if (xs.length === 0) throw new Error("nothing to pick from")
  return xs[n % xs.length]!
}

const kindOf = (e: Endpoint): Kind => {
  const kind = e.collection as Kind
  if (kinds[kind] === undefined) throw new Error(`${e.name}: no objects of kind ${e.collection}`)
  return kind
}

/** Bodies a caller would legitimately send, aimed at someone else's object. */
const patchBodies: Record<string, ReadonlyArray<unknown>> = {
  products: [{ name: "Hijacked", price: 1 }, { status: "archived" }, { metadata: { owner: "attacker" } }],
  customers: [{ name: "Hijacked", email: "attacker@example.ae" }, { phone_number: null }, { metadata: { x: "y" } }],
  subscriptions: [{ status: "cancelled" }, { cancel_at_period_end: true }],
  webhooks: [{ url: "https://8.8.4.4/stolen", disabled: true }, { event_types: ["payment.succeeded"] }],
  discounts: [{ amount: 10000 }, { expires_at: "2030-01-01T00:00:00.000Z" }, { usage_limit: 1 }]
}

/** The create bodies used with a shared Idempotency-Key by every caller. */
const sharedBodies: Record<string, unknown> = {
  "products.create": { name: "Shared key product", price: 100, currency: "AED" },
  "customers.create": { email: "shared@example.ae" },
  "webhooks.create": { url: "https://1.1.1.1/shared", description: "shared key" },
  "discounts.create": { type: "flat", amount: 100, name: "shared key" }
}
const sharedKey = (name: string) => `shared-across-callers-${name}`
/** A test clock made by each test key with the shared Idempotency-Key (live keys have none). */
const sharedClock = { frozen_time: "2030-01-01T00:00:00Z", name: "shared key" }

const send = (w: World, caller: number, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  rawFor(w.server, w.principals[caller]!.key).send(method, path.startsWith(basePath) ? path : `${basePath}${path}`, {
    ...(body === undefined ? {} : { body }),
    ...(headers === undefined ? {} : { headers })
  })

/** The caller's own result: every id in it is the caller's (or new), and its mode is the caller's. */
const expectOwn = (w: World, caller: number, value: unknown, context: string) => {
  const items: Array<any> = Array.isArray((value as any)?.items) ? (value as any).items : [value]
  for (const item of items) {
    if (typeof item?.livemode === "boolean") expect(item.livemode, context).toBe(w.principals[caller]!.livemode)
    for (const v of Object.values(item ?? {})) {
      if (typeof v === "string" && w.owner.has(v)) expect(w.owner.get(v), `${context}: ${v}`).toBe(caller)
    }
  }
}

/** Well-formed bodies for actions on an object (given one of the caller's own products): still 404 on another's. */
const postBodies: Record<string, (product: string) => object> = {
  "subscriptions.changePlan": (product) => ({ product_id: product, quantity: 1, proration_billing_mode: "prorated_immediately" }),
  "subscriptions.previewChangePlan": (product) => ({ product_id: product, quantity: 1, proration_billing_mode: "prorated_immediately" }),
  "subscriptions.charge": () => ({ product_price: 2500, product_description: "Stolen" }),
  "webhooks.test": () => ({ type: "payment.succeeded" }),
  "webhooks.recover": () => ({ since: "2026-01-01T00:00:00.000Z" })
}

const attacks: Record<string, Attack> = {}
for (const e of endpoints) {
  const id = (w: World, victim: number, pick: number) => pickOf(w.seeded[victim]![kindOf(e)], pick)
  if (e.collection === "test_clocks") {
    // Test clocks are test mode's only: a live key finds none, a test key only its own.
    attacks[e.name] = async (w, caller, victim, pick) => {
      const live = w.principals[caller]!.livemode
      if (e.hasId) {
        // Someone else's clock (a live victim has none: another test account's, or the caller's own mode's other).
        const theirs = w.seeded.flatMap((s, i) => (i === caller ? [] : s.test_clocks))
        const target = pickOf(w.seeded[victim]!.test_clocks.length > 0 ? w.seeded[victim]!.test_clocks : theirs, pick)
        const res = await send(w, caller, e.method, e.path.replace(":id", target), e.method === "POST" ? { frozen_time: "2030-06-01T00:00:00Z" } : undefined)
        expectError(res, 404, "NOT_FOUND")
      } else if (live) {
        const res = await send(w, caller, e.method, e.method === "GET" ? `${e.path}?limit=100` : e.path, e.method === "POST" ? { frozen_time: "2030-01-01T00:00:00Z" } : undefined)
        expectError(res, 404, "NOT_FOUND")
      } else if (e.method === "GET") {
        const res = await send(w, caller, "GET", `${e.path}?limit=100`)
        expect(res.status, res.text).toBe(200)
        expectOwn(w, caller, res.json, e.name)
        const ids = res.json.items.map((c: any) => c.test_clock_id)
        for (const mine of w.seeded[caller]!.test_clocks) expect(ids).toContain(mine)
      } else {
        // The shared Idempotency-Key replays the caller's own clock (made in the setup), never another's.
        const res = await send(w, caller, "POST", e.path, sharedClock, { "idempotency-key": sharedKey(e.name) })
        expect(res.status, res.text).toBe(200)
        expect(res.headers.get("idempotent-replayed")).toBe("true")
        expect(res.json.test_clock_id).toBe(w.sharedCreates[caller]!.get(e.name))
      }
    }
  } else if (e.hasId) {
    // Reads, changes, deletes and secrets of someone else's object: 404, whatever the body.
    attacks[e.name] = async (w, caller, victim, pick) => {
      const target = id(w, victim, pick)
      const bodies = e.method === "PATCH"
        ? patchBodies[e.collection] ?? [{}]
        : [postBodies[e.name]?.(pickOf(w.seeded[caller]!.products, pick))]
      const res = await send(w, caller, e.method, e.path.replace(":id", target), pickOf(bodies, pick))
      expectError(res, 404, "NOT_FOUND")
    }
  } else if (e.method === "GET" && e.collection !== "account") {
    // A list: only the caller's; filtered by someone else's object, empty.
    attacks[e.name] = async (w, caller, victim, pick) => {
      const filters: Array<[string, Kind]> = ([["customer_id", "customers"], ["checkout_session_id", "checkout_sessions"]] as Array<[string, Kind]>)
      const usable = filters.filter(([param]) => listParams(e).includes(param))
      const filter = usable.length > 0 && pick % 2 === 0 ? pickOf(usable, pick) : undefined
      const query = filter === undefined ? "?limit=100" : `?limit=100&${filter[0]}=${pickOf(w.seeded[victim]![filter[1]], pick)}`
      const res = await send(w, caller, "GET", `${e.path}${query}`)
      expect(res.status, res.text).toBe(200)
      if (filter !== undefined) expect(res.json.items, `${e.name}${query}`).toEqual([])
      expectOwn(w, caller, res.json, `${e.name}${query}`)
      // Every object of the caller's own seed of this kind is there (the list is not just empty).
      const kind = e.collection as Kind
      if (filter === undefined && kinds[kind] !== undefined) {
        const ids = res.json.items.map((i: any) => i[kinds[kind].idField])
        for (const mine of w.seeded[caller]![kind]) expect(ids, `${e.name} lists the caller's ${mine}`).toContain(mine)
      }
    }
  } else if (e.collection === "account") {
    attacks[e.name] = async (w, caller) => {
      const res = await send(w, caller, e.method, e.path)
      expect(res.status, res.text).toBe(200)
      expect(res.json.livemode).toBe(w.principals[caller]!.livemode)
      expect(res.json.business_name).toBe(businessNames[Math.floor(caller / 2)])
    }
  } else if (e.name === "checkoutSessions.create") {
    // A cart or customer that is someone else's is refused; nothing is created.
    attacks[e.name] = async (w, caller, victim, pick) => {
      const theirs = pickOf(w.seeded[victim]!.products, pick)
      const mine = pickOf(w.seeded[caller]!.products, 0)
      const body = pick % 2 === 0
        ? { product_cart: [{ product_id: theirs }] }
        : { product_cart: [{ product_id: mine }], customer: { customer_id: pickOf(w.seeded[victim]!.customers, pick) } }
      const res = await send(w, caller, "POST", e.path, body)
      expect(res.status, res.text).toBeGreaterThanOrEqual(400)
      expect(res.status, res.text).toBeLessThan(500)
      expect(res.json).toStrictEqual({ code: expect.any(String), message: expect.any(String) })
    }
  } else if (e.name === "customerPortalSessions.create") {
    // A portal session for someone else's customer: not found, and nothing is created.
    attacks[e.name] = async (w, caller, victim, pick) => {
      const res = await send(w, caller, "POST", e.path, { customer_id: pickOf(w.seeded[victim]!.customers, pick) })
      expectError(res, 404, "NOT_FOUND")
    }
  } else if (e.method === "POST" && sharedBodies[e.name] !== undefined) {
    // Someone else's Idempotency-Key with the same body: the caller's own object, never the other's replay.
    attacks[e.name] = async (w, caller) => {
      const res = await send(w, caller, "POST", e.path, sharedBodies[e.name], { "idempotency-key": sharedKey(e.name) })
      expect(res.status, res.text).toBe(200)
      expect(res.headers.get("idempotent-replayed")).toBe("true")
      const idField = kinds[kindOf(e)].idField
      expect(res.json[idField]).toBe(w.sharedCreates[caller]!.get(e.name))
      expectOwn(w, caller, res.json, e.name)
    }
  }
}

const listParams = (e: Endpoint): ReadonlyArray<string> => {
  const names: Array<string> = []
  HttpApi.reflect(FilsApi, {
    predicate: ({ endpoint }) => endpoint.path === e.path && endpoint.method === e.method,
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const ast: any = endpoint.urlParamsSchema._tag === "Some" ? endpoint.urlParamsSchema.value.ast : undefined
      for (const p of ast?.propertySignatures ?? []) names.push(String(p.name))
    }
  })
  return names
}

const businessNames = ["Isolation A", "Isolation B"]

/** What the owner sees of its objects: every list in full and every object read one by one. */
const viewOf = async (w: World, who: number): Promise<string> => {
  const parts: Array<string> = []
  const key = w.principals[who]!.key
  // Not the request logs: they grow with every request the owner makes, this view's own included.
  // Nor the test clocks of a live key, which has none (404).
  for (
    const e of endpoints.filter((x) =>
      x.method === "GET" && !x.hasId && x.collection !== "account" && x.collection !== "request_logs" &&
      !(x.collection === "test_clocks" && w.principals[who]!.livemode)
    )
  ) {
    const res = await rawFor(w.server, key).get(`${e.path}?limit=100`)
    expect(res.status, res.text).toBe(200)
    parts.push(res.text)
  }
  for (const kind of Object.keys(kinds) as Array<Kind>) {
    for (const id of w.seeded[who]![kind]) {
      const res: RawResponse = await rawFor(w.server, key).get(`${basePath}/${kind}/${id}`)
      expect(res.status, `${kind}/${id}: ${res.text}`).toBe(200)
      parts.push(res.text)
    }
  }
  return parts.join("\n")
}

describe("the isolation property covers the contract", () => {
  it("every endpoint has an attack", () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(20)
    expect(endpoints.map((e) => e.name).filter((n) => attacks[n] === undefined)).toEqual([])
  })
})

describeStores("isolation between accounts and modes, over every endpoint (property)", (variant) => {
  const server = useServer(variant)
  let world: World | undefined

  beforeAll(async () => {
    const s = server()
    const a = await s.createAccount({ business_name: businessNames[0], live_payments_enabled: true })
    const b = await s.createAccount({ business_name: businessNames[1], live_payments_enabled: true })
    const principals = [a.test, a.live, b.test, b.live]
    const seeded: Array<Seeded> = []
    for (const [i, p] of principals.entries()) seeded.push(await seedObjects(s, p, `iso${i}`))
    const owner = new Map<string, number>()
    seeded.forEach((objects, i) => Object.values(objects).flat().forEach((id) => owner.set(id, i)))
    // Every caller creates with the same Idempotency-Key and body: four objects, one each.
    const sharedCreates = principals.map(() => new Map<string, string>())
    for (const [name, body] of Object.entries(sharedBodies)) {
      const e = endpoints.find((x) => x.name === name)!
      for (const [i, p] of principals.entries()) {
        const res = await rawFor(s, p.key).post(e.path, body, { headers: { "idempotency-key": sharedKey(name) } })
        expect(res.status, res.text).toBe(200)
        expect(res.headers.get("idempotent-replayed"), `${p.name}: a fresh object, not another caller's`).toBeNull()
        const id = res.json[kinds[kindOf(e)].idField]
        expect(owner.has(id)).toBe(false)
        owner.set(id, i)
        sharedCreates[i]!.set(name, id)
      }
    }
    for (const [i, p] of principals.entries()) {
      if (p.livemode) continue
      const res = await rawFor(s, p.key).post("/test_clocks", sharedClock, { headers: { "idempotency-key": sharedKey("testClocks.create") } })
      expect(res.status, res.text).toBe(200)
      owner.set(res.json.test_clock_id, i)
      sharedCreates[i]!.set("testClocks.create", res.json.test_clock_id)
    }
    world = { server: s, principals, seeded, owner, sharedCreates }
  }, 120_000)

  it("no key reads, lists or changes an object of another account or mode", async () => {
    const w = world!
    const before = await Promise.all(w.principals.map((_, i) => viewOf(w, i)))
    await fc.assert(
      fc.asyncProperty(
        fc.nat(3),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom(...endpoints.map((e) => e.name)),
        fc.nat(),
        async (caller, offset, name, pick) => {
          const victim = (caller + offset) % 4
          await attacks[name]!(w, caller, victim, pick)
          expect(await viewOf(w, victim), `${name} by ${caller} changed ${victim}'s objects`).toBe(before[victim])
        }
      ),
      { numRuns: 30 }
    )
    // Then a full sweep: every endpoint, every caller against every other principal.
    for (const e of endpoints) {
      for (let caller = 0; caller < 4; caller++) {
        for (let offset = 1; offset < 4; offset++) await attacks[e.name]!(w, caller, (caller + offset) % 4, caller + offset)
      }
    }
    const after = await Promise.all(w.principals.map((_, i) => viewOf(w, i)))
    for (let i = 0; i < 4; i++) expect(after[i], `${w.principals[i]!.name}'s objects are unchanged`).toBe(before[i])
  }, 240_000)
})

/**
 * Property: over random sequences of operations by four principals (two accounts × test/live), no key ever reads,
 * lists or changes an object of another account or mode: 404 on get and patch, absent from lists, unchanged after.
 */
import { FastCheck as fc } from "effect"
import { expect, it } from "vitest"
import { type Principal, rawFor, type TestServer } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

type Kind = "products" | "customers"

type Op =
  | { readonly tag: "create"; readonly by: number; readonly kind: Kind; readonly n: number }
  | { readonly tag: "get"; readonly by: number; readonly target: number }
  | { readonly tag: "patch"; readonly by: number; readonly target: number; readonly n: number }
  | { readonly tag: "list"; readonly by: number; readonly kind: Kind }

const principalIndex = fc.integer({ min: 0, max: 3 })
const kind = fc.constantFrom<Kind>("products", "customers")
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ tag: fc.constant("create" as const), by: principalIndex, kind, n: fc.nat(1_000_000) }),
  fc.record({ tag: fc.constant("get" as const), by: principalIndex, target: fc.nat(100) }),
  fc.record({ tag: fc.constant("patch" as const), by: principalIndex, target: fc.nat(100), n: fc.nat(1_000_000) }),
  fc.record({ tag: fc.constant("list" as const), by: principalIndex, kind })
)

interface Known {
  readonly id: string
  readonly kind: Kind
  readonly owner: number
  /** The object as its owner last saw it. */
  state: any
}

const idOf = (kind: Kind, json: any): string => (kind === "products" ? json.product_id : json.customer_id)

const createBody = (kind: Kind, n: number) =>
  kind === "products"
    ? { name: `Item ${n}`, price: n, currency: "AED", metadata: { n: String(n) } }
    : { email: `buyer${n}@example.ae`, name: `Buyer ${n}`, metadata: { n: String(n) } }

const runOps = async (server: TestServer, ops: ReadonlyArray<Op>) => {
  const a = await server.createAccount()
  const b = await server.createAccount()
  const principals: ReadonlyArray<Principal> = [a.test, a.live, b.test, b.live]
  const raw = principals.map((p) => rawFor(server, p.key))
  const known: Array<Known> = []

  const listIds = async (by: number, k: Kind) => {
    const res = await raw[by]!.get(`/${k}?limit=100`)
    expect(res.status, res.text).toBe(200)
    expect(res.json.has_more).toBe(false)
    return res.json.items as Array<any>
  }

  for (const o of ops) {
    const who = principals[o.by]!
    switch (o.tag) {
      case "create": {
        const res = await raw[o.by]!.post(`/${o.kind}`, createBody(o.kind, o.n))
        expect(res.status, res.text).toBe(200)
        expect(res.json.livemode).toBe(who.livemode)
        expect(known.some((x) => x.id === idOf(o.kind, res.json))).toBe(false)
        known.push({ id: idOf(o.kind, res.json), kind: o.kind, owner: o.by, state: res.json })
        break
      }
      case "get": {
        if (known.length === 0) {
          expectError(await raw[o.by]!.get(`/products/pdt_${"0".repeat(32)}`), 404, "NOT_FOUND")
          break
        }
        const target = known[o.target % known.length]!
        const res = await raw[o.by]!.get(`/${target.kind}/${target.id}`)
        if (target.owner === o.by) {
          expect(res.status, res.text).toBe(200)
          expect(res.json).toStrictEqual(target.state)
        } else {
          expectError(res, 404, "NOT_FOUND")
        }
        break
      }
      case "patch": {
        if (known.length === 0) break
        const target = known[o.target % known.length]!
        const body = { name: `Renamed ${o.n} by ${who.name}`, metadata: { by: who.name } }
        const res = await raw[o.by]!.patch(`/${target.kind}/${target.id}`, body)
        if (target.owner === o.by) {
          expect(res.status, res.text).toBe(200)
          expect(res.json).toMatchObject(body)
          target.state = res.json
        } else {
          expectError(res, 404, "NOT_FOUND")
          const after = await raw[target.owner]!.get(`/${target.kind}/${target.id}`)
          expect(after.json, "a refused patch changed nothing").toStrictEqual(target.state)
        }
        break
      }
      case "list": {
        const items = await listIds(o.by, o.kind)
        const mine = known.filter((x) => x.kind === o.kind && x.owner === o.by)
        expect(items.map((i) => idOf(o.kind, i)).sort()).toEqual(mine.map((x) => x.id).sort())
        for (const item of items) {
          expect(item.livemode).toBe(who.livemode)
          expect(item).toStrictEqual(mine.find((x) => x.id === idOf(o.kind, item))!.state)
        }
        break
      }
    }
  }

  // Finally: each object reads as its owner last saw it, and is invisible to the three others.
  for (const x of known) {
    for (let by = 0; by < principals.length; by++) {
      const res = await raw[by]!.get(`/${x.kind}/${x.id}`)
      if (by === x.owner) expect(res.json).toStrictEqual(x.state)
      else expectError(res, 404, "NOT_FOUND")
    }
  }
  for (let by = 0; by < principals.length; by++) {
    for (const k of ["products", "customers"] as const) {
      const ids = (await listIds(by, k)).map((i) => idOf(k, i)).sort()
      expect(ids).toEqual(known.filter((x) => x.kind === k && x.owner === by).map((x) => x.id).sort())
    }
  }
}

describeStores("isolation between accounts and modes (property)", (variant) => {
  const server = useServer(variant)

  it("no key reads, lists or changes another account's or mode's objects", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 15 }), (ops) => runOps(server(), ops)),
      { numRuns: 25 }
    )
  }, 120_000)
})

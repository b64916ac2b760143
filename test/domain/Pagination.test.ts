import { assert, describe, it } from "@effect/vitest"
import { Either, Encoding, FastCheck } from "effect"
import { uuidv7Hex } from "../../src/domain/Ids.js"
import * as Pagination from "../../src/domain/Pagination.js"

const word = FastCheck.integer({ min: 0, max: 0xffffffff })
const idArb = FastCheck.tuple(FastCheck.integer({ min: 0, max: 2 ** 48 - 1 }), word, word, word, word).map(
  ([ms, a, b, c, d]) => `pdt_${uuidv7Hex(ms, [a, b, c, d])}`
)
/** Positions with few distinct millis so ties (and equal positions) are common. */
const positionArb: FastCheck.Arbitrary<Pagination.Position> = FastCheck.record({
  createdAtMillis: FastCheck.oneof(
    FastCheck.integer({ min: 0, max: 5 }),
    FastCheck.integer({ min: 0, max: 4_102_444_800_000 })
  ),
  id: FastCheck.oneof(idArb, FastCheck.constantFrom(`pdt_${"a".repeat(32)}`, `pdt_${"b".repeat(32)}`, `pdt_${"c".repeat(32)}`))
})
const filterValue = FastCheck.option(FastCheck.constantFrom("active", "draft", "archived"), { nil: undefined })
const keyArb = FastCheck.record({
  list: FastCheck.constantFrom("products", "customers", "payments"),
  status: filterValue,
  billing: FastCheck.option(FastCheck.constantFrom("one_time", "recurring"), { nil: undefined })
}).map(({ billing, list, status }) => Pagination.listKey(list, { status, billing }))

const leftTag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left._tag : undefined

describe("listKey", () => {
  it("sorts filters, drops undefined ones", () => {
    assert.strictEqual(Pagination.listKey("products", {}), "products")
    assert.strictEqual(Pagination.listKey("products", { status: undefined }), "products")
    assert.strictEqual(
      Pagination.listKey("products", { status: "active", billing: "recurring" }),
      "products?billing=recurring&status=active"
    )
    assert.strictEqual(
      Pagination.listKey("products", { billing: "recurring", status: "active" }),
      Pagination.listKey("products", { status: "active", billing: "recurring" })
    )
  })
})

describe("cursors", () => {
  it.prop("encode/decode round-trips for the same list", [keyArb, positionArb], ([key, position]) => {
    const cursor = Pagination.encodeCursor(key, position)
    assert.match(cursor, /^[A-Za-z0-9_-]+$/, "URL-safe")
    assert.deepStrictEqual(Either.getOrThrow(Pagination.decodeCursor(key, cursor)), position)
    const request = Either.getOrThrow(Pagination.pageRequest(key, { cursor, limit: 7 }))
    assert.deepStrictEqual(request, { limit: 7, after: position })
  }, { fastCheck: { numRuns: 200 } })

  it.prop("a cursor of another list or filter set is InvalidRequest", [keyArb, keyArb, positionArb], ([k1, k2, p]) => {
    const cursor = Pagination.encodeCursor(k1, p)
    const decoded = Pagination.decodeCursor(k2, cursor)
    if (k1 === k2) assert.isTrue(Either.isRight(decoded))
    else {
      assert.strictEqual(leftTag(decoded), "InvalidRequest")
      assert.strictEqual(leftTag(Pagination.pageRequest(k2, { cursor })), "InvalidRequest")
    }
  }, { fastCheck: { numRuns: 200 } })

  it("a cursor from products?status=active is refused on products and on customers", () => {
    const cursor = Pagination.encodeCursor(Pagination.listKey("products", { status: "active" }), { createdAtMillis: 1, id: `pdt_${"0".repeat(32)}` })
    assert.strictEqual(leftTag(Pagination.decodeCursor("products", cursor)), "InvalidRequest")
    assert.strictEqual(leftTag(Pagination.decodeCursor("products?status=draft", cursor)), "InvalidRequest")
    assert.strictEqual(leftTag(Pagination.decodeCursor("customers", cursor)), "InvalidRequest")
    assert.isTrue(Either.isRight(Pagination.decodeCursor("products?status=active", cursor)))
  })

  it("garbage is InvalidRequest", () => {
    const b64 = (s: string) => Encoding.encodeBase64Url(s)
    const garbage = [
      "",
      "!!!!",
      "not a cursor",
      "%7B%7D",
      b64("not json"),
      b64("{}"),
      b64("[]"),
      b64("null"),
      b64(JSON.stringify({ l: "products", t: "1", i: "pdt_x" })),
      b64(JSON.stringify({ l: "products", t: 1.5, i: "pdt_x" })),
      b64(JSON.stringify({ l: "products", t: 1 })),
      b64(JSON.stringify({ l: "products", i: "pdt_x" })),
      "x".repeat(2000),
      b64(JSON.stringify({ l: "products", t: 1, i: "x".repeat(1000) })),
      // Well-formed JSON whose position names no instant or no id: it must never reach the store.
      b64(JSON.stringify({ l: "products", t: 8640000000000001, i: `pdt_${"0".repeat(32)}` })),
      b64(JSON.stringify({ l: "products", t: -1, i: `pdt_${"0".repeat(32)}` })),
      b64(JSON.stringify({ l: "products", t: 1e300, i: `pdt_${"0".repeat(32)}` })),
      b64(JSON.stringify({ l: "products", t: 1, i: "pdt_x" })),
      b64(JSON.stringify({ l: "products", t: 1, i: `pdt_${"0".repeat(32)}'--` })),
      b64(JSON.stringify({ l: "products", t: 1, i: `pdt_${"0".repeat(32)}`, x: 1 }))
    ]
    for (const cursor of garbage) {
      const result = Pagination.decodeCursor("products", cursor)
      assert.strictEqual(leftTag(result), "InvalidRequest", `cursor '${cursor.slice(0, 40)}'`)
      if (Either.isLeft(result)) assert.strictEqual(result.left.code, "INVALID_REQUEST")
    }
  })

  it.prop("random strings are refused with InvalidRequest", [FastCheck.string({ maxLength: 200 })], ([s]) => {
    assert.strictEqual(leftTag(Pagination.decodeCursor("products", s)), "InvalidRequest")
  }, { fastCheck: { numRuns: 200 } })

  it.prop("a tampered cursor is refused with InvalidRequest or still decodes to an integer position (never throws)", [keyArb, positionArb, FastCheck.nat(), FastCheck.constantFrom(..."ABCxyz019-_")], ([key, p, at, ch]) => {
    const cursor = Pagination.encodeCursor(key, p)
    const i = at % cursor.length
    const tampered = cursor.slice(0, i) + ch + cursor.slice(i + 1)
    const result = Pagination.decodeCursor(key, tampered)
    // Either refused, or still a cursor of this very list (the change hit the position).
    if (Either.isLeft(result)) assert.strictEqual(result.left._tag, "InvalidRequest")
    else assert.isTrue(typeof result.right.createdAtMillis === "number" && Number.isInteger(result.right.createdAtMillis))
  }, { fastCheck: { numRuns: 200 } })
})

describe("forged cursors", () => {
  const forged = FastCheck.record({
    l: FastCheck.constantFrom("products", "customers"),
    t: FastCheck.oneof(FastCheck.integer(), FastCheck.double(), FastCheck.constantFrom(8.64e15, 8.64e15 + 1, -1, 2 ** 53)),
    i: FastCheck.oneof(idArb, FastCheck.string({ maxLength: 40 }))
  })
  it.prop("a decoded cursor always names a real instant and a well-formed id", [forged], ([c]) => {
    const cursor = Encoding.encodeBase64Url(JSON.stringify(c))
    const result = Pagination.decodeCursor(c.l, cursor)
    if (Either.isLeft(result)) return assert.strictEqual(result.left.code, "INVALID_REQUEST")
    assert.isFalse(Number.isNaN(new Date(result.right.createdAtMillis).getTime()))
    assert.isTrue(result.right.createdAtMillis >= 0)
    assert.match(result.right.id, /^[a-z]{2,4}_[0-9a-f]{32}$/)
  }, { fastCheck: { numRuns: 300 } })
})

describe("pageRequest limits", () => {
  it("default 20, accepts 1..100, refuses the rest", () => {
    assert.deepStrictEqual(Either.getOrThrow(Pagination.pageRequest("products", {})), { limit: 20, after: undefined })
    assert.strictEqual(Pagination.defaultLimit, 20)
    assert.strictEqual(Pagination.maxLimit, 100)
    for (const limit of [1, 2, 50, 99, 100]) {
      assert.strictEqual(Either.getOrThrow(Pagination.pageRequest("products", { limit })).limit, limit)
    }
    for (const limit of [0, -1, 101, 1000, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.strictEqual(leftTag(Pagination.pageRequest("products", { limit })), "InvalidRequest", String(limit))
    }
  })

  it.prop("limit accepted iff an integer from 1 to 100", [FastCheck.oneof(FastCheck.integer({ min: -200, max: 300 }), FastCheck.double())], ([limit]) => {
    const ok = Number.isInteger(limit) && limit >= 1 && limit <= 100
    assert.strictEqual(Either.isRight(Pagination.pageRequest("products", { limit })), ok)
  }, { fastCheck: { numRuns: 200 } })
})

describe("compare: newest first", () => {
  it("orders by created_at descending, then id descending", () => {
    assert.isBelow(Pagination.compare({ createdAtMillis: 2, id: "a" }, { createdAtMillis: 1, id: "z" }), 0)
    assert.isAbove(Pagination.compare({ createdAtMillis: 1, id: "z" }, { createdAtMillis: 2, id: "a" }), 0)
    assert.isBelow(Pagination.compare({ createdAtMillis: 1, id: "b" }, { createdAtMillis: 1, id: "a" }), 0)
    assert.strictEqual(Pagination.compare({ createdAtMillis: 1, id: "a" }, { createdAtMillis: 1, id: "a" }), 0)
  })

  it.prop("is a strict total order on positions", [positionArb, positionArb, positionArb], ([a, b, c]) => {
    const sign = (n: number) => Math.sign(n)
    const same = a.createdAtMillis === b.createdAtMillis && a.id === b.id
    // reflexive zero, and zero only for equal positions
    assert.strictEqual(Pagination.compare(a, a), 0)
    assert.strictEqual(Pagination.compare(a, b) === 0, same)
    // antisymmetric
    assert.strictEqual(sign(Pagination.compare(a, b)), -sign(Pagination.compare(b, a)))
    // transitive
    if (Pagination.compare(a, b) < 0 && Pagination.compare(b, c) < 0) assert.isBelow(Pagination.compare(a, c), 0)
    // consistent with newest first
    if (a.createdAtMillis > b.createdAtMillis) assert.isBelow(Pagination.compare(a, b), 0)
    if (a.createdAtMillis === b.createdAtMillis && a.id > b.id) assert.isBelow(Pagination.compare(a, b), 0)
    // isAfter is "comes strictly later in the list"
    assert.strictEqual(Pagination.isAfter(b, a), Pagination.compare(b, a) > 0)
    assert.isTrue(Pagination.isAfter(a, undefined))
    assert.isFalse(Pagination.isAfter(a, a))
  }, { fastCheck: { numRuns: 200 } })

  it.prop("sorting with compare then walking with isAfter visits every position exactly once", [
    FastCheck.uniqueArray(positionArb, { selector: (p) => `${p.createdAtMillis}/${p.id}`, maxLength: 40 }),
    FastCheck.integer({ min: 1, max: 7 })
  ], ([positions, limit]) => {
    const key = "products"
    const seen: Array<Pagination.Position> = []
    let cursor: string | undefined
    for (let guard = 0; guard < 100; guard++) {
      const request = Either.getOrThrow(Pagination.pageRequest(key, cursor === undefined ? { limit } : { limit, cursor }))
      const selected = positions.filter((p) => Pagination.isAfter(p, request.after)).sort(Pagination.compare)
      const list = Pagination.toList(key, { items: selected.slice(0, limit), hasMore: selected.length > limit }, (p) => p)
      seen.push(...list.items)
      assert.strictEqual(list.next_cursor === null, !list.has_more)
      if (list.next_cursor === null) break
      cursor = list.next_cursor
    }
    assert.deepStrictEqual(seen, [...positions].sort(Pagination.compare))
    for (let i = 1; i < seen.length; i++) {
      const [prev, cur] = [seen[i - 1]!, seen[i]!]
      assert.isTrue(
        prev.createdAtMillis > cur.createdAtMillis || (prev.createdAtMillis === cur.createdAtMillis && prev.id > cur.id)
      )
    }
  }, { fastCheck: { numRuns: 100 } })
})

describe("toList", () => {
  it("has a cursor of the last item only when there is more", () => {
    const items = [{ createdAtMillis: 3, id: `pdt_${"c".repeat(32)}` }, { createdAtMillis: 2, id: `pdt_${"b".repeat(32)}` }]
    const more = Pagination.toList("products", { items, hasMore: true }, (p) => p)
    assert.isTrue(more.has_more)
    assert.deepStrictEqual(Either.getOrThrow(Pagination.decodeCursor("products", more.next_cursor!)), items[1])
    const last = Pagination.toList("products", { items, hasMore: false }, (p) => p)
    assert.strictEqual(last.next_cursor, null)
    assert.isFalse(last.has_more)
    assert.strictEqual(Pagination.toList("products", { items: [], hasMore: false }, (p) => p).next_cursor, null)
  })
})

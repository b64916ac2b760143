import { assert, describe, it } from "@effect/vitest"
import { FastCheck, Schema } from "effect"
import * as Ids from "../../src/domain/Ids.js"

const word = FastCheck.integer({ min: 0, max: 0xffffffff })
const words = FastCheck.tuple(word, word, word, word)
/** Any 48-bit millisecond timestamp (UUIDv7's range). */
const millis = FastCheck.integer({ min: 0, max: 2 ** 48 - 1 })

const schemas = {
  account: Ids.AccountId,
  apiKey: Ids.ApiKeyId,
  product: Ids.ProductId,
  customer: Ids.CustomerId,
  payment: Ids.PaymentId,
  subscription: Ids.SubscriptionId,
  checkoutSession: Ids.CheckoutSessionId,
  webhook: Ids.WebhookId,
  event: Ids.EventId
} as const
const kinds = Object.keys(schemas) as ReadonlyArray<keyof typeof schemas>

describe("uuidv7Hex", () => {
  it.prop("is 32 lowercase hex characters with version 7 and variant 10", [millis, words], ([ms, random]) => {
    const hex = Ids.uuidv7Hex(ms, random)
    assert.match(hex, /^[0-9a-f]{32}$/)
    // Version: the high nibble of byte 6 (hex index 12).
    assert.strictEqual(hex[12], "7")
    // Variant: the two high bits of byte 8 (hex index 16) are 10, i.e. the nibble is 8, 9, a or b.
    const variantNibble = parseInt(hex[16]!, 16)
    assert.strictEqual(variantNibble >> 2, 0b10)
  }, { fastCheck: { numRuns: 200 } })

  it("writes the timestamp big-endian in the first 48 bits", () => {
    assert.strictEqual(Ids.uuidv7Hex(0, [0, 0, 0, 0]), "000000000000" + "7000" + "8000" + "000000000000")
    assert.strictEqual(Ids.uuidv7Hex(0x0190f0c2a1b2, [0, 0, 0, 0]).slice(0, 12), "0190f0c2a1b2")
    assert.strictEqual(
      Ids.uuidv7Hex(2 ** 48 - 1, [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff]),
      "ffffffffffff" + "7fff" + "bfff" + "ffffffffffff"
    )
  })

  it("uses the random words for the random bits", () => {
    const a = Ids.uuidv7Hex(1000, [1, 2, 3, 4])
    const b = Ids.uuidv7Hex(1000, [1, 2, 3, 5])
    const c = Ids.uuidv7Hex(1000, [2, 2, 3, 4])
    assert.notStrictEqual(a, b)
    assert.notStrictEqual(a, c)
    assert.strictEqual(a.slice(0, 12), b.slice(0, 12))
  })

  it.prop(
    "ids sort lexicographically by their millisecond, whatever the random words",
    [millis, millis, words, words, FastCheck.constantFrom(...kinds)],
    ([m1, m2, r1, r2, kind]) => {
      const prefix = Ids.prefixes[kind]
      const a = `${prefix}_${Ids.uuidv7Hex(m1, r1)}`
      const b = `${prefix}_${Ids.uuidv7Hex(m2, r2)}`
      if (m1 < m2) assert.isTrue(a < b, `${a} < ${b}`)
      else if (m1 > m2) assert.isTrue(a > b, `${a} > ${b}`)
      else assert.strictEqual(a.slice(0, prefix.length + 13), b.slice(0, prefix.length + 13))
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop("sorting ids sorts by time (nearby millis too)", [
    FastCheck.array(FastCheck.tuple(FastCheck.integer({ min: 1_700_000_000_000, max: 1_700_000_010_000 }), words), {
      minLength: 2,
      maxLength: 30
    })
  ], ([entries]) => {
    const ids = entries.map(([ms, random]) => ({ ms, id: Ids.uuidv7Hex(ms, random) }))
    const byId = [...ids].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)).map((x) => x.ms)
    const byMs = [...ids].map((x) => x.ms).sort((x, y) => x - y)
    assert.deepStrictEqual(byId, byMs)
  }, { fastCheck: { numRuns: 100 } })

  it.prop("idMillis round-trips", [millis, words, FastCheck.constantFrom(...kinds)], ([ms, random, kind]) => {
    const id = `${Ids.prefixes[kind]}_${Ids.uuidv7Hex(ms, random)}`
    assert.strictEqual(Ids.idMillis(id), ms)
    // A bare body (no prefix) decodes too.
    assert.strictEqual(Ids.idMillis(Ids.uuidv7Hex(ms, random)), ms)
  }, { fastCheck: { numRuns: 200 } })

  it("floors fractional millis and clamps negative ones to 0", () => {
    assert.strictEqual(Ids.idMillis(Ids.uuidv7Hex(1234.9, [0, 0, 0, 0])), 1234)
    assert.strictEqual(Ids.idMillis(Ids.uuidv7Hex(-5, [0, 0, 0, 0])), 0)
  })
})

describe("id schemas", () => {
  const generated = (kind: keyof typeof schemas) =>
    FastCheck.tuple(millis, words).map(([ms, random]) => `${Ids.prefixes[kind]}_${Ids.uuidv7Hex(ms, random)}`)

  for (const kind of kinds) {
    const schema = schemas[kind]
    const prefix = Ids.prefixes[kind]
    const is = Schema.is(schema)
    const decode = Schema.decodeUnknownEither(schema)

    it.prop(`${prefix}_: accepts generated ids and rejects damaged ones`, [generated(kind)], ([id]) => {
      assert.isTrue(is(id))
      assert.isTrue(decode(id)._tag === "Right")
      const body = id.slice(prefix.length + 1)
      // uppercase
      if (/[a-f]/.test(body)) assert.isFalse(is(`${prefix}_${body.toUpperCase()}`))
      assert.isFalse(is(`${prefix.toUpperCase()}_${body}`))
      // length
      assert.isFalse(is(`${prefix}_${body.slice(1)}`))
      assert.isFalse(is(`${prefix}_${body}0`))
      // separator and prefix
      assert.isFalse(is(`${prefix}-${body}`))
      assert.isFalse(is(body))
      assert.isFalse(is(` ${id}`))
      assert.isFalse(is(`${id}\n`))
      for (const other of kinds) {
        if (Ids.prefixes[other] !== prefix) assert.isFalse(is(`${Ids.prefixes[other]}_${body}`))
      }
      assert.isTrue(decode(`${prefix}_${body.slice(1)}`)._tag === "Left")
    }, { fastCheck: { numRuns: 30 } })

    it(`${prefix}_: rejects non-hex characters and non-strings`, () => {
      assert.isFalse(is(`${prefix}_${"g".repeat(32)}`))
      assert.isFalse(is(`${prefix}_${"0".repeat(31)}z`))
      assert.isFalse(is(`${prefix}_`))
      assert.isFalse(is(123))
      assert.isFalse(is(null))
      assert.isTrue(is(`${prefix}_${"0".repeat(32)}`))
    })
  }

  it("parseId returns the id for a match and undefined otherwise", () => {
    const parseProduct = Ids.parseId(Ids.ProductId)
    const id = `pdt_${Ids.uuidv7Hex(1_700_000_000_000, [1, 2, 3, 4])}`
    assert.strictEqual(parseProduct(id), id)
    assert.strictEqual(parseProduct(id.replace("pdt_", "cus_")), undefined)
    assert.strictEqual(parseProduct(id.toUpperCase()), undefined)
    assert.strictEqual(parseProduct(id.slice(0, -1)), undefined)
    assert.strictEqual(parseProduct(""), undefined)
  })

  it.prop("parseId agrees with the schema on arbitrary strings", [
    FastCheck.oneof(
      FastCheck.string(),
      FastCheck.stringMatching(/^(pdt|cus|pay)_[0-9a-fA-F]{30,34}$/)
    )
  ], ([raw]) => {
    const parsed = Ids.parseId(Ids.ProductId)(raw)
    const expected = /^pdt_[0-9a-f]{32}$/.test(raw)
    assert.strictEqual(parsed !== undefined, expected)
    if (parsed !== undefined) assert.strictEqual(parsed, raw)
  }, { fastCheck: { numRuns: 200 } })
})

import { assert, describe, it } from "@effect/vitest"
import { DateTime, Either, FastCheck, Schema } from "effect"
import * as Customer from "../../src/domain/Customer.js"
import type { AccountId, CustomerId } from "../../src/domain/Ids.js"
import { uuidv7Hex } from "../../src/domain/Ids.js"

const now = DateTime.unsafeMake("2026-11-21T10:00:00.000Z")
const ctx = {
  id: `cus_${uuidv7Hex(DateTime.toEpochMillis(now), [1, 2, 3, 4])}` as CustomerId,
  accountId: `acct_${uuidv7Hex(DateTime.toEpochMillis(now), [5, 6, 7, 8])}` as AccountId,
  livemode: true,
  now
}

const decodeCreate = Schema.decodeUnknownEither(Customer.CustomerCreate)
const decodeUpdate = Schema.decodeUnknownEither(Customer.CustomerUpdate)

describe("Customer.create", () => {
  it("fills nulls and defaults", () => {
    assert.deepStrictEqual(Customer.create({ email: "a@b.co" }, ctx), {
      object: "customer",
      customer_id: ctx.id,
      account_id: ctx.accountId,
      livemode: true,
      name: null,
      email: "a@b.co",
      phone_number: null,
      business: null,
      metadata: {},
      test_clock_id: null,
      created_at: now
    })
  })

  it("keeps the given fields", () => {
    const c = Customer.create({ email: "a@b.co", name: "Amal", phone_number: "+971501234567", metadata: { x: "1" } }, ctx)
    assert.strictEqual(c.name, "Amal")
    assert.strictEqual(c.phone_number, "+971501234567")
    assert.deepStrictEqual(c.metadata, { x: "1" })
    assert.isTrue(Schema.is(Customer.Customer)(c))
  })
})

describe("Customer.update", () => {
  const c = Customer.create({ email: "a@b.co", name: "Amal", phone_number: "+971501234567", metadata: { x: "1" } }, ctx)

  it("an absent field is left as it was", () => {
    assert.deepStrictEqual(Customer.update(c, {}), c)
    const renamed = Customer.update(c, { name: "Noor" })
    assert.strictEqual(renamed.name, "Noor")
    assert.strictEqual(renamed.phone_number, c.phone_number)
    assert.strictEqual(renamed.email, c.email)
    assert.deepStrictEqual(renamed.metadata, c.metadata)
  })

  it("null clears name and phone_number", () => {
    const cleared = Customer.update(c, { name: null, phone_number: null })
    assert.strictEqual(cleared.name, null)
    assert.strictEqual(cleared.phone_number, null)
    assert.strictEqual(cleared.email, "a@b.co")
  })

  it("metadata is replaced whole; email changes; identity stays", () => {
    const next = Customer.update(c, { metadata: { y: "2" }, email: "new@b.co" })
    assert.deepStrictEqual(next.metadata, { y: "2" })
    assert.strictEqual(next.email, "new@b.co")
    assert.strictEqual(next.customer_id, c.customer_id)
    assert.strictEqual(next.created_at, c.created_at)
    assert.strictEqual(next.livemode, c.livemode)
  })

  it.prop("update applies exactly the named fields", [
    Customer.CustomerCreate,
    Customer.CustomerUpdate
  ], ([input, patch]) => {
    const before = Customer.create(input, ctx)
    const after = Customer.update(before, patch)
    assert.strictEqual(after.email, patch.email ?? before.email)
    // Schema.optional admits an explicit undefined: it means "not given", like an absent key.
    assert.strictEqual(after.name, patch.name !== undefined ? patch.name : before.name)
    assert.strictEqual(after.phone_number, patch.phone_number !== undefined ? patch.phone_number : before.phone_number)
    assert.deepStrictEqual(after.metadata, patch.metadata ?? before.metadata)
    assert.strictEqual(after.customer_id, before.customer_id)
    assert.isTrue(Schema.is(Customer.Customer)(after))
  }, { fastCheck: { numRuns: 100 } })
})

describe("Customer input schemas", () => {
  it("email is required, e-mail shaped, at most 254 characters", () => {
    assert.isTrue(Either.isRight(decodeCreate({ email: "a@b.co" })))
    assert.isTrue(Either.isLeft(decodeCreate({})))
    assert.isTrue(Either.isLeft(decodeCreate({ email: "not-an-email" })))
    assert.isTrue(Either.isLeft(decodeCreate({ email: "a @b.co" })))
    assert.isTrue(Either.isLeft(decodeCreate({ email: "a@b" })))
    assert.isTrue(Either.isLeft(decodeCreate({ email: "a@@b.co" })))
    const local = "l".repeat(64)
    const at254 = `${local}@${"d".repeat(254 - local.length - 1 - 3)}.co`
    assert.strictEqual(at254.length, 254)
    assert.isTrue(Either.isRight(decodeCreate({ email: at254 })))
    assert.isTrue(Either.isLeft(decodeCreate({ email: "x" + at254 })))
  })

  it("name is 1 to 200 characters or null", () => {
    assert.isTrue(Either.isRight(decodeCreate({ email: "a@b.co", name: "A" })))
    assert.isTrue(Either.isRight(decodeCreate({ email: "a@b.co", name: "A".repeat(200) })))
    assert.isTrue(Either.isRight(decodeCreate({ email: "a@b.co", name: null })))
    assert.isTrue(Either.isLeft(decodeCreate({ email: "a@b.co", name: "" })))
    assert.isTrue(Either.isLeft(decodeCreate({ email: "a@b.co", name: "A".repeat(201) })))
  })

  it("phone_number is E.164: '+' and 8 to 15 digits", () => {
    for (const ok of ["+12345678", "+123456789012345", "+971501234567"]) {
      assert.isTrue(Either.isRight(decodeCreate({ email: "a@b.co", phone_number: ok })), ok)
    }
    for (const bad of ["+1234567", "+1234567890123456", "971501234567", "+97150 123 4567", "+97150-1234567", ""]) {
      assert.isTrue(Either.isLeft(decodeCreate({ email: "a@b.co", phone_number: bad })), bad)
    }
  })

  it("update accepts any subset", () => {
    assert.isTrue(Either.isRight(decodeUpdate({})))
    assert.isTrue(Either.isRight(decodeUpdate({ name: null, phone_number: null })))
    assert.isTrue(Either.isLeft(decodeUpdate({ email: "nope" })))
    assert.isTrue(Either.isLeft(decodeUpdate({ email: null })))
  })

  it.prop("phone numbers: accepted exactly when '+' and 8 to 15 digits", [
    FastCheck.stringMatching(/^\+?[0-9]{0,18}$/)
  ], ([raw]) => {
    const expected = /^\+\d{8,15}$/.test(raw)
    assert.strictEqual(Schema.is(Customer.PhoneNumber)(raw), expected)
  }, { fastCheck: { numRuns: 200 } })
})

describe("emailKey", () => {
  it.prop("ignores case", [FastCheck.emailAddress()], ([email]) => {
    assert.strictEqual(Customer.emailKey(email.toUpperCase()), Customer.emailKey(email))
    assert.strictEqual(Customer.emailKey(email), email.toLowerCase())
  }, { fastCheck: { numRuns: 100 } })

  it.prop("generated e-mail addresses pass the Email schema when short enough", [FastCheck.emailAddress()], ([email]) => {
    if (email.length <= 254) assert.isTrue(Schema.is(Customer.Email)(email), email)
    else assert.isFalse(Schema.is(Customer.Email)(email))
  }, { fastCheck: { numRuns: 100 } })
})

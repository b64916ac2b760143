/**
 * The SQL store's rows and the domain's Schemas (adapters/sql/rows.ts): every domain value the Schema generates
 * goes into its row and comes back equal; a row the domain refuses is `UndecodableRow` naming the row and the field;
 * and the compiled decoders (adapters/sql/compiled.ts) answer exactly as Effect's own parser does, on rows as the
 * store writes them and on rows broken one column at a time.
 */
import { Arbitrary, Either, FastCheck, ParseResult, Redacted, Schema } from "effect"
import { isDeepStrictEqual } from "node:util"
import { describe, expect, it } from "vitest"
import { UndecodableRow } from "../../adapters/sql/columns.js"
import { compile, Fails, guardOf } from "../../adapters/sql/compiled.js"
import * as Rows from "../../adapters/sql/rows.js"
import { Account, ApiKey } from "../../src/domain/Account.js"
import { CheckoutSession } from "../../src/domain/CheckoutSession.js"
import { Customer } from "../../src/domain/Customer.js"
import { AuditEntry, DashboardSession, DashboardUser, SignInLink } from "../../src/domain/DashboardUser.js"
import { Delivery } from "../../src/domain/Delivery.js"
import { Discount } from "../../src/domain/Discount.js"
import { Event } from "../../src/domain/Event.js"
import { Payment } from "../../src/domain/Payment.js"
import { PortalSession } from "../../src/domain/PortalSession.js"
import { Product } from "../../src/domain/Product.js"
import { Refund } from "../../src/domain/Refund.js"
import { RequestLog } from "../../src/domain/RequestLog.js"
import { Subscription } from "../../src/domain/Subscription.js"
import { TestClock } from "../../src/domain/TestClock.js"
import { WebhookEndpoint } from "../../src/domain/WebhookEndpoint.js"

interface TableCase {
  readonly name: string
  readonly domain: Schema.Schema.AnyNoContext
  readonly table: {
    readonly schema: Schema.Schema.AnyNoContext
    readonly fromRow: (row: unknown) => unknown
    readonly toRow: (value: never) => unknown
  }
}

const tables: ReadonlyArray<TableCase> = [
  { name: "accounts", domain: Account, table: Rows.Accounts },
  { name: "api_keys", domain: ApiKey, table: Rows.ApiKeys },
  { name: "products", domain: Product, table: Rows.Products },
  { name: "customers", domain: Customer, table: Rows.Customers },
  { name: "checkout_sessions", domain: CheckoutSession, table: Rows.CheckoutSessions },
  { name: "payments", domain: Payment, table: Rows.Payments },
  { name: "subscriptions", domain: Subscription, table: Rows.Subscriptions },
  { name: "events", domain: Event, table: Rows.Events },
  { name: "refunds", domain: Refund, table: Rows.Refunds },
  { name: "dashboard_users", domain: DashboardUser, table: Rows.DashboardUsers },
  { name: "dashboard_sign_in_links", domain: SignInLink, table: Rows.SignInLinks },
  { name: "dashboard_sessions", domain: DashboardSession, table: Rows.DashboardSessions },
  { name: "dashboard_audit", domain: AuditEntry, table: Rows.AuditEntries },
  // The link and the secret as stored (sealed, or plaintext without a key): the repositories seal and open them.
  { name: "customer_portal_sessions", domain: PortalSession, table: Rows.PortalSessions },
  { name: "webhook_endpoints", domain: WebhookEndpoint, table: Rows.WebhookEndpoints },
  { name: "webhook_deliveries", domain: Delivery, table: Rows.Deliveries },
  { name: "request_logs", domain: RequestLog, table: Rows.RequestLogs },
  { name: "discounts", domain: Discount, table: Rows.Discounts },
  { name: "test_clocks", domain: TestClock, table: Rows.TestClocks }
]

const jsonbColumns = new Set(["metadata", "product_cart", "data"])
/** A written row as node-postgres reads it back: jsonb parsed (the store writes it as text), the rest as written. */
const readBack = (row: unknown): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(row as Record<string, unknown>).map((
      [column, value]
    ) => [column, jsonbColumns.has(column) && typeof value === "string" ? JSON.parse(value) : value])
  )

/**
 * The same value, with its object keys in one order (the domain's functions and the Schema order them differently).
 * A `Redacted` is compared by what it holds (it keeps that out of sight, so any two would look alike).
 */
const sameValue = (a: unknown, b: unknown) => isDeepStrictEqual(unredacted(a), unredacted(b))
const unredacted = (value: unknown): unknown =>
  Redacted.isRedacted(value)
    ? { redacted: unredacted(Redacted.value(value)) }
    : Array.isArray(value)
    ? value.map(unredacted)
    : typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype
    ? Object.fromEntries(Object.entries(value).map(([key, v]) => [key, unredacted(v)]))
    : value

describe("SQL rows and the domain's Schemas", () => {
  for (const { domain, name, table } of tables) {
    // jsonb keeps JSON: event data as JSON makes it (no `undefined`); and no `__proto__` key, which Effect's parser
    // drops from any record (the API's own decoding of metadata included).
    const values = Arbitrary.make(Schema.typeSchema(domain))
      .map((value) => "data" in value ? { ...value, data: JSON.parse(JSON.stringify(value.data)) } : value)
      .filter((value) => !/"__proto__"/.test(JSON.stringify(value)))
    const parse = ParseResult.decodeUnknownEither(table.schema)
    const compiled = compile(table.schema).decode

    it(`${name}: every value the domain accepts comes back from its row equal, as Effect's parser decodes it`, () => {
      FastCheck.assert(
        FastCheck.property(values, (value) => {
          const row = readBack(table.toRow(value as never))
          const back = table.fromRow(row)
          const parsed = parse(row)
          return sameValue(back, value) && Either.isRight(parsed) && sameValue(parsed.right, back) &&
            sameValue(compiled(row), back)
        }),
        { numRuns: 150, seed: 20261127 }
      )
    })

    it(`${name}: a row broken in one column decodes as Effect's parser decodes it, or is UndecodableRow`, () => {
      const broken = values.chain((value) => {
        const row = readBack(table.toRow(value as never))
        const columns = Object.keys(row)
        return FastCheck.record({
          column: FastCheck.constantFrom(...columns),
          replacement: FastCheck.oneof(
            FastCheck.anything(),
            FastCheck.constantFrom(null, "", "x", -1, 1.5, 2 ** 53, "9007199254740993", new Date(Number.NaN), {}, [])
          )
        }).map(({ column, replacement }) => ({ ...row, [column]: replacement }))
      })
      let refused = 0
      FastCheck.assert(
        FastCheck.property(broken, (row) => {
          const parsed = parse(row)
          const fast = compiled(row)
          if (Either.isLeft(parsed)) {
            refused++
            expect(fast).toBe(Fails)
            expect(() => table.fromRow(row)).toThrow(UndecodableRow)
            return true
          }
          return sameValue(fast, parsed.right) && sameValue(table.fromRow(row), parsed.right)
        }),
        { numRuns: 300, seed: 20261127 }
      )
      expect(refused).toBeGreaterThan(30)
    })
  }

  for (const { domain, name } of tables) {
    it(`${name}: the compiled guard passes every value the domain generates, and only values Effect's parser gives back unchanged`, () => {
      const is = guardOf(domain)
      const parse = ParseResult.decodeUnknownEither(Schema.typeSchema(domain))
      const gives = (input: unknown) => {
        const parsed = parse(input)
        return Either.isRight(parsed) && sameValue(parsed.right, input)
      }
      const values = Arbitrary.make(Schema.typeSchema(domain)).filter((value) => !/"__proto__"/.test(JSON.stringify(value)))
      // Every value the domain makes is checked in place: a read never falls back to the parser for a sound row.
      FastCheck.assert(FastCheck.property(values, (value) => is(value) && gives(value)), { numRuns: 150, seed: 20261127 })
      // Changed one key at a time (a wrong value, a key too many, one missing), it passes only where the parser agrees.
      const changed = values.chain((value) =>
        FastCheck.record({
          key: FastCheck.constantFrom(...Object.keys(value), "extra"),
          replacement: FastCheck.oneof(FastCheck.anything(), FastCheck.constantFrom(undefined, null, "", -1, 1.5, {}, []))
        }).map(({ key, replacement }) => ({ ...value, [key]: replacement }))
      )
      FastCheck.assert(FastCheck.property(changed, (input) => !is(input) || gives(input)), { numRuns: 300, seed: 20261127 })
      FastCheck.assert(FastCheck.property(FastCheck.anything(), (input) => !is(input) || gives(input)), { numRuns: 300, seed: 20261127 })
    })
  }

  // Their decoders are compiled at their first use (compiled.ts's `lazily`): each is made here once.
  it("the stand-alone row decoders refuse a row without their columns, naming their table", () => {
    const decoders = [
      [Rows.keyUsageFromRow, "api_key_usage"],
      [Rows.renewalAttemptFromRow, "renewal_attempts"],
      [Rows.idempotencyFromRow, "idempotency_keys"]
    ] as const
    for (const [decode, table] of decoders) {
      expect(() => decode({ unknown_column: 1 })).toThrow(UndecodableRow)
      expect(() => decode({ unknown_column: 1 })).toThrow(`a row of ${table}`)
    }
  })

  it("a row the domain refuses names its table, its id and the field, and what was there", () => {
    const payment = FastCheck.sample(Arbitrary.make(Payment), { numRuns: 1, seed: 7 })[0]!
    const row = { ...readBack(Rows.paymentToRow(payment)), currency: "USD" }
    expect(() => Rows.paymentFromRow(row)).toThrow(UndecodableRow)
    expect(() => Rows.paymentFromRow(row)).toThrow(`a row of payments (payment_id ${payment.payment_id})`)
    expect(() => Rows.paymentFromRow(row)).toThrow(/\["currency"\]\s+└─ Expected Currency, actual "USD"/)
    // Grouped columns come back whole or not at all: a card with one of its columns null is refused.
    const card = { ...readBack(Rows.paymentToRow({ ...payment, card: { brand: "visa", last4: "4242", exp_month: 1, exp_year: 2030, token: "tok" } })), card_last4: null }
    expect(() => Rows.paymentFromRow(card)).toThrow(/\["card"\]/)
  })

  it("int8 columns: text from a client without the int8 parser reads as the number; beyond 2^53, a defect", () => {
    const payment = FastCheck.sample(Arbitrary.make(Payment), { numRuns: 1, seed: 8 })[0]!
    const row = readBack(Rows.paymentToRow(payment))
    expect(Rows.paymentFromRow({ ...row, total_amount: String(payment.total_amount) })).toEqual(payment)
    expect(() => Rows.paymentFromRow({ ...row, total_amount: "9007199254740993" })).toThrow(UndecodableRow)
  })
})

describe("compiled Schemas answer as Effect's parser does", () => {
  // Nodes the compiler handles itself and the ones it leaves to Effect (optional keys, literal-keyed unions, a
  // transformation of property signatures, a suspended Schema), on generated and on arbitrary input.
  interface Tree {
    readonly label: string
    readonly children: ReadonlyArray<Tree>
  }
  const Tree: Schema.Schema<Tree> = Schema.Struct({
    label: Schema.String,
    children: Schema.Array(Schema.suspend(() => Tree))
  })
  const schemas: ReadonlyArray<readonly [string, Schema.Schema.AnyNoContext]> = [
    ["struct with optional keys", Schema.Struct({ a: Schema.Number, b: Schema.optional(Schema.String) })],
    [
      "union keyed by a literal",
      Schema.Union(
        Schema.Struct({ kind: Schema.Literal("a"), n: Schema.NumberFromString }),
        Schema.Struct({ kind: Schema.Literal("b"), s: Schema.String })
      )
    ],
    ["renamed key", Schema.Struct({ a: Schema.propertySignature(Schema.Number).pipe(Schema.fromKey("A")) })],
    ["record beside fields", Schema.Struct({ id: Schema.Int }, Schema.Record({ key: Schema.String, value: Schema.Number }))],
    ["tuple", Schema.Tuple(Schema.String, Schema.Number)],
    ["suspended", Tree],
    ["dates and numbers from text", Schema.Struct({ at: Schema.Date, n: Schema.NumberFromString, xs: Schema.Array(Schema.Trim) })],
    ["secrets", Schema.Struct({ secret: Schema.Redacted(Schema.String), pin: Schema.Redacted(Schema.NumberFromString) })]
  ]
  for (const [label, schema] of schemas) {
    it(label, () => {
      const parse = ParseResult.decodeUnknownEither(schema)
      const encode = ParseResult.encodeUnknownEither(schema)
      const { decode: fastDecode, encode: fastEncode } = compile(schema)
      const inputs = FastCheck.oneof(Arbitrary.make(Schema.encodedSchema(schema)), FastCheck.anything())
      FastCheck.assert(
        FastCheck.property(inputs, (input) => {
          const parsed = parse(input)
          const fast = fastDecode(input)
          if (Either.isLeft(parsed)) return fast === Fails
          const encoded = encode(parsed.right)
          return sameValue(fast, parsed.right) && Either.isRight(encoded) &&
            sameValue(fastEncode(parsed.right), encoded.right)
        }),
        { numRuns: 300, seed: 20261127 }
      )
      // The guard of its type side: never true where the parser would not give the input back unchanged.
      const is = guardOf(schema)
      const parseType = ParseResult.decodeUnknownEither(Schema.typeSchema(schema))
      const types = FastCheck.oneof(Arbitrary.make(Schema.typeSchema(schema)), FastCheck.anything())
      FastCheck.assert(
        FastCheck.property(types, (input) => {
          if (!is(input)) return true
          const parsed = parseType(input)
          return Either.isRight(parsed) && sameValue(parsed.right, input)
        }),
        { numRuns: 300, seed: 20261127 }
      )
    })
  }
})

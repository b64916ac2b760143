/**
 * The served OpenAPI document says exactly what the server enforces, checked the way Schemathesis does it
 * but without Python: request bodies are generated from the document's own request schemas (as served by
 * `GET /api/v1/openapi.json`), some mutated to break one rule, and judged by ajv against those schemas. A body that
 * satisfies its schema must be accepted (200), one that violates it refused with 400, for the create and update
 * operations of products, customers and webhooks.
 *
 * Two things the document cannot say stay out of the generated bodies, and are tested where they are enforced:
 * whether text is well-formed Unicode (JSON Schema has no keyword for a lone surrogate: `text.test.ts`), and the
 * billing, trial, VAT and plan change fields of a product update, whose rules depend on the stored product (`products.test.ts`). A webhook's
 * host rule by mode (which addresses are internal) is stated in words beside the URL pattern; the judge applies it
 * from the domain (`Network.isRefusedHost`), as the description says; so is a business's Peppol endpoint, whose id
 * must be its TRN's first 10 digits.
 *
 * The list endpoints' query parameters are judged the same way, from their documented schemas, unknown parameters
 * included (the document says they are ignored). A `cursor` is the one value no schema can generate: the document
 * gives its shape and says that only a cursor the server wrote for the same list and filters is accepted; so a
 * generated one of that shape must be refused, one breaking it too, and a real `next_cursor` accepted.
 */
// ajv (dev) judges as OpenAPI 3.1 does: JSON Schema 2020-12.
import { Ajv2020 } from "ajv/dist/2020.js"
import fc from "fast-check"
import { expect, it } from "vitest"
import { isRefusedHost } from "../../../src/domain/Network.js"
import { isWellFormed } from "../../../src/domain/Text.js"
import { useServer } from "../../support/httpSuite.js"
import { postgresVariant, rawFor, type TestServer } from "../../support/server.js"

type Json = Record<string, any>

const server = useServer(postgresVariant, { FILS_RATE_LIMIT_PER_MIN: "100000" })

/** `schema` with every `$ref` into the document replaced by its target (request schemas have no cycles). */
const deref = (doc: Json, schema: unknown): any => {
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s))
  if (schema === null || typeof schema !== "object") return schema
  const { $ref, ...rest } = schema as Json
  const resolved = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, k === "examples" ? v : deref(doc, v)]))
  if (typeof $ref !== "string") return resolved
  const target = $ref.replace(/^#\//, "").split("/").reduce((node: Json, part: string) => node[part], doc)
  return { ...deref(doc, target), ...resolved }
}

const emoji = "😀"
const loopbackUrl = fc.tuple(fc.constantFrom("http://127.0.0.1", "http://127.0.0.1:9", "https://[::1]:8443"), fc.webPath())
  .map(([origin, path]) => `${origin}${path.startsWith("/") ? path : `/${path}`}`)

/** Text of about the bounds' lengths, counted in characters: plain, Arabic, emoji, or exactly at the limit. */
const text = (min: number, max: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ minLength: min, maxLength: Math.min(max, 40), unit: "grapheme" }),
    fc.constantFrom("x", "قهوة عربية", `${emoji} box`, "x".repeat(max), emoji.repeat(max), emoji.repeat(Math.max(min, 1)))
  )

/** Strings of a schema's pattern (well-formed, within its length): what a fuzzer honouring the pattern sends. */
const patterned = (schema: Json): fc.Arbitrary<string> =>
  fc.stringMatching(new RegExp(schema.pattern)).filter((s) => isWellFormed(s) && [...s].length <= (schema.maxLength ?? 254))

/** Values a schema mostly accepts (ajv decides which are valid: the generator need not be exact). */
const valuesOf = (schema: Json, name = ""): fc.Arbitrary<unknown> => {
  if (schema.anyOf !== undefined || schema.oneOf !== undefined) {
    return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Json) => valuesOf({ ...schema, anyOf: undefined, oneOf: undefined, ...s }, name)))
  }
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
  switch (schema.type) {
    case "null":
      return fc.constant(null)
    case "boolean":
      return fc.boolean()
    case "integer":
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 1_000_000, 1_000_000) })
    case "array":
      return fc.uniqueArray(valuesOf(schema.items, name), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) })
    case "object":
      return objectOf(schema)
    case "string": {
      if (schema.format === "uri" || name === "url") return fc.oneof(loopbackUrl, patterned(schema))
      if (typeof schema.pattern === "string" && schema.pattern !== "^[^\\u0000]*$") return patterned(schema)
      return text(schema.minLength ?? 0, schema.maxLength ?? 100)
    }
    default:
      return fc.constant("anything")
  }
}

const objectOf = (schema: Json): fc.Arbitrary<Json> => {
  const properties: Json = schema.properties ?? {}
  const names = Object.keys(properties)
  if (names.length === 0 && typeof schema.additionalProperties === "object") {
    // A map such as metadata: keys of 0 to 45 characters, up to its limit of keys and sometimes just past it.
    const keys = fc.oneof(fc.string({ minLength: 1, maxLength: 12, unit: "grapheme" }), fc.constantFrom("", "k".repeat(40), "k".repeat(41), emoji.repeat(40), "a\u0000b", "a\u0001b", "tab\there"))
    const max = schema.maxProperties ?? 5
    return fc.oneof(
      fc.dictionary(keys, valuesOf(schema.additionalProperties), { maxKeys: 4 }),
      fc.constant(Object.fromEntries(Array.from({ length: max }, (_, i) => [`k${i}`, "v"]))),
      fc.constant(Object.fromEntries(Array.from({ length: max + 1 }, (_, i) => [`k${i}`, "v"])))
    )
  }
  const required = new Set<string>(schema.required ?? [])
  return fc.record(
    Object.fromEntries(names.map((n) => [n, valuesOf(properties[n], n)])),
    { requiredKeys: names.filter((n) => required.has(n)) }
  ) as fc.Arbitrary<Json>
}

/** One rule broken on purpose: a required field dropped, an unknown field, a wrong type, or a bound overstepped. */
type Mutation =
  | { readonly kind: "none" }
  | { readonly kind: "drop" | "wrongType" | "tooLong" | "empty" | "nul" | "bogus"; readonly pick: number }
  | { readonly kind: "unknown" }

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "unknown" as const }) },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constantFrom("drop" as const, "wrongType" as const, "tooLong" as const, "empty" as const, "nul" as const, "bogus" as const), pick: fc.nat() })
  }
)

const mutate = (schema: Json, body: Json, m: Mutation): Json => {
  if (m.kind === "none") return body
  if (m.kind === "unknown") return { ...body, coupon: "X" }
  const names = Object.keys(schema.properties ?? {})
  if (names.length === 0) return body
  const name = names[m.pick % names.length]!
  const next = { ...body }
  switch (m.kind) {
    case "drop":
      delete next[name]
      return next
    case "wrongType":
      next[name] = typeof body[name] === "number" ? String(body[name]) : typeof body[name] === "string" ? 42 : "text"
      return next
    case "tooLong":
      next[name] = emoji.repeat(5001)
      return next
    case "empty":
      next[name] = ""
      return next
    case "nul":
      next[name] = "a\u0000b"
      return next
    case "bogus":
      next[name] = -1
      return next
  }
}

interface Operation {
  readonly method: "POST" | "PATCH"
  readonly path: string
  /** The request path, for a PATCH with a fresh object to change. */
  readonly target: (server: TestServer, key: string) => Promise<string>
  /** Properties left out of the generated bodies (see the header). */
  readonly leaveOut?: ReadonlyArray<string>
}

const create = async (server: TestServer, key: string, path: string, body: Json, idField: string) => {
  const res = await rawFor(server, key).post(path, body)
  expect(res.status, res.text).toBe(200)
  return `${path}/${res.json[idField]}`
}

const operations: ReadonlyArray<Operation> = [
  { method: "POST", path: "/products", target: async () => "/products" },
  {
    method: "PATCH",
    path: "/products/{id}",
    target: (s, key) => create(s, key, "/products", { name: "Dates", price: 100, currency: "AED" }, "product_id"),
    leaveOut: [
      "billing",
      "billing_interval",
      "interval_count",
      "trial_period_days",
      "trial_amount",
      "tax_category",
      "tax_exemption_code",
      "plan_change_policy",
      "offered_in_portal"
    ]
  },
  // A test clock is named by its id, which must be one of the account's: a reference, not a shape.
  { method: "POST", path: "/customers", target: async () => "/customers", leaveOut: ["test_clock_id"] },
  {
    method: "PATCH",
    path: "/customers/{id}",
    target: (s, key) => create(s, key, "/customers", { email: "patch@example.ae" }, "customer_id")
  },
  { method: "POST", path: "/webhooks", target: async () => "/webhooks" },
  {
    method: "PATCH",
    path: "/webhooks/{id}",
    target: (s, key) => create(s, key, "/webhooks", { url: "http://127.0.0.1:9/hook" }, "webhook_id")
  }
]

/** The documented host rule of a test-mode webhook `url` (the description beside its pattern). */
/**
 * A business's Peppol endpoint is its TRN's first 10 digits: a comparison of two fields that JSON Schema cannot state,
 * stated beside the schema in words and applied here as the description says.
 */
const endpointOfTrn = (body: Json): boolean => {
  const business = body.business
  if (typeof business?.peppol_endpoint?.id !== "string" || typeof business.trn !== "string") return true
  return business.peppol_endpoint.id === business.trn.slice(0, 10)
}

const hostAllowed = (body: Json): boolean => {
  if (typeof body.url !== "string") return true
  try {
    return !isRefusedHost(new URL(body.url).hostname, false)
  } catch {
    return true // not a URL: the pattern has refused it
  }
}

/** The query parameters that are instants (`QueryInstant`), and whether the date one names exists. */
const instantParams = new Set(["since", "until"])
const exists = (value: string): boolean => {
  const time = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(value)
  if (time === null) return true // the pattern refuses it
  const [year, month, day, hours, minutes, seconds] = time.slice(1).map(Number) as [number, number, number, number, number, number]
  const back = new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds))
  return back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day &&
    back.getUTCHours() === hours && back.getUTCMinutes() === minutes && back.getUTCSeconds() === seconds
}

it("every generated create and update body is accepted iff it satisfies the served document's schema", async () => {
  const s = server()
  const key = s.accountA.test.key
  const doc = (await rawFor(s, key).get("/api/v1/openapi.json")).json as Json
  // Formats are annotations here: the patterns beside them say what the server checks.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false })
  const tally = { accepted: 0, refused: 0 }
  for (const op of operations) {
    const raw = doc.paths[`/api/v1${op.path}`][op.method.toLowerCase()].requestBody.content["application/json"].schema
    const schema = deref(doc, raw)
    for (const leftOut of op.leaveOut ?? []) delete schema.properties[leftOut]
    const valid = ajv.compile(schema)
    await fc.assert(
      fc.asyncProperty(objectOf(schema), mutation, async (generated, m) => {
        const body = mutate(schema, generated, m)
        const target = await op.target(s, key)
        const res = op.method === "POST" ? await rawFor(s, key).post(target, body) : await rawFor(s, key).patch(target, body)
        const expected = valid(body) && hostAllowed(body) && endpointOfTrn(body) ? 200 : 400
        expect(res.status, `${op.method} ${op.path} ${JSON.stringify(body).slice(0, 300)}: ${res.text.slice(0, 300)} (${ajv.errorsText(valid.errors)})`).toBe(expected)
        tally[expected === 200 ? "accepted" : "refused"]++
      }),
      { numRuns: 50 }
    )
  }
  // Both sides of the rule were exercised, on every operation together.
  expect(tally.accepted).toBeGreaterThan(60)
  expect(tally.refused).toBeGreaterThan(60)
}, 240_000)

/** A query value as sent: some of the schema's own values (integers in decimal), some that break it. */
const queryValues = (schema: Json): fc.Arbitrary<string> => {
  const broken = fc.constantFrom("", "0", "-1", "101", "05", "1e1", "2.0", "abc", "a\u0000b", "x".repeat(300), emoji, " 1", "eyJsIjoi", "active ")
  const own: fc.Arbitrary<string> = schema.type === "integer"
    ? fc.integer({ min: schema.minimum ?? 0, max: schema.maximum ?? 1000 }).map(String)
    : Array.isArray(schema.enum)
    ? fc.constantFrom(...(schema.enum as Array<string>))
    : typeof schema.pattern === "string"
    ? patterned(schema)
    : fc.string({ maxLength: 40, unit: "grapheme" })
  return fc.oneof({ weight: 3, arbitrary: own }, { weight: 2, arbitrary: broken }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }).filter(isWellFormed) })
}

/** `allOf: [x]` (how the generator wraps a `$ref` with a description) as `x`. */
const flat = (schema: Json): Json => (Array.isArray(schema.allOf) && schema.allOf.length === 1 ? { ...schema.allOf[0], ...schema, allOf: undefined } : schema)

it("every generated list query is accepted iff the served document's parameters allow it; unknown ones are ignored", async () => {
  const s = server()
  const key = s.accountA.test.key
  const raw = rawFor(s, key)
  const doc = (await raw.get("/api/v1/openapi.json")).json as Json
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false })
  // Something to page through in every list.
  for (let i = 0; i < 2; i++) {
    expect((await raw.post("/products", { name: `Dates ${i}`, price: 100, currency: "AED" })).status).toBe(200)
    expect((await raw.post("/customers", { email: `list${i}@example.ae` })).status).toBe(200)
    expect((await raw.post("/webhooks", { url: `http://127.0.0.1:9/list${i}` })).status).toBe(200)
  }
  const lists = Object.entries<Json>(doc.paths)
    .filter(([path, item]) => item.get !== undefined && !path.includes("{"))
    .map(([path, item]) => ({
      path: path.replace(/^\/api\/v1/, ""),
      params: (item.get.parameters ?? []).filter((p: Json) => p.in === "query").map((p: Json) => ({ name: p.name as string, schema: flat(deref(doc, p.schema)) }))
    }))
    .filter((l) => l.params.length > 0)
  expect(lists.map((l) => l.path).sort()).toEqual(["/credit_notes", "/customers", "/discounts", "/events", "/invoices", "/payments", "/products", "/request_logs", "/subscriptions", "/test_clocks", "/webhooks"])
  for (const list of lists) expect(list.params.map((p: Json) => p.name), list.path).toEqual(expect.arrayContaining(["limit", "cursor"]))
  expect(doc.paths["/api/v1/products"].get.description).toContain("Query parameters not listed here are ignored")

  const tally = { accepted: 0, refused: 0, realCursors: 0 }
  for (const list of lists) {
    const checks = new Map<string, (v: string) => boolean>(list.params.map((p: { name: string; schema: Json }) => {
      const valid = ajv.compile(p.schema)
      return [p.name, (v: string) => (p.schema.type === "integer" ? /^-?(0|[1-9][0-9]*)$/.test(v) && valid(Number(v)) : valid(v))]
    }))
    const filters = list.params.filter((p: Json) => p.name !== "cursor")
    const cursorSchema = list.params.find((p: Json) => p.name === "cursor")!.schema
    await fc.assert(
      fc.asyncProperty(
        fc.record(Object.fromEntries(filters.map((p: Json) => [p.name, queryValues(p.schema)])), { requiredKeys: [] }),
        fc.oneof(fc.constant(undefined), fc.constant("real" as const), queryValues(cursorSchema)),
        fc.option(fc.constantFrom({ coupon: "X" }, { expand: "customer" }, { LIMIT: "1000" }), { nil: undefined }),
        async (chosen, cursorChoice, unknown) => {
          const query: Record<string, string> = { ...(chosen as Record<string, string>) }
          let real = false
          if (cursorChoice === "real") {
            // A cursor this server wrote for the same list and filters (when there is a next page at all).
            const first = await raw.get(`${list.path}?${new URLSearchParams({ ...query, limit: "1" })}`)
            if (first.status === 200 && typeof first.json.next_cursor === "string") {
              query.cursor = first.json.next_cursor
              real = true
              tally.realCursors++
              expect(checks.get("cursor")!(query.cursor), `a real cursor fits the document: ${query.cursor}`).toBe(true)
            }
          } else if (cursorChoice !== undefined) query.cursor = cursorChoice
          // An instant's date must exist (30 February does not): the rule its description states beside the pattern.
          const documented = Object.entries(query).every(([name, value]) => checks.get(name)!(value) && (!instantParams.has(name) || exists(value)))
          // Only a real cursor passes; any other, even of the documented shape, is refused (as the document says).
          const expected = documented && (query.cursor === undefined || real) ? 200 : 400
          const sent = new URLSearchParams({ ...query, ...unknown })
          const res = await raw.get(`${list.path}?${sent}`)
          expect(res.status, `GET ${list.path}?${sent}: ${res.text.slice(0, 300)}`).toBe(expected)
          if (expected === 400) expect(res.json.code).toBe("INVALID_REQUEST")
          tally[expected === 200 ? "accepted" : "refused"]++
        }
      ),
      { numRuns: 40 }
    )
  }
  expect(tally.accepted).toBeGreaterThan(40)
  expect(tally.refused).toBeGreaterThan(40)
  expect(tally.realCursors).toBeGreaterThan(5)
}, 240_000)

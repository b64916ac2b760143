/**
 * The served OpenAPI document (`GET /api/v1/openapi.json`) against an independent validator, against the contract it
 * is generated from, and against the running server: every route the server answers is documented with its
 * parameters, headers and error statuses (docs/decisions.md §8), and every example is accepted by the contract's schemas,
 * by the document's own JSON schemas and, for request bodies, by the server itself.
 */
import SwaggerParser from "@apidevtools/swagger-parser"
import { HttpApi } from "@effect/platform"
// ajv arrives with @apidevtools/swagger-parser (its own validator); 2020-12 is the dialect of OpenAPI 3.1.
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect, Either, Option, Schema, SchemaAST } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { setTimeout as delay } from "node:timers/promises"
import { beforeAll, describe, expect, it } from "vitest"
import { FilsApi } from "../../../adapters/http/Api.js"
import { namesObjectInBody } from "../../../adapters/http/OpenApiDocument.js"
import { Deliveries } from "../../../src/application/Deliveries.js"
import { byNameOnly, eventTypes } from "../../../src/domain/Event.js"
import { PaymentResource, RefundedPaymentResource } from "../../../src/domain/Payment.js"
import { SubscriptionResource } from "../../../src/domain/Subscription.js"
import { CreditNote, Invoice } from "../../../src/domain/TaxDocument.js"
import { WebhookResource } from "../../../src/domain/WebhookEndpoint.js"
import type { PaymentId } from "../../../src/domain/Ids.js"
import { Accounts } from "../../../src/application/Accounts.js"
import { Payments } from "../../../src/application/Payments.js"
import { vatProfile } from "../../support/taxProfile.js"
import { cards } from "../../support/checkout.js"
import { useServer } from "../../support/httpSuite.js"
import { memoryVariant, postgresVariant, type RawResponse, rawFor, type TestServer } from "../../support/server.js"

type Json = Record<string, any>

/** docs/decisions.md §8: every error code and its status (the oracle the document is checked against). */
const section8: Readonly<Record<string, number>> = {
  INVALID_REQUEST: 400,
  CURRENCY_NOT_SUPPORTED: 400,
  UNAUTHORIZED: 401,
  CARD_DECLINED: 402,
  PAYMENTS_DISABLED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INVALID_STATE: 409,
  ALREADY_EXISTS: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503
}

// The contract, by reflection -------------------------------------------------------------------------------------

interface ContractEndpoint {
  readonly operationId: string
  readonly method: string
  /** OpenAPI form: `/api/v1/products/{id}` */
  readonly path: string
  readonly pathParams: ReadonlyArray<string>
  readonly queryParams: ReadonlyArray<string>
  readonly headers: ReadonlyArray<string>
  readonly payload: SchemaAST.AST | undefined
  readonly success: SchemaAST.AST
  readonly errors: ReadonlyMap<number, SchemaAST.AST>
}

const propertyNames = (schema: Option.Option<Schema.Schema.All>): Array<string> =>
  Option.match(schema, {
    onNone: () => [],
    onSome: (s) => SchemaAST.getPropertySignatures(s.ast).map((p) => String(p.name))
  })

const contract: Array<ContractEndpoint> = []
HttpApi.reflect(FilsApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, errors, group, payloads, successes }) => {
    contract.push({
      operationId: `${group.identifier}.${endpoint.name}`,
      method: endpoint.method.toLowerCase(),
      path: endpoint.path.replace(/:(\w+)/g, "{$1}"),
      pathParams: propertyNames(endpoint.pathSchema),
      queryParams: propertyNames(endpoint.urlParamsSchema),
      headers: propertyNames(endpoint.headersSchema),
      payload: [...payloads.values()][0]?.ast,
      success: Option.getOrThrow(successes.get(200)!.ast),
      errors: new Map([...errors].flatMap(([status, { ast }]) => Option.isSome(ast) ? [[status, ast.value]] : []))
    })
  }
})

const decodes = (ast: SchemaAST.AST, value: unknown) =>
  Schema.decodeUnknownEither(Schema.make(ast), { onExcessProperty: "error" })(value)

// The document ----------------------------------------------------------------------------------------------------

const httpMethods = ["get", "post", "patch", "delete", "put"] as const

/** The headers of docs/decisions.md §8 (lower case, as `Headers` spells them). */
const protocolHeaders = [
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "retry-after",
  "idempotent-replayed",
  "www-authenticate"
]

const operations = (doc: Json): Array<{ readonly path: string; readonly method: string; readonly op: Json }> =>
  Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    httpMethods.filter((m) => item[m] !== undefined).map((method) => ({ path, method, op: item[method] }))
  )

/** Follows a local `$ref` (`#/components/...`). */
const deref = (doc: Json, node: Json): Json => {
  if (typeof node?.$ref !== "string") return node
  const target = node.$ref.slice(2).split("/").reduce((at: Json, key: string) => at?.[key], doc)
  expect(target, `${node.$ref} resolves`).toBeDefined()
  return deref(doc, target)
}

const codesOf = (doc: Json, schema: Json): Array<string> => {
  const s = deref(doc, schema)
  if (Array.isArray(s.anyOf)) return s.anyOf.flatMap((x: Json) => codesOf(doc, x))
  expect(s.type).toBe("object")
  expect([...s.required].sort()).toEqual(["code", "message"])
  expect(s.properties.message.type).toBe("string")
  return s.properties.code.enum
}

const parametersOf = (doc: Json, op: Json): Array<Json> => (op.parameters ?? []).map((p: Json) => deref(doc, p))

/** JSON Schema validation against the document's own schemas (JSON Schema 2020-12, as OpenAPI 3.1 uses). */
const makeValidator = (doc: Json) => {
  const base = "https://fils.invalid/openapi.json"
  const rebase = (s: unknown) => JSON.parse(JSON.stringify(s).replaceAll("\"#/components/", `"${base}#/components/`))
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true })
  ajv.addSchema({ $id: base, components: rebase(doc.components) })
  return (schema: Json, value: unknown): string | undefined => {
    const validate = ajv.compile(rebase(schema))
    return validate(value) ? undefined : ajv.errorsText(validate.errors)
  }
}

// Tests -----------------------------------------------------------------------------------------------------------

describe("the OpenAPI document", () => {
  const server = useServer(postgresVariant)
  let doc: Json
  let validate: ReturnType<typeof makeValidator>

  beforeAll(async () => {
    const res = await rawFor(server()).get("/api/v1/openapi.json")
    expect(res.status).toBe(200)
    doc = res.json
    validate = makeValidator(doc)
  })

  const operation = (endpoint: ContractEndpoint): Json => {
    const op = doc.paths[endpoint.path]?.[endpoint.method]
    expect(op, `${endpoint.method.toUpperCase()} ${endpoint.path} is documented`).toBeDefined()
    return op
  }

  /** Asserts that a real answer of `op` is documented: its status, its body's schema and its required headers. */
  const conforms = (op: Json, res: RawResponse) => {
    const response = op.responses[String(res.status)]
    expect(response, `${op.operationId} documents status ${res.status} (${res.text.slice(0, 200)})`).toBeDefined()
    // The body in the documented media type (JSON, or a document's XML or page), as the schema says.
    const served = (res.headers.get("content-type") ?? "").split(";")[0]!
    const media = response.content?.[served]
    expect(media, `${op.operationId} ${res.status} has a ${served} body`).toBeDefined()
    const body = served === "application/json" ? res.json : res.text
    expect(validate(media.schema, body), `${op.operationId} ${res.status}: ${res.text.slice(0, 300)}`).toBeUndefined()
    // every protocol header the server sent is documented on this response
    const documented = Object.keys(response.headers ?? {}).map((name) => name.toLowerCase())
    for (const name of protocolHeaders) {
      if (res.headers.has(name)) expect(documented, `${op.operationId} ${res.status} documents ${name}`).toContain(name)
    }
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      const h = deref(doc, header)
      const value = res.headers.get(name)
      if (h.required === true) expect(value, `${op.operationId} ${res.status} carries ${name}`).not.toBeNull()
      if (value !== null) expect(validate(h.schema, h.schema.type === "integer" ? Number(value) : value)).toBeUndefined()
    }
  }

  it("passes an independent OpenAPI validator (swagger-parser) as OpenAPI 3.1", async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/)
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined()
    // and the validator is not blind: a broken reference is refused
    const broken = structuredClone(doc)
    broken.paths["/api/v1/account"].get.responses["200"].content["application/json"].schema = {
      $ref: "#/components/schemas/NoSuchSchema"
    }
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow()
  })

  it("documents every endpoint of the contract, and only those, with an operationId, summary, description and tag", () => {
    expect(contract.length).toBeGreaterThanOrEqual(24)
    const documented = operations(doc).map(({ method, path }) => `${method} ${path}`).sort()
    expect(documented).toEqual(contract.map((e) => `${e.method} ${e.path}`).sort())
    const tags = new Set(doc.tags.map((t: Json) => t.name))
    for (const endpoint of contract) {
      const op = operation(endpoint)
      expect(op.operationId).toBe(endpoint.operationId)
      expect(op.summary?.length, endpoint.operationId).toBeGreaterThan(5)
      expect(op.description?.length, endpoint.operationId).toBeGreaterThan(10)
      expect(op.tags).toHaveLength(1)
      expect(tags.has(op.tags[0])).toBe(true)
    }
    expect(new Set(operations(doc).map(({ op }) => op.operationId)).size).toBe(contract.length)
    for (const tag of doc.tags) expect(tag.description?.length, tag.name).toBeGreaterThan(10)
  })

  it("documents every path and query parameter with a description, and path ids with their pattern and an example", () => {
    for (const endpoint of contract) {
      const params = parametersOf(doc, operation(endpoint))
      const path = params.filter((p) => p.in === "path")
      expect(path.map((p) => p.name).sort()).toEqual([...endpoint.pathParams].sort())
      expect([...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()).toEqual([...endpoint.pathParams].sort())
      for (const p of path) {
        expect(p.required).toBe(true)
        expect(p.description, `${endpoint.operationId} ${p.name}`).toMatch(/id/)
        expect(p.schema.pattern).toMatch(/^\^[a-z]+_\[0-9a-f\]\{32\}\$$/)
        expect(p.example).toMatch(new RegExp(p.schema.pattern))
      }
      const query = params.filter((p) => p.in === "query")
      expect(query.map((p) => p.name).sort()).toEqual([...endpoint.queryParams].sort())
      for (const p of query) {
        expect(p.required, `${endpoint.operationId} ${p.name}`).toBe(false)
        expect(p.description?.length, `${endpoint.operationId} ${p.name}`).toBeGreaterThan(5)
      }
      if (endpoint.queryParams.includes("limit")) {
        // A delivery log's page carries every attempt's answer: at most `Delivery.pageMax` of them.
        const maximum = endpoint.operationId === "webhooks.deliveries" ? 20 : 100
        expect(query.find((p) => p.name === "limit")!.schema, endpoint.operationId).toMatchObject({ type: "integer", minimum: 1, maximum })
      }
    }
  })

  it("the server answers exactly the documented methods on each documented path, and 404 elsewhere", async () => {
    const raw = rawFor(server())
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      const documented = httpMethods.filter((m) => item[m] !== undefined)
      const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const param = parametersOf(doc, item[documented[0]!]).find((p) => p.name === name)
        return param?.example
      })
      for (const method of httpMethods) {
        const res = await raw.send(method.toUpperCase(), concrete, method === "get" || method === "delete" ? {} : { body: {} })
        if (documented.includes(method)) {
          // No key: the route exists, so authentication answers, as documented.
          expect(res.status, `${method} ${path}`).toBe(401)
          expect(res.headers.get("www-authenticate")).toBe("Bearer")
          conforms(item[method], res)
        } else {
          expect(res.status, `${method} ${path}: ${res.text}`).toBe(405)
          expect(res.json.code).toBe("METHOD_NOT_ALLOWED")
          expect(res.headers.get("allow")!.split(/,\s*/).sort()).toEqual(documented.map((m) => m.toUpperCase()).sort())
        }
      }
    }
    const unknown = await raw.get("/api/v1/refunds", { key: server().accountA.test.key })
    expect(unknown.status).toBe(404)
    expect(unknown.json.code).toBe("NOT_FOUND")
  })

  it("documents the bearer scheme, Idempotency-Key on every POST that honours it, and the response headers", () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" })
    expect(doc.components.securitySchemes.bearer.description).toMatch(/sk_test_/)
    for (const endpoint of contract) {
      const op = operation(endpoint)
      expect(op.security, endpoint.operationId).toEqual([{ bearer: [] }])
      const honoursKey = endpoint.headers.includes("idempotency-key")
      if (endpoint.method === "post") expect(honoursKey, `${endpoint.operationId} takes an Idempotency-Key`).toBe(true)
      const key = parametersOf(doc, op).filter((p) => p.in === "header")
      expect(key.map((p) => p.name)).toEqual(honoursKey ? ["Idempotency-Key"] : [])
      if (honoursKey) expect(key[0]).toMatchObject({ required: false, schema: { type: "string", maxLength: 255 } })

      const headersOf = (status: string) => Object.keys(op.responses[status]?.headers ?? {})
      expect(headersOf("200"), endpoint.operationId).toEqual(expect.arrayContaining([
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset"
      ]))
      expect(headersOf("429")).toContain("Retry-After")
      expect(headersOf("401")).toEqual(["WWW-Authenticate"])
      expect(deref(doc, op.responses["429"].headers["Retry-After"]).required).toBe(true)
      expect(headersOf("200").includes("Idempotent-Replayed"), endpoint.operationId).toBe(honoursKey)
      for (const status of ["401", "409", "422", "429", "500", "503"]) {
        expect(headersOf(status), `${endpoint.operationId} ${status}`).not.toContain("Idempotent-Replayed")
      }
    }
  })

  it("its error examples read as the server's answers", async () => {
    const examples = doc.paths["/api/v1/products"].post.responses["400"].content["application/json"].examples
    const api = rawFor(server(), server().accountA.test.key)
    const bad = await api.post("/api/v1/products", { name: "x", price: -5, currency: "AED" })
    expect(bad.json).toEqual(examples.INVALID_REQUEST.value)
    const usd = await api.post("/api/v1/products", { name: "x", price: 5, currency: "USD" })
    expect(usd.json).toEqual(examples.CURRENCY_NOT_SUPPORTED.value)
  })

  it("documents, per operation, the §8 error statuses it can return, each as { code, message } with the codes", () => {
    const listed = new Set<string>()
    for (const endpoint of contract) {
      const op = operation(endpoint)
      const statuses = Object.keys(op.responses).filter((s) => s !== "200").map(Number).sort()
      const expected = new Set([400, 401, 429, 500, 503])
      if (endpoint.pathParams.length > 0 || namesObjectInBody.has(endpoint.operationId)) expected.add(404)
      if (endpoint.payload !== undefined) expected.add(413)
      if (endpoint.headers.includes("idempotency-key")) expected.add(409).add(422)
      // and whatever the contract declares for this endpoint alone (403 PAYMENTS_DISABLED, 409 INVALID_STATE)
      for (const status of endpoint.errors.keys()) if (![404, 405, 413].includes(status)) expected.add(status)
      expect(statuses, endpoint.operationId).toEqual([...expected].sort())
      for (const status of statuses) {
        const response = op.responses[String(status)]
        const codes = codesOf(doc, response.content["application/json"].schema)
        expect(codes.length).toBeGreaterThan(0)
        for (const code of codes) {
          expect(section8[code], `${endpoint.operationId}: ${code} is a §8 code`).toBe(status)
          expect(response.description).toContain(code)
          listed.add(code)
        }
      }
    }
    expect(operation(contract.find((e) => e.operationId === "checkoutSessions.create")!).responses["403"]).toBeDefined()
    expect(codesOf(doc, operation(contract.find((e) => e.operationId === "subscriptions.update")!).responses["409"]
      .content["application/json"].schema)).toContain("INVALID_STATE")
    // 405 has no operation of its own (a documented method is allowed): every code is in the error table
    expect([...listed].sort()).toEqual(Object.keys(section8).filter((c) => c !== "METHOD_NOT_ALLOWED").sort())
    for (const [code, status] of Object.entries(section8)) {
      expect(doc.info.description).toContain(`| ${status} | \`${code}\` |`)
      expect(doc.components.schemas[code], code).toBeDefined()
    }
  })

  it("carries examples for every body and response, accepted by the contract's schemas and the document's", () => {
    let checked = 0
    for (const endpoint of contract) {
      const op = operation(endpoint)
      if (endpoint.payload !== undefined) {
        const media = op.requestBody.content["application/json"]
        const examples = Object.values<Json>(media.examples ?? {})
        expect(examples.length, `${endpoint.operationId} request example`).toBeGreaterThan(0)
        for (const { value } of examples) {
          expect(Either.isRight(decodes(endpoint.payload, value)), `${endpoint.operationId} request example`).toBe(true)
          expect(validate(media.schema, value)).toBeUndefined()
          checked++
        }
      }
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        // One media type per answer: JSON, or for a document's XML and page their own.
        const medias = Object.values<Json>(response.content)
        expect(medias, `${endpoint.operationId} ${status}`).toHaveLength(1)
        const media = medias[0]!
        const examples = Object.values<Json>(media.examples ?? {})
        expect(examples.length, `${endpoint.operationId} ${status} example`).toBeGreaterThan(0)
        const ast = status === "200" ? endpoint.success : endpoint.errors.get(Number(status))
        expect(ast, `${endpoint.operationId} ${status} is in the contract`).toBeDefined()
        for (const { value } of examples) {
          const decoded = decodes(ast!, value)
          expect(Either.isRight(decoded), `${endpoint.operationId} ${status}: ${JSON.stringify(value)}`).toBe(true)
          expect(validate(media.schema, value), `${endpoint.operationId} ${status}`).toBeUndefined()
          checked++
        }
      }
      for (const p of parametersOf(doc, op)) {
        if (p.example !== undefined) expect(validate(p.schema, p.example), `${endpoint.operationId} ${p.name}`).toBeUndefined()
      }
    }
    expect(checked).toBeGreaterThan(100)
    // the validators are not blind
    const product = contract.find((e) => e.operationId === "products.create")!
    const bad = { name: "", price: -1, currency: "USD" }
    expect(Either.isLeft(decodes(product.payload!, bad))).toBe(true)
    expect(validate(operation(product).requestBody.content["application/json"].schema, bad)).toBeDefined()
  })

  it("request examples are accepted by the running server, whose answers match the documented responses", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const byId = (operationId: string) => {
      const endpoint = contract.find((e) => e.operationId === operationId)!
      const op = operation(endpoint)
      const example = Object.values<Json>(op.requestBody?.content["application/json"].examples ?? {})[0]?.value
      return { op, path: endpoint.path.replace(/^\/api\/v1/, ""), example }
    }

    const product = byId("products.create")
    const created = await raw.post(product.path, product.example, { headers: { "idempotency-key": "openapi-product" } })
    expect(created.status, created.text).toBe(200)
    conforms(product.op, created)
    expect(created.headers.get("ratelimit-limit")).toMatch(/^\d+$/)
    const replayed = await raw.post(product.path, product.example, { headers: { "idempotency-key": "openapi-product" } })
    expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    conforms(product.op, replayed)
    const reused = await raw.post(product.path, { ...product.example, name: "Other" }, {
      headers: { "idempotency-key": "openapi-product" }
    })
    expect(reused.status).toBe(422)
    conforms(product.op, reused)
    const productId = created.json.product_id as string

    const productUpdate = byId("products.update")
    const updated = await raw.patch(productUpdate.path.replace("{id}", productId), productUpdate.example)
    expect(updated.status, updated.text).toBe(200)
    conforms(productUpdate.op, updated)

    const customer = byId("customers.create")
    const createdCustomer = await raw.post(customer.path, customer.example)
    expect(createdCustomer.status, createdCustomer.text).toBe(200)
    conforms(customer.op, createdCustomer)
    const customerUpdate = byId("customers.update")
    const updatedCustomer = await raw.patch(
      customerUpdate.path.replace("{id}", createdCustomer.json.customer_id),
      customerUpdate.example
    )
    expect(updatedCustomer.status, updatedCustomer.text).toBe(200)
    conforms(customerUpdate.op, updatedCustomer)

    // The example discount is restricted to an example product: point it at the one just created.
    const discount = byId("discounts.create")
    const createdDiscount = await raw.post(discount.path, { ...discount.example, restricted_to: [productId] })
    expect(createdDiscount.status, createdDiscount.text).toBe(200)
    conforms(discount.op, createdDiscount)
    const takenCode = await raw.post(discount.path, { ...discount.example, restricted_to: [] })
    expect(takenCode.status).toBe(409)
    conforms(discount.op, takenCode)
    const discountUpdate = byId("discounts.update")
    const updatedDiscount = await raw.patch(discountUpdate.path.replace("{id}", createdDiscount.json.discount_id), discountUpdate.example)
    expect(updatedDiscount.status, updatedDiscount.text).toBe(200)
    conforms(discountUpdate.op, updatedDiscount)

    // The example's cart names an example product: point it at the one just created.
    const session = byId("checkoutSessions.create")
    const cart = session.example.product_cart.map((line: Json) => ({ ...line, product_id: productId }))
    const createdSession = await raw.post(session.path, { ...session.example, product_cart: cart })
    expect(createdSession.status, createdSession.text).toBe(200)
    conforms(session.op, createdSession)
    const subscriptionId = await payThroughPage(s, createdSession.json.session_id)
    // Account A charges VAT from here on: its next payment has a tax invoice, and a refund of it a credit note.
    await s.run(Effect.flatMap(Accounts, (a) => a.update(s.accountA.accountId, { tax_profile: vatProfile })))
    const taxed = await raw.post(session.path, { ...session.example, product_cart: cart })
    await payThroughPage(s, taxed.json.session_id)
    const taxedPayment = (await raw.get(`/checkout_sessions/${taxed.json.session_id}`)).json.payment_id as PaymentId
    await s.run(Effect.flatMap(Payments, (p) =>
      p.refund({ accountId: s.accountA.accountId, livemode: false }, taxedPayment, 100)) as unknown as Effect.Effect<unknown>)
    // A refusal by the handler is stored too: its replay carries Idempotent-Replayed, as documented for 400.
    const unknownProduct = { product_cart: [{ product_id: `pdt_${"f".repeat(32)}` }] }
    const refusals = []
    for (const _ of [1, 2]) {
      const res = await raw.post(session.path, unknownProduct, { headers: { "idempotency-key": "openapi-bad-cart" } })
      expect(res.status, res.text).toBe(400)
      conforms(session.op, res)
      refusals.push(res.headers.get("idempotent-replayed"))
    }
    expect(refusals).toEqual([null, "true"])

    const subscriptionUpdate = byId("subscriptions.update")
    const cancelled = await raw.patch(subscriptionUpdate.path.replace("{id}", subscriptionId), subscriptionUpdate.example)
    expect(cancelled.status, cancelled.text).toBe(200)
    conforms(subscriptionUpdate.op, cancelled)

    // The example names an example customer: point it at the one just created.
    const portal = byId("customerPortalSessions.create")
    const createdPortal = await raw.post(portal.path, { ...portal.example, customer_id: createdCustomer.json.customer_id })
    expect(createdPortal.status, createdPortal.text).toBe(200)
    conforms(portal.op, createdPortal)
    const missingCustomer = await raw.post(portal.path, portal.example)
    expect(missingCustomer.status).toBe(404)
    conforms(portal.op, missingCustomer)

    const clockCreate = byId("testClocks.create")
    const createdClock = await raw.post(clockCreate.path, clockCreate.example)
    expect(createdClock.status, createdClock.text).toBe(200)
    conforms(clockCreate.op, createdClock)
    const clockAdvance = byId("testClocks.advance")
    const advanced = await raw.post(clockAdvance.path.replace("{id}", createdClock.json.test_clock_id), clockAdvance.example)
    expect(advanced.status, advanced.text).toBe(200)
    conforms(clockAdvance.op, advanced)
    const backwards = await raw.post(clockAdvance.path.replace("{id}", createdClock.json.test_clock_id), clockCreate.example)
    expect(backwards.status, backwards.text).toBe(400)
    conforms(clockAdvance.op, backwards)

    const webhook = byId("webhooks.create")
    const createdWebhook = await raw.post(webhook.path, webhook.example)
    expect(createdWebhook.status, createdWebhook.text).toBe(200)
    conforms(webhook.op, createdWebhook)
    for (const operationId of ["webhooks.test", "webhooks.recover"]) {
      const op = byId(operationId)
      const res = await raw.post(op.path.replace("{id}", createdWebhook.json.webhook_id), op.example)
      expect(res.status, `${operationId}: ${res.text}`).toBe(200)
      conforms(op.op, res)
    }
    const webhookUpdate = byId("webhooks.update")
    const updatedWebhook = await raw.patch(
      webhookUpdate.path.replace("{id}", createdWebhook.json.webhook_id),
      webhookUpdate.example
    )
    expect(updatedWebhook.status, updatedWebhook.text).toBe(200)
    conforms(webhookUpdate.op, updatedWebhook)

    // Every read, with the ids made above (or a list), also answers as documented.
    const ids: Record<string, string> = {
      "products.get": productId,
      "customers.get": createdCustomer.json.customer_id,
      "checkoutSessions.get": createdSession.json.session_id,
      "subscriptions.get": subscriptionId,
      "webhooks.get": createdWebhook.json.webhook_id,
      "webhooks.deliveries": createdWebhook.json.webhook_id,
      "customerPortalSessions.get": createdPortal.json.customer_portal_session_id,
      "webhooks.secret": createdWebhook.json.webhook_id,
      "discounts.get": createdDiscount.json.discount_id,
      "testClocks.get": createdClock.json.test_clock_id
    }
    const payments = await raw.get("/payments")
    expect(payments.json.items.length).toBeGreaterThan(0)
    ids["payments.get"] = payments.json.items[0].payment_id
    const invoices = await raw.get("/invoices")
    expect(invoices.json.items.length).toBeGreaterThan(0)
    for (const form of ["get", "xml", "html"]) ids[`invoices.${form}`] = invoices.json.items[0].invoice_id
    const notes = await raw.get("/credit_notes")
    expect(notes.json.items.length).toBeGreaterThan(0)
    for (const form of ["get", "xml", "html"]) ids[`creditNotes.${form}`] = notes.json.items[0].credit_note_id
    const events = await raw.get("/events")
    expect(events.json.items.length).toBeGreaterThan(0)
    ids["events.get"] = events.json.items[0].event_id
    for (const endpoint of contract.filter((e) => e.method === "get")) {
      const path = endpoint.path.replace(/^\/api\/v1/, "")
      const res = await raw.get(path.replace("{id}", ids[endpoint.operationId] ?? "missing"))
      expect(res.status, `${endpoint.operationId}: ${res.text.slice(0, 200)}`).toBe(200)
      conforms(operation(endpoint), res)
      if (endpoint.pathParams.length > 0) {
        const example = parametersOf(doc, operation(endpoint)).find((p) => p.in === "path")?.example
        const missing = await raw.get(path.replace("{id}", example))
        expect(missing.status).toBe(404)
        conforms(operation(endpoint), missing)
      }
    }
    const deleted = await raw.send("DELETE", `/webhooks/${createdWebhook.json.webhook_id}`)
    conforms(operation(contract.find((e) => e.operationId === "webhooks.delete")!), deleted)
    expect(deleted.status).toBe(200)
    const deletedClock = await raw.send("DELETE", `/test_clocks/${createdClock.json.test_clock_id}`)
    conforms(operation(contract.find((e) => e.operationId === "testClocks.delete")!), deletedClock)
    expect(deletedClock.status).toBe(200)
    const deletedDiscount = await raw.send("DELETE", `/discounts/${createdDiscount.json.discount_id}`)
    conforms(operation(contract.find((e) => e.operationId === "discounts.delete")!), deletedDiscount)
    expect(deletedDiscount.status).toBe(200)

    // Errors answer as documented too: a bad body, a bad query, an oversized body.
    const invalid = await raw.post(product.path, { name: "x", price: -1, currency: "AED" })
    expect(invalid.status).toBe(400)
    conforms(product.op, invalid)
    const badQuery = await raw.get("/products?limit=1000")
    expect(badQuery.status).toBe(400)
    conforms(operation(contract.find((e) => e.operationId === "products.list")!), badQuery)
    const huge = await raw.post(product.path, { name: "x".repeat(1024 * 1024 + 10), price: 1, currency: "AED" })
    expect(huge.status).toBe(413)
    conforms(product.op, huge)
  })

  it("documents every webhook delivery (OpenAPI webhooks): headers, body schema and an example per event type", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...eventTypes].sort())
    const dataSchemas: Record<string, SchemaAST.AST> = {
      payment: PaymentResource.ast,
      refund: RefundedPaymentResource.ast,
      subscription: SubscriptionResource.ast,
      invoice: Invoice.ast,
      credit_note: CreditNote.ast,
      webhook: WebhookResource.ast
    }
    for (const type of eventTypes) {
      const op = doc.webhooks[type].post
      expect(op.summary).toContain(type)
      expect(op.description).toMatch(/2xx/)
      // Invoices and credit notes go only to endpoints that ask for them.
      expect(op.description.includes("only an endpoint whose `event_types` names it"), type).toBe(byNameOnly.includes(type))
      expect(parametersOf(doc, op).map((p) => [p.name, p.in, p.required])).toEqual([
        ["webhook-id", "header", true],
        ["webhook-timestamp", "header", true],
        ["webhook-signature", "header", true]
      ])
      const media = op.requestBody.content["application/json"]
      const examples = Object.values<Json>(media.examples)
      expect(examples).toHaveLength(1)
      const body = examples[0]!.value
      expect(body.type).toBe(type)
      expect(validate(media.schema, body), type).toBeUndefined()
      expect(validate(media.schema, { ...body, type: type === "payment.failed" ? "payment.succeeded" : "payment.failed" }))
        .toBeDefined()
      expect(Either.isRight(decodes(dataSchemas[type.split(".")[0]!]!, body.data)), `${type} example data`).toBe(true)
      expect(Object.keys(op.responses)).toContain("2XX")
    }
  })

  it("real webhook deliveries match the documented headers and bodies", async () => {
    const s = server()
    const received: Array<{ readonly headers: IncomingHttpHeaders; readonly body: string }> = []
    const receiver = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    try {
      const raw = rawFor(s, s.accountB.test.key)
      const endpoint = await raw.post("/webhooks", {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
      })
      expect(endpoint.status, endpoint.text).toBe(200)
      const plan = await raw.post("/products", {
        name: "Saffron",
        price: 4500,
        currency: "AED",
        billing: "recurring",
        billing_interval: "week"
      })
      const session = await raw.post("/checkout_sessions", { product_cart: [{ product_id: plan.json.product_id }] })
      await payThroughPage(s, session.json.session_id, s.accountB.test.key)
      // The server under test runs no background workers: dispatch the due deliveries here, until both arrive.
      const dispatch = Effect.flatMap(Deliveries, (d) => d.dispatchOnce()) as unknown as Effect.Effect<number>
      const deadline = Date.now() + 30_000
      while (received.length < 2 && Date.now() < deadline) {
        await s.run(dispatch)
        if (received.length < 2) await delay(100)
      }
      expect(received.map((r) => JSON.parse(r.body).type).sort()).toEqual(["payment.succeeded", "subscription.active"])
      for (const delivery of received) {
        const body = JSON.parse(delivery.body)
        const op = doc.webhooks[body.type].post
        expect(validate(op.requestBody.content["application/json"].schema, body), delivery.body).toBeUndefined()
        for (const p of parametersOf(doc, op)) {
          const value = delivery.headers[p.name]
          expect(value, p.name).toBeDefined()
          expect(validate(p.schema, value), `${p.name}: ${value}`).toBeUndefined()
        }
        expect(delivery.headers["webhook-id"]).toBe(body.id)
      }
    } finally {
      await new Promise((resolve) => receiver.close(resolve))
    }
  })

  describe("with a small rate limit", () => {
    const limited = useServer(memoryVariant, { FILS_RATE_LIMIT_PER_MIN: "2" })

    it("429 answers carry Retry-After and the RateLimit headers, as documented", async () => {
      const raw = rawFor(limited(), limited().accountA.test.key)
      const op = operation(contract.find((e) => e.operationId === "account.get")!)
      const first = await raw.get("/account")
      expect(first.status).toBe(200)
      conforms(op, first)
      expect(first.headers.get("ratelimit-limit")).toBe("2")
      await raw.get("/account")
      const third = await raw.get("/account")
      expect(third.status).toBe(429)
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(third.headers.get("ratelimit-remaining")).toBe("0")
      conforms(op, third)
    })
  })
})

/** Pays a session through its hosted page (the form a browser would post); returns the subscription it starts. */
const payThroughPage = async (server: TestServer, sessionId: string, key = server.accountA.test.key): Promise<string> => {
  const url = `${server.origin}/checkout/${sessionId}`
  const html = await (await fetch(url)).text()
  const token = /name="form_token" value="([^"]*)"/.exec(html)?.[1]
  expect(token, html.slice(0, 300)).toBeDefined()
  const posted = await fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      name: "Layla Haddad",
      email: "layla@example.ae",
      phone_number: "+971501234567",
      card_number: cards.visa,
      exp_month: "12",
      exp_year: "2090",
      cvc: "123",
      form_token: token!
    }).toString()
  })
  // 303 to the return_url, or the success page when the session has none
  expect([200, 303], await posted.text()).toContain(posted.status)
  const session = await rawFor(server, key).get(`/checkout_sessions/${sessionId}`)
  expect(session.json.status).toBe("complete")
  return session.json.subscription_id as string
}

/**
 * The compiled resource encoders (`Encoders.ts`) give, for every response schema of the API, the very JSON text of
 * the schema's own encoder, over generated values; and from the stored objects (which carry more than their
 * resource), the resource's fields only, as the schema gives them.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Arbitrary, FastCheck as fc, Schema, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { FilsApi, PaymentList } from "../../../adapters/http/Api.js"
import { encoderOf } from "../../../adapters/http/Encoders.js"
import { Payment, PaymentResource } from "../../../src/domain/Payment.js"

/** Every success schema of every endpoint, by endpoint. */
const responseSchemas: Array<{ readonly name: string; readonly schema: Schema.Schema<any, any> }> = []
HttpApi.reflect(FilsApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, group }) => {
    const members = new Set<Schema.Schema.Any>()
    HttpApiSchema.deunionize(members, endpoint.successSchema)
    for (const member of members) {
      if (!HttpApiSchema.isVoid(member.ast)) responseSchemas.push({ name: `${group.identifier}.${endpoint.name}`, schema: member as never })
    }
  }
})

const sameText = <A, I>(schema: Schema.Schema<A, I>, runs: number) => {
  const fast = encoderOf(schema)
  const slow = Schema.encodeSync(schema)
  fc.assert(fc.property(Arbitrary.make(schema), (value) => {
    expect(JSON.stringify(fast(value))).toBe(JSON.stringify(slow(value)))
  }), { numRuns: runs })
}

describe("compiled resource encoders", () => {
  it("cover every response of the API", () => {
    expect(responseSchemas.length).toBeGreaterThanOrEqual(20)
  })

  for (const { name, schema } of responseSchemas) {
    it(`${name}: the schema's JSON, byte for byte`, () => sameText(schema, 60))
  }

  it("a stored payment gives its resource's fields only, in the resource's order", () => {
    const fast = encoderOf(PaymentResource)
    const slow = Schema.encodeSync(PaymentResource)
    fc.assert(fc.property(Arbitrary.make(Payment), (stored) => {
      const text = JSON.stringify(fast(stored))
      expect(text).toBe(JSON.stringify(slow(stored)))
      expect(text).not.toContain("account_id")
    }), { numRuns: 200 })
  })

  it("a list page of payments, with optional and null fields, nested customers and metadata", () => sameText(PaymentList, 100))

  it("is compiled once per schema", () => {
    expect(encoderOf(PaymentResource)).toBe(encoderOf(PaymentResource))
    expect(SchemaAST.isTypeLiteral(PaymentResource.ast)).toBe(true)
  })
})

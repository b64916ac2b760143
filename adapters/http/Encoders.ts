/**
 * Resource encoders compiled once per schema: a plain function per schema that gives what `Schema.encodeSync` gives
 * for a valid value, without the parser's general walk (which, for a page of twenty payments, was most of a list's
 * CPU). What the compiler does not know how to encode directly (a transformation other than `DateTimeUtc`, a union
 * other than `X | null` or of literals, a suspended schema) is encoded by the schema's own encoder, compiled once.
 *
 * The values are the engine's own objects, valid by construction, so nothing is checked here: refinements and
 * literals are encoded as they are. `test/adapters/http/encoders.test.ts` proves, for every response schema of the
 * API over generated values, that the JSON text is the same byte for byte.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { DateTime, Schema, SchemaAST } from "effect"

type Encode = (value: any) => unknown

const identity: Encode = (value) => value

/** Whether values of `ast` encode to themselves (a primitive, a literal, or a refinement of one). */
const isPlain = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "Literal":
    case "TemplateLiteral":
    case "Enums":
      return true
    case "Refinement":
      return isPlain(ast.from)
    case "Union":
      return ast.types.every(isPlain)
    default:
      return false
  }
}

const dateTimeUtc = Schema.DateTimeUtc.ast

const compile = (ast: SchemaAST.AST): Encode => {
  if (isPlain(ast)) return identity
  if (ast === dateTimeUtc) return (value: DateTime.Utc) => DateTime.formatIso(value)
  switch (ast._tag) {
    case "Refinement":
      return compile(ast.from)
    case "Union": {
      // `X | null`: null as it is, anything else as X.
      const others = ast.types.filter((t) => !(t._tag === "Literal" && t.literal === null))
      if (others.length === 1 && others.length + 1 === ast.types.length) {
        const encode = compile(others[0]!)
        return (value) => (value === null ? null : encode(value))
      }
      break
    }
    case "TupleType": {
      // An array of one element schema.
      if (ast.elements.length === 0 && ast.rest.length === 1) {
        const item = compile(ast.rest[0]!.type)
        return item === identity ? (value: ReadonlyArray<unknown>) => [...value] : (value: ReadonlyArray<unknown>) => value.map(item)
      }
      break
    }
    case "TypeLiteral": {
      // A record of plain values (metadata): its entries, copied by assignment as the schema's encoder does (a
      // `__proto__` key, which assignment would drop, is refused with the request: `BodyText.unstorable`).
      if (ast.propertySignatures.length === 0 && ast.indexSignatures.every((s) => isPlain(s.type) && isPlain(s.parameter))) {
        return (value: Record<string, unknown>) => {
          const out: Record<string, unknown> = {}
          for (const key of Object.keys(value)) out[key] = value[key]
          return out
        }
      }
      if (ast.indexSignatures.length === 0 && ast.propertySignatures.every((p) => typeof p.name === "string")) {
        const fields = ast.propertySignatures.map((p) => ({ name: p.name as string, optional: p.isOptional, encode: compile(p.type) }))
        return (value: Record<string, unknown>) => {
          const out: Record<string, unknown> = {}
          for (const field of fields) {
            const v = value[field.name]
            if (v === undefined && field.optional && !(field.name in value)) continue
            out[field.name] = v === undefined ? v : field.encode(v)
          }
          return out
        }
      }
      break
    }
  }
  return Schema.encodeSync(Schema.make(ast))
}

const compiled = new WeakMap<SchemaAST.AST, Encode>()

/** The encoder of `schema`, compiled on first use and kept. */
export const encoderOf = <A, I>(schema: Schema.Schema<A, I>): (value: A) => I => {
  let encode = compiled.get(schema.ast)
  if (encode === undefined) {
    encode = compile(schema.ast)
    compiled.set(schema.ast, encode)
  }
  return encode as (value: A) => I
}

/** A success as HttpApi answers it: the encoded value as JSON, `200`, `application/json`. */
export const jsonSuccess = (encoded: unknown): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(encoded, { status: 200, contentType: "application/json" })

/**
 * A Schema compiled into plain functions, for the store's hot reads: Effect's parser allocates an Either and a
 * ParseResult frame per node, which made a listed payment cost ~60 times its hand-written mapping. The compiled
 * functions walk the same AST and run the same checks (each refinement's filter, each declaration's and
 * transformation's own decode and encode), without the error bookkeeping: a value that fails gives `Fails`, and
 * the caller asks the Schema's own parser why. A node they do not know (a suspended Schema, a union keyed by literal
 * properties, parse options on a node) is left to Effect's parser, so the result is always the Schema's.
 */
import { Either, Option, ParseResult, Schema, SchemaAST as AST } from "effect"

/** What a compiled function returns for a value its Schema refuses. */
export const Fails: unique symbol = Symbol.for("fils/sql/compiled/Fails")
export type Fails = typeof Fails

type Compiled = (input: unknown) => unknown

const options = AST.defaultParseOption

/** Effect's own parser for `ast`: for the nodes the compiler leaves alone. */
const byEffect = (ast: AST.AST, isDecoding: boolean): Compiled => {
  const parse = isDecoding
    ? ParseResult.decodeUnknownEither(Schema.make(ast))
    : ParseResult.encodeUnknownEither(Schema.make(ast))
  return (input) => {
    const result = parse(input)
    return Either.isRight(result) ? result.right : Fails
  }
}

/** An effect that is already done (a sync parser's answer): its value, or `Fails`. */
const settled = (result: unknown): unknown =>
  Either.isEither(result) ? (Either.isRight(result) ? result.right : Fails) : Fails

/** Whether a union member is picked by literal properties (Effect's parser then reorders the candidates). */
const keyedByLiterals = (ast: AST.AST, isDecoding: boolean): boolean => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast.propertySignatures.some((ps) =>
        !ps.isOptional && AST.isLiteral(isDecoding ? AST.encodedAST(ps.type) : AST.typeAST(ps.type))
      )
    case "TupleType":
      return ast.elements.some((e) =>
        !e.isOptional && AST.isLiteral(isDecoding ? AST.encodedAST(e.type) : AST.typeAST(e.type))
      )
    case "Refinement":
      return keyedByLiterals(ast.from, isDecoding)
    case "Transformation":
      return keyedByLiterals(isDecoding ? ast.from : ast.to, isDecoding)
    case "Declaration": {
      const surrogate = AST.getSurrogateAnnotation(ast)
      return Option.isSome(surrogate) && keyedByLiterals(surrogate.value, isDecoding)
    }
    case "Suspend":
      return true // a lazy Schema: let Effect decide
    default:
      return false
  }
}

const isType = (test: (input: unknown) => boolean): Compiled => (input) => (test(input) ? input : Fails)

/**
 * The fields `names` of an object, each through its parser, into a new object: generated as one function with the
 * names written out, so that each read and the object built have a shape V8 knows (a loop over the names made every
 * access megamorphic, a third of a row's cost). The names come from the Schema, quoted by JSON.stringify.
 */
const struct = (names: ReadonlyArray<string>, parsers: ReadonlyArray<Compiled>): Compiled => {
  const reads = names.map((name, i) =>
    `const v${i} = p[${i}](input[${JSON.stringify(name)}]); if (v${i} === Fails) return Fails;`
  )
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v${i}`)
  return new Function(
    "p",
    "Fails",
    `return function(input) {
      if (typeof input !== "object" || input === null || Array.isArray(input)) return Fails;
      ${reads.join("\n")}
      return { ${fields.join(", ")} };
    }`
  )(parsers, Fails)
}

const go = (ast: AST.AST, isDecoding: boolean): Compiled => {
  if (
    Option.isSome(AST.getParseOptionsAnnotation(ast)) ||
    (isDecoding && Option.isSome(AST.getDecodingFallbackAnnotation(ast)))
  ) return byEffect(ast, isDecoding)
  switch (ast._tag) {
    case "StringKeyword":
      return isType((u) => typeof u === "string")
    case "NumberKeyword":
      return isType((u) => typeof u === "number")
    case "BooleanKeyword":
      return isType((u) => typeof u === "boolean")
    case "UnknownKeyword":
    case "AnyKeyword":
      return (input) => input
    case "Literal": {
      const literal = ast.literal
      return isType((u) => u === literal)
    }
    case "Declaration": {
      const parse = isDecoding
        ? ast.decodeUnknown(...ast.typeParameters)
        : ast.encodeUnknown(...ast.typeParameters)
      return (input) => settled(parse(input, options, ast))
    }
    case "Refinement": {
      if (isDecoding) {
        const from = go(ast.from, true)
        return (input) => {
          const a = from(input)
          return a !== Fails && Option.isNone(ast.filter(a, options, ast)) ? a : Fails
        }
      }
      // Encoding checks the value as the type it is, then encodes it as the unrefined Schema beneath.
      const check = go(AST.typeAST(ast), true)
      let from = ast.from
      while (AST.isRefinement(from)) from = from.from
      const encode = go(from, false)
      return (input) => {
        const a = check(input)
        return a === Fails ? Fails : encode(a)
      }
    }
    case "Transformation": {
      const transformation = ast.transformation
      if (AST.isTypeLiteralTransformation(transformation)) return byEffect(ast, isDecoding)
      const from = go(isDecoding ? ast.from : ast.to, isDecoding)
      const to = go(isDecoding ? ast.to : ast.from, isDecoding)
      const step = AST.isComposeTransformation(transformation)
        ? undefined
        : isDecoding
        ? transformation.decode
        : transformation.encode
      return (input) => {
        const a = from(input)
        if (a === Fails) return Fails
        const b = step === undefined ? a : settled(step(a, options, ast, input))
        return b === Fails ? Fails : to(b)
      }
    }
    case "Union": {
      if (ast.types.some((member) => keyedByLiterals(member, isDecoding))) return byEffect(ast, isDecoding)
      const members = ast.types.map((member) => go(member, isDecoding))
      return (input) => {
        for (const member of members) {
          const a = member(input)
          if (a !== Fails) return a
        }
        return Fails
      }
    }
    case "TypeLiteral": {
      const indexSignature = ast.indexSignatures[0]
      if (
        ast.indexSignatures.length > 1 ||
        (indexSignature !== undefined && !AST.isStringKeyword(indexSignature.parameter)) ||
        (ast.propertySignatures.length === 0 && indexSignature === undefined)
      ) return byEffect(ast, isDecoding)
      const names: Array<string> = []
      for (const ps of ast.propertySignatures) {
        if (typeof ps.name !== "string" || ps.name === "__proto__" || ps.isOptional) return byEffect(ast, isDecoding)
        names.push(ps.name)
      }
      const fields = struct(names, ast.propertySignatures.map((ps) => go(ps.type, isDecoding)))
      if (indexSignature === undefined) return fields
      const value = go(indexSignature.type, isDecoding)
      const expected = new Set(names)
      return (input) => {
        const output = fields(input)
        if (typeof input !== "object" || input === null || typeof output !== "object" || output === null) return Fails
        for (const key of Object.keys(input)) {
          const a = value(Reflect.get(input, key))
          if (a === Fails) return Fails
          if (!expected.has(key)) Reflect.set(output, key, a)
        }
        return output
      }
    }
    case "TupleType": {
      const rest = ast.rest[0]
      if (ast.elements.length > 0 || ast.rest.length !== 1 || rest === undefined) return byEffect(ast, isDecoding)
      const element = go(rest.type, isDecoding)
      return (input) => {
        if (!Array.isArray(input)) return Fails
        const output = new Array<unknown>(input.length)
        for (let i = 0; i < input.length; i++) {
          const a = element(input[i])
          if (a === Fails) return Fails
          output[i] = a
        }
        return output
      }
    }
    default:
      return byEffect(ast, isDecoding)
  }
}

/**
 * `schema`'s decoding and encoding, compiled once. The one assertion of the store's reads: the compiled functions
 * give what the Schema's parser gives (test/adapters/SqlRows.test.ts holds them to it on generated rows).
 */
export const compile = <A, I>(schema: Schema.Schema<A, I>) => ({
  decode: go(schema.ast, true) as (input: unknown) => A | Fails,
  encode: go(schema.ast, false) as (value: A) => I | Fails
})

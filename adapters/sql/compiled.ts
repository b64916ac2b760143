/**
 * A Schema compiled into plain functions, for the store's hot reads: Effect's parser allocates an Either and a
 * ParseResult frame per node, which made a listed payment cost ~60 times its hand-written mapping. The compiled
 * functions walk the same AST and run the same checks (each refinement's filter, each declaration's and
 * transformation's own decode and encode), without the error bookkeeping: a value that fails gives `Fails`, and
 * the caller asks the Schema's own parser why. A node they do not know (a suspended Schema, a union keyed by literal
 * properties, parse options on a node) is left to Effect's parser, so the result is always the Schema's. A guard
 * (`guardOf`) checks a value already built against a type side in place, without the copy a decode makes.
 */
import { Either, Option, ParseResult, Redacted, Schema, SchemaAST as AST } from "effect"

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

/** A TypeLiteral's one index signature (of string keys), `undefined` without one, `false` for any other (the parser's). */
const stringIndex = (ast: AST.TypeLiteral): AST.IndexSignature | undefined | false => {
  const [first, ...more] = ast.indexSignatures
  return more.length > 0 || (first !== undefined && !AST.isStringKeyword(first.parameter)) ? false : first
}

const isType = (test: (input: unknown) => boolean): Compiled => (input) => (test(input) ? input : Fails)

/** Whether `ast` is `Schema.RedactedFromSelf(value)` (a secret's type side). */
const isRedacted = (ast: AST.Declaration): boolean => {
  const constructor = AST.getTypeConstructorAnnotation(ast)
  return Option.isSome(constructor) && constructor.value._tag === "effect/Redacted" && ast.typeParameters.length === 1
}

/**
 * A JavaScript test that `x` is a value of `ast`, for the primitive ASTs a decode gives back unchanged (a keyword, a
 * literal, a union of them); `undefined` for any other. Written into generated code, it costs a comparison where a
 * parser's call cost twenty times as much.
 */
const inlineCheck = (ast: AST.AST, x: string): string | undefined => {
  if (Option.isSome(AST.getParseOptionsAnnotation(ast))) return undefined
  switch (ast._tag) {
    case "StringKeyword":
      return `typeof ${x} === "string"`
    case "NumberKeyword":
      return `typeof ${x} === "number"`
    case "BooleanKeyword":
      return `typeof ${x} === "boolean"`
    case "Literal":
      return typeof ast.literal === "bigint" ? undefined : `${x} === ${JSON.stringify(ast.literal)}`
    case "Union": {
      const members = ast.types.map((member) => inlineCheck(member, x))
      return members.every((m): m is string => m !== undefined) ? `(${members.join(" || ")})` : undefined
    }
    default:
      return undefined
  }
}

/**
 * The fields `names` of an object, each through its parser (or its inline check, for a primitive), into a new
 * object: generated as one function with the names written out, so that each read and the object built have a shape
 * V8 knows (a loop over the names made every access megamorphic, a third of a row's cost). The names come from the
 * Schema, quoted by JSON.stringify.
 */
const struct = (names: ReadonlyArray<string>, asts: ReadonlyArray<AST.AST>, isDecoding: boolean): Compiled => {
  const parsers: Array<Compiled> = []
  const reads = names.map((name, i) => {
    const read = `const v${i} = input[${JSON.stringify(name)}];`
    const check = inlineCheck(asts[i]!, `v${i}`)
    if (check !== undefined) return `${read} if (!(${check})) return Fails;`
    parsers.push(go(asts[i]!, isDecoding))
    return `const v${i} = p[${parsers.length - 1}](input[${JSON.stringify(name)}]); if (v${i} === Fails) return Fails;`
  })
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
      if (isRedacted(ast)) {
        // As the parser does: the value through its Schema, wrapped anew (a secret column costs no parser frames).
        const value = go(ast.typeParameters[0]!, isDecoding)
        return (input) => {
          if (!Redacted.isRedacted(input)) return Fails
          const a = value(Redacted.value(input))
          return a === Fails ? Fails : Redacted.make(a)
        }
      }
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
      const indexSignature = stringIndex(ast)
      if (indexSignature === false || (ast.propertySignatures.length === 0 && indexSignature === undefined)) {
        return byEffect(ast, isDecoding)
      }
      const names: Array<string> = []
      for (const ps of ast.propertySignatures) {
        if (typeof ps.name !== "string" || ps.name === "__proto__" || ps.isOptional) return byEffect(ast, isDecoding)
        names.push(ps.name)
      }
      const fields = struct(names, ast.propertySignatures.map((ps) => ps.type), isDecoding)
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

type Guard = (input: unknown) => boolean

/**
 * A guard of a type-side AST: true only when the Schema's parser would decode `input` into `input` itself (an object
 * with exactly its keys, each value its own; a `Redacted` of the same value), so that a caller can keep the value it
 * built instead of a copy. Any doubt is false, and the caller asks the parser: a guard never says more than the parser
 * would.
 */
const guard = (ast: AST.AST): Guard => {
  if (Option.isSome(AST.getParseOptionsAnnotation(ast))) return byParser(ast)
  switch (ast._tag) {
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "UnknownKeyword":
    case "AnyKeyword":
      return () => true
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "Declaration": {
      // The parser wraps a `Redacted`'s value anew: one whose value passes is as good as that copy.
      if (isRedacted(ast)) {
        const value = guard(ast.typeParameters[0]!)
        return (u) => Redacted.isRedacted(u) && value(Redacted.value(u))
      }
      const parse = ast.decodeUnknown(...ast.typeParameters)
      return (u) => {
        const result = parse(u, options, ast)
        return Either.isEither(result) && Either.isRight(result) && result.right === u
      }
    }
    case "Refinement": {
      const from = guard(ast.from)
      return (u) => from(u) && Option.isNone(ast.filter(u, options, ast))
    }
    case "Union": {
      // `NullOr(x)`: only null is null, whatever order the parser tries the members in.
      const notNull = ast.types.filter((member) => !(AST.isLiteral(member) && member.literal === null))
      if (ast.types.length === 2 && notNull.length === 1) {
        const member = guard(notNull[0]!)
        return (u) => u === null || member(u)
      }
      if (ast.types.some((member) => keyedByLiterals(member, true))) return byParser(ast)
      // The parser takes the first member that decodes: a member that decodes the input into another value first
      // decides the answer (false).
      const members = ast.types.map((member) => ({ is: guard(member), decodes: go(member, true) }))
      return (u) => {
        for (const member of members) {
          if (member.is(u)) return true
          if (member.decodes(u) !== Fails) return false
        }
        return false
      }
    }
    case "TypeLiteral": {
      const indexSignature = stringIndex(ast)
      if (
        indexSignature === false ||
        ast.propertySignatures.some((ps) => typeof ps.name !== "string" || ps.name === "__proto__") ||
        // An optional key with no index signature only: then "a key more" can still be counted.
        (indexSignature !== undefined && ast.propertySignatures.some((ps) => ps.isOptional))
      ) return byParser(ast)
      return objectGuard(
        ast.propertySignatures.map((ps) => ps.name as string),
        ast.propertySignatures.map((ps) => ps.type),
        indexSignature === undefined ? undefined : guard(indexSignature.type),
        ast.propertySignatures.map((ps) => ps.isOptional)
      )
    }
    case "TupleType": {
      const rest = ast.rest[0]
      if (ast.elements.length > 0 || ast.rest.length !== 1 || rest === undefined) return byParser(ast)
      const element = guard(rest.type)
      return (u) => Array.isArray(u) && u.every((e) => element(e))
    }
    case "Suspend": {
      let inner: Guard | undefined
      return (u) => (inner ??= guard(ast.f()))(u)
    }
    default:
      return byParser(ast)
  }
}

/**
 * The guard of an object with the fields `names` (each through its guard) and, with `value`, other keys whose values
 * pass it: generated with the names written out, as `struct` is (no array of keys made per object; `Object.hasOwn`
 * only where a read cannot tell, since it cost more than all the rest). Symbol keys are not looked at: the values it
 * checks are built from rows and JSON.
 */
const objectGuard = (
  names: ReadonlyArray<string>,
  asts: ReadonlyArray<AST.AST>,
  value: Guard | undefined,
  optional: ReadonlyArray<boolean> = names.map(() => false)
): Guard => {
  const guards = asts.map((ast) => inlineCheck(ast, "") === undefined ? guard(ast) : undefined)
  const checks = names.map((name, i) => {
    const key = JSON.stringify(name)
    // An optional key: absent, or present (counted) with a value that passes.
    if (optional[i]) return `if (hasOwn(u, ${key})) { m++; if (!(${inlineCheck(asts[i]!, `u[${key}]`) ?? `g[${i}](u[${key}])`})) return false; }`
    // An own key: a read that gives a value (none of these names is inherited), or an own `undefined`.
    const present = name in Object.prototype ? `hasOwn(u, ${key})` : `(u[${key}] !== undefined || hasOwn(u, ${key}))`
    const check = inlineCheck(asts[i]!, `u[${key}]`) ?? `g[${i}](u[${key}])`
    return `if (!${present} || !(${check})) return false;`
  })
  const others = value === undefined
    ? ""
    : `if (!known.has(k) && (k === "__proto__" || !value(u[k]))) return false;`
  return new Function(
    "g",
    "value",
    "known",
    "hasOwn",
    `return function(u) {
      if (typeof u !== "object" || u === null || Object.getPrototypeOf(u) !== Object.prototype) return false;
      let m = ${optional.filter((o) => !o).length};
      ${checks.join("\n")}
      let n = 0;
      for (const k in u) { n++; ${others} }
      return ${value === undefined ? "n === m" : "true"};
    }`
  )(guards, value, new Set(names), Object.hasOwn)
}

/** The parser's answer for nodes the guard does not know: true only when it gives back the input itself. */
const byParser = (ast: AST.AST): Guard => {
  const parse = ParseResult.decodeUnknownEither(Schema.make(ast))
  return (u) => {
    const result = parse(u)
    return Either.isRight(result) && result.right === u
  }
}

/**
 * The function `make` returns, made at its first call. The tables' functions are defined when the bundle loads, and
 * every `fils` command loads it, though most read a few tables or none: compiling them all up front was a tenth of
 * a command's start.
 */
export const lazily = <A, R>(make: () => (a: A) => R) => {
  let made: ((a: A) => R) | undefined
  return (a: A): R => (made ??= make())(a)
}

/**
 * `schema`'s decoding and encoding, each compiled once, at its first use. The one assertion of the store's reads: the
 * compiled functions give what the Schema's parser gives (test/adapters/SqlRows.test.ts holds them to it on generated
 * rows).
 */
export const compile = <A, I>(schema: Schema.Schema<A, I>) => ({
  decode: lazily(() => go(schema.ast, true) as (input: unknown) => A | Fails),
  encode: lazily(() => go(schema.ast, false) as (value: A) => I | Fails)
})

/**
 * Whether `value` is an `A` exactly as `schema`'s type side would decode it (no key more, none transformed): the check
 * of a value built already, without a copy. False means "ask the parser", not always "refused". Made at its first use.
 */
export const guardOf = <A, I>(schema: Schema.Schema<A, I>): (value: unknown) => value is A =>
  lazily(() => guard(AST.typeAST(schema.ast))) as (value: unknown) => value is A

/**
 * A fuzzer against a real server on PostgreSQL: random and adversarial requests to every endpoint of the contract
 * (derived from `FilsApi`, so a new endpoint is fuzzed without touching this file), sent as raw bytes over
 * `node:net` so that what `fetch` refuses goes out too: invalid UTF-8, duplicated and oversized headers, odd
 * methods, paths and query strings, wrong content types, huge and deep bodies, injection strings, ids of the wrong
 * kind or of someone else, cursors of other lists.
 *
 * For every answer: never a 5xx; every non-2xx is JSON `{ code, message }` (two non-empty strings, nothing else);
 * a rejected request and a read write no row of any object table (a trigger counts the writes); a 2xx list
 * holds only the caller's objects and honours its filters. `FILS_FUZZ_LANES` (default 4) fuzzers run at once, each
 * with its own accounts; `FILS_FUZZ_SECONDS` (default 40: some 5,000 requests in CI) bounds the run,
 * `FILS_FUZZ_RUNS` (default 20000) caps it, `FILS_FUZZ_SEED` replays one. The number of requests sent is printed and written to `test-output/fuzz.json`;
 * in CI it must be at least 2,000.
 *
 * The hosted checkout page (`GET`/`POST /checkout/{id}`, HTML outside the contract) is fuzzed too: form-encoded
 * garbage, other content types, huge fields, bad and foreign form tokens, other sites' `Origin`/`Sec-Fetch-Site`.
 * Never a 5xx, and a payment (any row) only from a `POST` with the session's own token from no other site, or a
 * script's post without a token and without `Origin` or `Sec-Fetch-Site`.
 */
import { HttpApi } from "@effect/platform"
import { Arbitrary, FastCheck as fc, Option, Redacted, Schema, SchemaAST } from "effect"
import { writeFileSync } from "node:fs"
import { connect } from "node:net"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { basePath, FilsApi } from "../../../adapters/http/Api.js"
import { ensureOutputDir } from "../../support/browser.js"
import { expectError } from "../../support/httpSuite.js"
import { fileDatabaseUrl } from "../../support/postgresStore.js"
import { kinds, type Kind, type Seeded, seedObjects } from "../../support/seed.js"
import { type Principal, postgresVariant, rawFor, startServer, type TestServer } from "../../support/server.js"

const budgetSeconds = Number(process.env.FILS_FUZZ_SECONDS ?? "40")
const maxRuns = Number(process.env.FILS_FUZZ_RUNS ?? "20000")
/**
 * In CI (`CI` set), the run must have sent at least 2,000 requests (or all of `FILS_FUZZ_RUNS`, if fewer): a
 * fuzzer slowed to a crawl proves little. Elsewhere (a busy laptop, a short `FILS_FUZZ_SECONDS`) at least 100.
 */
const inCi = (process.env.CI ?? "") !== "" && process.env.CI !== "false"
const minimumRequests = Math.min(maxRuns, inCi ? 2_000 : 100)

// The contract ------------------------------------------------------------------------------------------------------

interface Endpoint {
  readonly name: string
  readonly method: string
  /** e.g. `/api/v1/products/:id` */
  readonly path: string
  /** The collection right after the base path (`products`, `account`, …). */
  readonly collection: string
  readonly hasId: boolean
  readonly payload: fc.Arbitrary<unknown> | undefined
  readonly urlParams: fc.Arbitrary<Record<string, string>> | undefined
  readonly urlParamNames: ReadonlyArray<string>
}

const propertyNames = (ast: SchemaAST.AST): Array<string> =>
  SchemaAST.isTypeLiteral(ast)
    ? ast.propertySignatures.map((p) => String(p.name))
    : SchemaAST.isTransformation(ast)
    ? propertyNames(ast.from)
    : SchemaAST.isRefinement(ast)
    ? propertyNames(ast.from)
    : []

/** Values of the schema's wire form (filters dropped where they cannot be generated). */
const arbitraryOf = (schema: Schema.Schema<any, any, any>): fc.Arbitrary<any> | undefined => {
  try {
    return Arbitrary.make(Schema.encodedSchema(schema as Schema.Schema<any, any, never>))
  } catch {
    return undefined
  }
}

const endpoints: Array<Endpoint> = []
HttpApi.reflect(FilsApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, group }) => {
    const collection = endpoint.path.slice(basePath.length + 1).split("/")[0]!
    endpoints.push({
      name: `${group.identifier}.${endpoint.name}`,
      method: endpoint.method,
      path: endpoint.path,
      collection,
      hasId: endpoint.path.includes("/:id"),
      payload: Option.getOrUndefined(Option.flatMap(endpoint.payloadSchema, (s) => Option.fromNullable(arbitraryOf(s as unknown as Schema.Schema<any, any, any>)))),
      urlParams: Option.getOrUndefined(Option.flatMap(endpoint.urlParamsSchema, (s) => Option.fromNullable(arbitraryOf(s as unknown as Schema.Schema<any, any, any>)))),
      urlParamNames: Option.match(endpoint.urlParamsSchema, { onNone: () => [], onSome: (s) => propertyNames(s.ast) }),
      // Shown by name in fast-check's reports.
      [fc.toStringMethod]: () => `${group.identifier}.${endpoint.name}`
    } as Endpoint)
  }
})
const isList = (e: Endpoint) => e.method === "GET" && !e.hasId && e.urlParamNames.includes("cursor")
const mutating = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method)

// Raw HTTP over a socket ---------------------------------------------------------------------------------------------

interface RawAnswer {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: Buffer
}

const header = (answer: RawAnswer, name: string) => answer.headers.find(([k]) => k === name)?.[1]

/** Parses the first final (non-1xx) response in `data`, or `undefined` while it is incomplete. */
const parseAnswer = (data: Buffer, head: boolean, ended: boolean): RawAnswer | undefined => {
  let offset = 0
  for (;;) {
    const end = data.indexOf("\r\n\r\n", offset)
    if (end === -1) return undefined
    const lines = data.subarray(offset, end).toString("latin1").split("\r\n")
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!)?.[1] ?? "NaN")
    const headers = lines.slice(1).map((l) => {
      const i = l.indexOf(":")
      return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as const
    })
    const bodyStart = end + 4
    if (status >= 100 && status < 200) {
      offset = bodyStart
      continue
    }
    const rest = data.subarray(bodyStart)
    if (head || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) }
    const te = headers.find(([k]) => k === "transfer-encoding")?.[1]
    if (te !== undefined && /chunked/i.test(te)) {
      const chunks: Array<Buffer> = []
      let at = 0
      for (;;) {
        const lineEnd = rest.indexOf("\r\n", at)
        if (lineEnd === -1) return ended ? { status, headers, body: Buffer.concat(chunks) } : undefined
        const size = parseInt(rest.subarray(at, lineEnd).toString("latin1"), 16)
        if (size === 0) return { status, headers, body: Buffer.concat(chunks) }
        if (rest.length < lineEnd + 2 + size + 2) return ended ? { status, headers, body: Buffer.concat(chunks) } : undefined
        chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size))
        at = lineEnd + 2 + size + 2
      }
    }
    const length = headers.find(([k]) => k === "content-length")?.[1]
    if (length !== undefined) {
      const n = Number(length)
      return rest.length >= n ? { status, headers, body: rest.subarray(0, n) } : ended ? { status, headers, body: rest } : undefined
    }
    return ended ? { status, headers, body: rest } : undefined
  }
}

/** Writes `bytes` to 127.0.0.1:`port` and reads the answer (the request asks the server to close). */
const exchange = (port: number, bytes: Buffer, head: boolean, timeoutMs = 30_000): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    const received: Array<Buffer> = []
    let done = false
    const finish = (ended: boolean) => {
      if (done) return
      const answer = parseAnswer(Buffer.concat(received), head, ended)
      if (answer !== undefined) {
        done = true
        clearTimeout(timer)
        socket.destroy()
        resolve(answer)
      } else if (ended) {
        done = true
        clearTimeout(timer)
        socket.destroy()
        reject(new Error(`the connection ended without a complete answer (${Buffer.concat(received).length} bytes)`))
      }
    }
    const timer = setTimeout(() => {
      if (done) return
      done = true
      socket.destroy()
      reject(new Error(`no answer within ${timeoutMs} ms`))
    }, timeoutMs)
    socket.on("data", (chunk) => {
      received.push(chunk)
      finish(false)
    })
    socket.on("end", () => finish(true))
    socket.on("close", () => finish(true))
    // A server may answer (413) and close before it read the whole body: the answer counts, not the write.
    socket.on("error", () => finish(true))
    socket.write(bytes, () => {})
  })

// What the fuzzer sends ----------------------------------------------------------------------------------------------

const injections = [
  "' OR '1'='1",
  "'; DROP TABLE products; --",
  "\" OR \"\"=\"",
  "1; SELECT pg_sleep(5)--",
  "%",
  "_",
  "%_%",
  "\\",
  "\\'",
  "$1",
  "<script>alert(1)</script>",
  "\"><img src=x onerror=alert(1)>",
  "javascript:alert(1)",
  "{{7*7}}${7*7}",
  "../../../etc/passwd",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "\u202e\u2066evil",
  "\ufeff",
  "مرحبا بالعالم",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀👩‍👩‍👧",
  "e\u0301\u0301\u0301",
  "",
  " ",
  "\t\r\n",
  "null",
  "true",
  "0",
  "-1",
  "1e309",
  "NaN",
  "__proto__",
  "constructor",
  "AED",
  "aed",
  "USD",
  "A".repeat(201),
  "B".repeat(5001),
  "😀".repeat(300),
  // Lengths count characters: 200 emoji is a name, 201 is not; text that UTF-8 cannot carry is refused.
  "😀".repeat(200),
  "😀".repeat(201),
  "😀".repeat(40),
  "\ud800",
  "a\udc00b",
  "\ud83d",
  "x@y.z",
  "+971501234567",
  "http://127.0.0.1:1/",
  "https://169.254.169.254/latest/meta-data/",
  "https://[::1]/",
  "file:///etc/passwd"
]
const weirdString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...injections) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) }
)
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: weirdString },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 53), 1e308, [], {}, [null], { "": "" })
  },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) }
)

/** JSON texts that `JSON.stringify` would never produce. */
const oddJsonTexts = [
  "{\"name\":\"a\",\"name\":\"b\",\"price\":1,\"currency\":\"AED\",\"email\":\"a@b.co\",\"url\":\"http://127.0.0.1:9/\"}",
  "{\"price\":1e309,\"name\":\"x\",\"currency\":\"AED\"}",
  "{\"price\":-0,\"name\":\"x\",\"currency\":\"AED\"}",
  "{\"price\":1.0000000000000002,\"name\":\"x\",\"currency\":\"AED\"}",
  "{\"price\":123456789012345678901234567890,\"name\":\"x\",\"currency\":\"AED\"}",
  "{\"__proto__\":{\"admin\":true},\"email\":\"p@x.co\"}",
  "{\"constructor\":{\"prototype\":{\"polluted\":1}}}",
  "{\"metadata\":{\"__proto__\":\"x\"},\"email\":\"m@x.co\"}",
  "{\"name\":",
  "[",
  "\"",
  "{}garbage",
  "{} {}",
  "{/* c */}",
  "{'name':'x'}",
  "{\"name\":\"x\",}",
  "NaN",
  "\ufeff{}",
  "{\"name\":\"\\u0000\"}",
  "{\"email\":\"\\ud800@x.co\"}",
  "{\"name\":\"\\uDFFF\\uD800\",\"price\":1,\"currency\":\"AED\"}",
  "null",
  "true",
  "0",
  "[]",
  "\"just a string\"",
  "",
  "   ",
  "\r\n"
]

/** Byte sequences that are not UTF-8. */
const invalidUtf8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0xaf],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80]
].map((b) => Buffer.from(b))

type Body =
  | { readonly tag: "schema"; readonly value: unknown; readonly edit: Edit }
  | { readonly tag: "weird"; readonly value: unknown }
  | { readonly tag: "text"; readonly text: string }
  | { readonly tag: "deep"; readonly depth: number; readonly inField: boolean; readonly open: "[" | "{" }
  | { readonly tag: "huge"; readonly size: number; readonly field: string }
  | { readonly tag: "badUtf8"; readonly seq: number; readonly field: string }
  | { readonly tag: "bytes"; readonly bytes: Uint8Array }
  | { readonly tag: "form"; readonly text: string }
  | { readonly tag: "none" }

type Edit =
  | { readonly tag: "keep" }
  | { readonly tag: "set"; readonly field: number; readonly value: unknown }
  | { readonly tag: "drop"; readonly field: number }
  | { readonly tag: "extra"; readonly name: string; readonly value: unknown }
  | { readonly tag: "realId"; readonly pick: number }

const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ tag: "keep" as const }) },
  { weight: 4, arbitrary: fc.record({ tag: fc.constant("set" as const), field: fc.nat(), value: weirdValue }) },
  { weight: 1, arbitrary: fc.record({ tag: fc.constant("drop" as const), field: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ tag: fc.constant("extra" as const), name: weirdString, value: weirdValue }) },
  { weight: 2, arbitrary: fc.record({ tag: fc.constant("realId" as const), pick: fc.nat() }) }
)

const bodyFor = (e: Endpoint): fc.Arbitrary<Body> =>
  fc.oneof(
    { weight: e.payload === undefined ? 0 : 10, arbitrary: fc.record({ tag: fc.constant("schema" as const), value: e.payload ?? fc.constant({}), edit }) },
    { weight: 2, arbitrary: fc.record({ tag: fc.constant("weird" as const), value: weirdValue }) },
    { weight: 2, arbitrary: fc.record({ tag: fc.constant("text" as const), text: fc.constantFrom(...oddJsonTexts) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        tag: fc.constant("deep" as const),
        depth: fc.constantFrom(64, 1_000, 10_000, 200_000),
        inField: fc.boolean(),
        open: fc.constantFrom("[" as const, "{" as const)
      })
    },
    {
      weight: 1,
      arbitrary: fc.record({
        tag: fc.constant("huge" as const),
        size: fc.constantFrom(10_000, 300_000, 1_000_000, 1_048_577, 1_500_000),
        field: fc.constantFrom("name", "description", "email", "url", "metadata", "product_cart", "zzz")
      })
    },
    {
      weight: 2,
      arbitrary: fc.record({
        tag: fc.constant("badUtf8" as const),
        seq: fc.nat(invalidUtf8.length - 1),
        field: fc.constantFrom("name", "description", "email", "url", "currency", "status", "key\u00e9")
      })
    },
    { weight: 1, arbitrary: fc.record({ tag: fc.constant("bytes" as const), bytes: fc.uint8Array({ maxLength: 300 }) }) },
    { weight: 1, arbitrary: fc.record({ tag: fc.constant("form" as const), text: fc.constantFrom("name=x&price=1&currency=AED", "email=a%40b.co", "a=%zz&b=%ff") }) },
    { weight: e.payload === undefined ? 6 : 1, arbitrary: fc.constant({ tag: "none" as const }) }
  )

type IdChoice =
  | { readonly tag: "mine"; readonly pick: number }
  | { readonly tag: "someoneElse"; readonly pick: number }
  | { readonly tag: "wrongKind"; readonly pick: number }
  | { readonly tag: "text"; readonly text: string; readonly encode: boolean }
  | { readonly tag: "shape"; readonly hex: string }
  | { readonly tag: "rawBytes"; readonly seq: number }

const idChoice: fc.Arbitrary<IdChoice> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ tag: fc.constant("mine" as const), pick: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ tag: fc.constant("someoneElse" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ tag: fc.constant("wrongKind" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ tag: fc.constant("text" as const), text: weirdString, encode: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ tag: fc.constant("shape" as const), hex: fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF"), minLength: 31, maxLength: 33 }) }) },
  { weight: 1, arbitrary: fc.record({ tag: fc.constant("rawBytes" as const), seq: fc.nat(invalidUtf8.length - 1) }) }
)

type PathOdd =
  | "none"
  | "trailingSlash"
  | "doubleSlash"
  | "upper"
  | "dotSegments"
  | "encodedSlash"
  | "extraSegment"
  | "semicolon"
  | "absoluteForm"
  | "long"
  | "rootless"
  | "unknownVersion"
  | "leadingSlashes"
  | "encodedLetters"
const pathOdd: fc.Arbitrary<PathOdd> = fc.oneof(
  { weight: 20, arbitrary: fc.constant("none" as const) },
  {
    weight: 8,
    arbitrary: fc.constantFrom<PathOdd>(
      "trailingSlash",
      "doubleSlash",
      "upper",
      "dotSegments",
      "encodedSlash",
      "extraSegment",
      "semicolon",
      "absoluteForm",
      "long",
      "rootless",
      "unknownVersion",
      "leadingSlashes",
      "encodedLetters"
    )
  }
)

type QueryPart =
  | { readonly tag: "params"; readonly values: Record<string, string> }
  | { readonly tag: "pair"; readonly name: string; readonly value: string }
  | { readonly tag: "cursor"; readonly pick: number }
  | { readonly tag: "forgedCursor"; readonly pick: number; readonly t: unknown; readonly i: unknown | undefined }
  | { readonly tag: "limit"; readonly value: string }
  | { readonly tag: "raw"; readonly text: string }
  | { readonly tag: "filterId"; readonly name: string; readonly pick: number }

const queryPartFor = (e: Endpoint): fc.Arbitrary<QueryPart> =>
  fc.oneof(
    { weight: e.urlParams === undefined ? 0 : 6, arbitrary: fc.record({ tag: fc.constant("params" as const), values: e.urlParams ?? fc.constant({}) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        tag: fc.constant("pair" as const),
        name: e.urlParamNames.length > 0 ? fc.oneof(fc.constantFrom(...e.urlParamNames), weirdString) : weirdString,
        value: weirdString
      })
    },
    { weight: isList(e) ? 4 : 0, arbitrary: fc.record({ tag: fc.constant("cursor" as const), pick: fc.nat() }) },
    {
      // A real cursor of some list re-encoded with a hostile position: out of the Date range, fractional, huge,
      // negative, not a number, or a malformed id. The server must refuse it before it reaches the store.
      weight: isList(e) ? 3 : 0,
      arbitrary: fc.record({
        tag: fc.constant("forgedCursor" as const),
        pick: fc.nat(),
        t: fc.oneof(
          fc.constantFrom(8_640_000_000_000_001, -8_640_000_000_000_001, 2 ** 53, -1, 1e300, 0.5, "1", null),
          fc.integer(),
          fc.double()
        ),
        i: fc.option(fc.oneof(weirdString, fc.constantFrom("pdt_x", "cus_" + "0".repeat(31), "x'--")), { nil: undefined })
      })
    },
    {
      weight: 2,
      arbitrary: fc.record({
        tag: fc.constant("limit" as const),
        value: fc.constantFrom("0", "1", "100", "101", "-1", "1.5", "1e2", "0x10", "", "abc", "99999999999", " 5", "5 ", "٣")
      })
    },
    {
      weight: 1,
      arbitrary: fc.record({
        tag: fc.constant("raw" as const),
        text: fc.constantFrom("%zz", "%ff%fe", "%", "a=%", "&&&", "==", "a[b]=c", "a[]=1&a[]=2", "?", "%00", "%E2%82", "a=" + "x".repeat(6000))
      })
    },
    {
      weight: 2,
      arbitrary: fc.record({
        tag: fc.constant("filterId" as const),
        name: fc.constantFrom("customer_id", "checkout_session_id"),
        pick: fc.nat()
      })
    }
  )

type Auth = "mine" | "otherMode" | "otherAccount" | "none" | "revokedLike" | "basic" | "lowercase" | "garbage" | "huge" | "twoKeys" | "nonLatin"
const auth: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 14, arbitrary: fc.constant("mine" as const) },
  {
    weight: 6,
    arbitrary: fc.constantFrom<Auth>("otherMode", "otherAccount", "none", "revokedLike", "basic", "lowercase", "garbage", "huge", "twoKeys", "nonLatin")
  }
)

type ContentType = string | undefined | "twoTypes" | "badBytes"
const contentType: fc.Arbitrary<ContentType> = fc.oneof(
  { weight: 10, arbitrary: fc.constant("application/json") },
  {
    weight: 4,
    arbitrary: fc.constantFrom<ContentType>(
      undefined,
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/json; charset=latin1",
      "text/plain",
      "text/html",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=xyz",
      "application/jsonx",
      "application/json, text/plain",
      "",
      "*/*",
      "twoTypes",
      "badBytes"
    )
  }
)

type ExtraHeader =
  | "dupIdempotency"
  | "longIdempotency"
  | "unicodeIdempotency"
  | "emptyIdempotency"
  | "pad8k"
  | "pad20k"
  | "manyHeaders"
  | "expectContinue"
  | "chunked"
  | "forwarded"
  | "badHeaderValue"
  | "noHost"
const extraHeaders = fc.uniqueArray(
  fc.constantFrom<ExtraHeader>(
    "dupIdempotency",
    "longIdempotency",
    "unicodeIdempotency",
    "emptyIdempotency",
    "pad8k",
    "pad20k",
    "manyHeaders",
    "expectContinue",
    "chunked",
    "forwarded",
    "badHeaderValue",
    "noHost"
  ),
  { maxLength: 3 }
)

const standardMethods = ["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"]
const method = (e: Endpoint) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(e.method) },
    { weight: 3, arbitrary: fc.constantFrom(...standardMethods) },
    { weight: 1, arbitrary: fc.constantFrom("TRACE", "PROPFIND", "FOO", "get", "CONNECT") }
  )

interface Case {
  readonly endpoint: Endpoint
  readonly by: number
  readonly method: string
  readonly id: IdChoice
  readonly odd: PathOdd
  readonly query: ReadonlyArray<QueryPart>
  readonly auth: Auth
  readonly contentType: ContentType
  readonly idempotencyKey: string | undefined
  readonly headers: ReadonlyArray<ExtraHeader>
  readonly body: Body
}

const caseArb: fc.Arbitrary<Case> = fc.constantFrom(...endpoints).chain((e) =>
  fc.record({
    endpoint: fc.constant(e),
    by: fc.nat(2),
    method: method(e),
    id: idChoice,
    odd: pathOdd,
    query: fc.array(queryPartFor(e), { maxLength: 3 }),
    auth,
    contentType,
    idempotencyKey: fc.option(fc.oneof(fc.uuid(), weirdString), { nil: undefined, freq: 3 }),
    headers: fc.oneof({ weight: 4, arbitrary: fc.constant([] as Array<ExtraHeader>) }, { weight: 1, arbitrary: extraHeaders }),
    body: bodyFor(e)
  })
)

// The world the fuzzer works in ----------------------------------------------------------------------------------------

interface World {
  readonly server: TestServer
  readonly port: number
  /** A test, A live, B test (the callers), then B live (only a victim). */
  readonly principals: ReadonlyArray<Principal>
  /** The two accounts, whose rows this world's requests may write. */
  readonly accounts: ReadonlyArray<string>
  readonly seeded: ReadonlyArray<Seeded>
  /** Every seeded id, for telling whose an id is. */
  readonly owner: Map<string, number>
  /** Cursors seen: the list path, the query that produced it, and the cursor. */
  readonly cursors: Array<{ readonly path: string; readonly by: number; readonly cursor: string }>
  /** Sessions for the hosted page's cases: open ones made for it, and the seeded ones (paid, declined). */
  readonly checkout: ReadonlyArray<KnownSession>
}

const pick = <A>(xs: ReadonlyArray<A>, n: number): A | undefined => (xs.length === 0 ? undefined : xs[n % xs.length])

const idsOf = (w: World, who: number, kind: Kind | undefined): Array<string> =>
  kind === undefined ? [] : w.seeded[who]![kind]

const renderId = (w: World, c: Case): Buffer => {
  const kind = kinds[c.endpoint.collection as Kind] === undefined ? undefined : (c.endpoint.collection as Kind)
  const id = c.id
  switch (id.tag) {
    case "mine":
      return Buffer.from(pick(idsOf(w, c.by, kind), id.pick) ?? "none")
    case "someoneElse": {
      const others = w.principals.map((_, i) => i).filter((i) => i !== c.by)
      return Buffer.from(pick(idsOf(w, others[id.pick % others.length]!, kind), id.pick) ?? "none")
    }
    case "wrongKind": {
      const all = (Object.keys(kinds) as Array<Kind>).filter((k) => k !== kind).flatMap((k) => w.seeded[c.by]![k])
      return Buffer.from(pick(all, id.pick) ?? "none")
    }
    case "text":
      return Buffer.from(id.encode ? encodeURIComponent(id.text.replace(/[\ud800-\udfff]/g, "x")) : id.text.replace(/[\s\u0000-\u001f\u007f#?]/g, "_"))
    case "shape":
      return Buffer.from(`${kind === undefined ? "x" : kinds[kind].prefix}_${id.hex}`)
    case "rawBytes":
      return Buffer.concat([Buffer.from(`${kind === undefined ? "x" : kinds[kind].prefix}_`), invalidUtf8[id.seq]!])
  }
}

const renderPath = (w: World, c: Case): Buffer => {
  const [before, after] = c.endpoint.path.split(":id")
  let path = c.endpoint.hasId ? Buffer.concat([Buffer.from(before!), renderId(w, c), Buffer.from(after ?? "")]) : Buffer.from(c.endpoint.path)
  const text = path.toString("latin1")
  switch (c.odd) {
    case "none":
      break
    case "trailingSlash":
      path = Buffer.concat([path, Buffer.from("/")])
      break
    case "doubleSlash":
      path = Buffer.from(text.replace("/api/v1/", "/api/v1//"), "latin1")
      break
    case "upper":
      path = Buffer.from(text.toUpperCase(), "latin1")
      break
    case "dotSegments":
      path = Buffer.from(text.replace("/api/v1/", "/api/v1/./../v1/"), "latin1")
      break
    case "encodedSlash":
      path = Buffer.from(text.replace("/api/v1/", "/api%2Fv1%2F"), "latin1")
      break
    case "extraSegment":
      path = Buffer.concat([path, Buffer.from("/extra")])
      break
    case "semicolon":
      path = Buffer.concat([path, Buffer.from(";jsessionid=1")])
      break
    case "absoluteForm":
      path = Buffer.concat([Buffer.from(`http://127.0.0.1:${w.port}`), path])
      break
    case "long":
      path = Buffer.concat([path, Buffer.from(`/${"a".repeat(8_000)}`)])
      break
    case "rootless":
      path = Buffer.from(text.slice(1), "latin1")
      break
    case "unknownVersion":
      path = Buffer.from(text.replace("/api/v1/", "/api/v2/"), "latin1")
      break
    case "leadingSlashes":
      path = Buffer.concat([Buffer.from("//"), path])
      break
    case "encodedLetters":
      path = Buffer.from(text.replace("/api/v1/", "/%61pi/v%31/"), "latin1")
      break
  }
  return path
}

const renderQuery = (w: World, c: Case): string => {
  const parts: Array<string> = []
  for (const q of c.query) {
    switch (q.tag) {
      case "params":
        for (const [k, v] of Object.entries(q.values)) {
          if (v !== undefined) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "x"))}`)
        }
        break
      case "pair":
        parts.push(`${encodeURIComponent(q.name.replace(/[\ud800-\udfff]/g, "x"))}=${encodeURIComponent(q.value.replace(/[\ud800-\udfff]/g, "x"))}`)
        break
      case "cursor": {
        const cursor = pick(w.cursors, q.pick)
        parts.push(`cursor=${encodeURIComponent(cursor?.cursor ?? "garbage")}`)
        break
      }
      case "forgedCursor": {
        const real = pick(w.cursors, q.pick)
        const json = real === undefined ? { l: "products", t: 0, i: "" } : JSON.parse(Buffer.from(real.cursor, "base64url").toString())
        const forged = { ...json, t: q.t, ...(q.i === undefined ? {} : { i: q.i }) }
        parts.push(`cursor=${Buffer.from(JSON.stringify(forged)).toString("base64url")}`)
        break
      }
      case "limit":
        parts.push(`limit=${encodeURIComponent(q.value)}`)
        break
      case "raw":
        parts.push(q.text)
        break
      case "filterId": {
        const all = [...w.owner.keys()]
        parts.push(`${q.name}=${encodeURIComponent(pick(all, q.pick) ?? "x")}`)
        break
      }
    }
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`
}

const editValue = (w: World, value: unknown, e: Edit): unknown => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  const fields = Object.keys(copy)
  switch (e.tag) {
    case "keep":
      return copy
    case "set": {
      const name = pick(fields.length > 0 ? fields : ["name"], e.field)!
      copy[name] = e.value
      return copy
    }
    case "drop": {
      const name = pick(fields, e.field)
      if (name !== undefined) delete copy[name]
      return copy
    }
    case "extra":
      copy[e.name] = e.value
      return copy
    case "realId": {
      // Real ids where the body names one (a cart's product, a customer): mine, someone else's, or another kind.
      const all = [...w.owner.keys()]
      const id = pick(all, e.pick)!
      if (Array.isArray(copy.product_cart)) copy.product_cart = [{ product_id: id, quantity: 1 }]
      else if ("customer" in copy) copy.customer = { customer_id: id }
      else copy.product_cart = [{ product_id: id }]
      return copy
    }
  }
}

/** Makes the body's bytes. */
const renderBody = (w: World, c: Case): Buffer | undefined => {
  const b = c.body
  switch (b.tag) {
    case "none":
      return undefined
    case "schema":
      return Buffer.from(JSON.stringify(editValue(w, b.value, b.edit)) ?? "null")
    case "weird":
      return Buffer.from(JSON.stringify(b.value) ?? "null")
    case "text":
      return Buffer.from(b.text)
    case "deep": {
      const open = b.open === "[" ? "[" : "{\"a\":"
      const close = b.open === "[" ? "]" : "}"
      const nest = `${open.repeat(b.depth)}1${close.repeat(b.depth)}`
      return Buffer.from(b.inField ? `{"metadata":${nest},"name":"x","price":1,"currency":"AED","email":"d@x.co"}` : nest)
    }
    case "huge": {
      const big = "x".repeat(b.size)
      const value = b.field === "metadata" ? { k: big } : b.field === "product_cart" ? [{ product_id: big }] : big
      return Buffer.from(JSON.stringify({ name: "n", price: 1, currency: "AED", email: "h@x.co", url: "http://127.0.0.1:9/", [b.field]: value }))
    }
    case "badUtf8":
      return Buffer.concat([
        Buffer.from(`{"price":1,"currency":"AED","name":"ok","email":"u@x.co","url":"http://127.0.0.1:9/","${b.field}":"a`),
        invalidUtf8[b.seq]!,
        Buffer.from("b\"}")
      ])
    case "bytes":
      return Buffer.from(b.bytes)
    case "form":
      return Buffer.from(b.text)
  }
}

const keyFor = (w: World, c: Case): Array<Buffer> => {
  const me = w.principals[c.by]!
  const otherMode = w.principals[c.by % 2 === 0 ? c.by + 1 : c.by - 1]!
  const otherAccount = w.principals[c.by < 2 ? 2 : 0]!
  const bearer = (s: string) => [Buffer.from(`authorization: Bearer ${s}`)]
  switch (c.auth) {
    case "mine":
      return bearer(me.key)
    case "otherMode":
      return bearer(otherMode.key)
    case "otherAccount":
      return bearer(otherAccount.key)
    case "none":
      return []
    case "revokedLike":
      return bearer(`${me.key.slice(0, -1)}${me.key.endsWith("A") ? "B" : "A"}`)
    case "basic":
      return [Buffer.from(`authorization: Basic ${Buffer.from(`${me.key}:`).toString("base64")}`)]
    case "lowercase":
      return [Buffer.from(`authorization: bearer ${me.key}`)]
    case "garbage":
      return [Buffer.from("authorization: Bearer ' OR 1=1 --")]
    case "huge":
      return bearer(`sk_test_${"a".repeat(10_000)}`)
    case "twoKeys":
      return [...bearer(me.key), ...bearer(otherAccount.key)]
    case "nonLatin":
      return [Buffer.concat([Buffer.from("authorization: Bearer sk_test_"), Buffer.from("ключ😀"), invalidUtf8[0]!])]
  }
}

const render = (w: World, c: Case): { readonly bytes: Buffer; readonly head: boolean; readonly summary: string } => {
  const target = Buffer.concat([renderPath(w, c), Buffer.from(renderQuery(w, c))])
  const body = renderBody(w, c)
  const lines: Array<Buffer> = []
  if (!c.headers.includes("noHost")) lines.push(Buffer.from(`host: 127.0.0.1:${w.port}`))
  lines.push(Buffer.from("connection: close"))
  lines.push(...keyFor(w, c))
  if (c.contentType === "twoTypes") lines.push(Buffer.from("content-type: application/json"), Buffer.from("content-type: text/plain"))
  else if (c.contentType === "badBytes") lines.push(Buffer.concat([Buffer.from("content-type: application/json; x="), invalidUtf8[0]!]))
  else if (c.contentType !== undefined && body !== undefined) lines.push(Buffer.from(`content-type: ${c.contentType}`))
  if (c.idempotencyKey !== undefined) lines.push(Buffer.concat([Buffer.from("idempotency-key: "), Buffer.from(c.idempotencyKey.replace(/[\r\n\u0000]/g, " "))]))
  for (const h of c.headers) {
    switch (h) {
      case "dupIdempotency":
        lines.push(Buffer.from("idempotency-key: dup-1"), Buffer.from("idempotency-key: dup-2"))
        break
      case "longIdempotency":
        lines.push(Buffer.from(`idempotency-key: ${"k".repeat(256)}`))
        break
      case "unicodeIdempotency":
        lines.push(Buffer.concat([Buffer.from("idempotency-key: "), Buffer.from("مفتاح-😀")]))
        break
      case "emptyIdempotency":
        lines.push(Buffer.from("idempotency-key: "))
        break
      case "pad8k":
        lines.push(Buffer.from(`x-pad: ${"p".repeat(8_000)}`))
        break
      case "pad20k":
        lines.push(Buffer.from(`x-pad: ${"p".repeat(20_000)}`))
        break
      case "manyHeaders":
        for (let i = 0; i < 150; i++) lines.push(Buffer.from(`x-h${i}: ${i}`))
        break
      case "expectContinue":
        lines.push(Buffer.from("expect: 100-continue"))
        break
      case "forwarded":
        lines.push(Buffer.from("x-forwarded-for: 10.0.0.1, 127.0.0.1"), Buffer.from("forwarded: for=\"[::1]\""))
        break
      case "badHeaderValue":
        lines.push(Buffer.from("x-bad: a\u0001b"))
        break
      case "chunked":
      case "noHost":
        break
    }
  }
  const chunked = c.headers.includes("chunked") && body !== undefined
  if (body !== undefined) {
    lines.push(Buffer.from(chunked ? "transfer-encoding: chunked" : `content-length: ${body.length}`))
  }
  const parts: Array<Buffer> = [Buffer.from(`${c.method} `), target, Buffer.from(" HTTP/1.1\r\n")]
  for (const l of lines) parts.push(l, Buffer.from("\r\n"))
  parts.push(Buffer.from("\r\n"))
  if (body !== undefined) {
    if (chunked) {
      // Two chunks, so the body arrives in pieces.
      const half = Math.floor(body.length / 2)
      for (const piece of [body.subarray(0, half), body.subarray(half)]) {
        if (piece.length > 0) parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"))
      }
      parts.push(Buffer.from("0\r\n\r\n"))
    } else parts.push(body)
  }
  const shownTarget = target.length > 200 ? `${target.subarray(0, 200).toString("latin1")}…` : target.toString("latin1")
  const shownBody = body === undefined ? "" : body.length > 200 ? ` ${body.subarray(0, 200).toString("latin1")}… (${body.length} bytes)` : ` ${body.toString("latin1")}`
  return {
    bytes: Buffer.concat(parts),
    head: c.method === "HEAD",
    summary: `${c.method} ${shownTarget} [${c.endpoint.name}, by ${c.by}, auth ${c.auth}, type ${String(c.contentType)}, headers ${c.headers.join(",")}]${shownBody}`
  }
}

// Changes to the database's objects --------------------------------------------------------------------------------

/** Every table that holds merchants' objects or their history (not the idempotency records or rate counters). */
const objectTables = [
  "accounts",
  "api_keys",
  "products",
  "customers",
  "checkout_sessions",
  "payments",
  "subscriptions",
  "subscription_attempts",
  "events",
  "webhook_endpoints",
  "webhook_deliveries",
  "webhook_attempts",
  "customer_portal_sessions"
]

/**
 * Counters, per account, that a row trigger on every object table bumps in the writing transaction: a rolled-back
 * write leaves them alone, any committed insert, update or delete (even of the same values) moves its account's.
 * Rows without an account (attempt records) count under `-`: no API request writes those.
 */
const installChangeCounters = async (client: pg.Client) => {
  await client.query("CREATE TABLE fuzz_changes (account_id text PRIMARY KEY, n bigint NOT NULL)")
  await client.query(`CREATE FUNCTION fuzz_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE owners text[];
    BEGIN
      owners := CASE TG_OP
        WHEN 'INSERT' THEN ARRAY[to_jsonb(NEW) ->> 'account_id']
        WHEN 'DELETE' THEN ARRAY[to_jsonb(OLD) ->> 'account_id']
        ELSE ARRAY[to_jsonb(OLD) ->> 'account_id', to_jsonb(NEW) ->> 'account_id'] END;
      INSERT INTO fuzz_changes SELECT DISTINCT coalesce(o, '-'), 1 FROM unnest(owners) AS o
        ON CONFLICT (account_id) DO UPDATE SET n = fuzz_changes.n + 1;
      RETURN NULL;
    END $$`)
  for (const t of objectTables) {
    await client.query(`CREATE TRIGGER fuzz_bump AFTER INSERT OR UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION fuzz_bump()`)
  }
}

/** Writes so far to the given accounts' rows, and to rows of no account. */
const changes = async (client: pg.Client, accounts: ReadonlyArray<string>): Promise<{ mine: number; unowned: number }> => {
  const result = await client.query<{ mine: string; unowned: string }>(
    `SELECT coalesce(sum(n) FILTER (WHERE account_id = ANY($1)), 0) AS mine,
            coalesce(sum(n) FILTER (WHERE account_id = '-'), 0) AS unowned FROM fuzz_changes`,
    [accounts]
  )
  return { mine: Number(result.rows[0]!.mine), unowned: Number(result.rows[0]!.unowned) }
}

// Checks of one answer ----------------------------------------------------------------------------------------------

const filterFields: Record<string, string> = {
  status: "status",
  billing: "billing",
  type: "type",
  customer_id: "customer_id",
  checkout_session_id: "checkout_session_id",
  payment_id: "payment_id",
  subscription_id: "subscription_id"
}

/** Who a request can be authenticated as (two Authorization headers: either). */
const callersOf = (c: Case): ReadonlyArray<number> => {
  const otherMode = c.by % 2 === 0 ? c.by + 1 : c.by - 1
  const otherAccount = c.by < 2 ? 2 : 0
  switch (c.auth) {
    case "otherMode":
      return [otherMode]
    case "otherAccount":
      return [otherAccount]
    case "twoKeys":
      return [c.by, otherAccount]
    default:
      return [c.by]
  }
}

const checkAnswer = (w: World, c: Case, summary: string, answer: RawAnswer, query: URLSearchParams | undefined) => {
  const shown = `${summary}\n→ ${answer.status} ${answer.body.subarray(0, 300).toString("utf8")}`
  expect(answer.status, shown).toBeGreaterThanOrEqual(200)
  expect(answer.status, shown).toBeLessThan(500)
  if (answer.status >= 300) {
    expect(header(answer, "content-type") ?? "", shown).toMatch(/^application\/json/)
    if (c.method === "HEAD") return
    const json = JSON.parse(answer.body.toString("utf8"))
    expect(Object.keys(json).sort(), shown).toEqual(["code", "message"])
    expect(typeof json.code === "string" && /^[A-Z_]+$/.test(json.code), shown).toBe(true)
    expect(typeof json.message === "string" && json.message.length > 0, shown).toBe(true)
    return
  }
  if (c.method !== "GET") return
  // A 2xx read: only the caller's objects, in the caller's mode, matching every filter given once.
  const callers = callersOf(c)
  const type = header(answer, "content-type") ?? ""
  if (!/^application\/json/.test(type)) {
    // A tax document's e-invoice or page: of one of the caller's own documents, in its own media type.
    expect(type, shown).toMatch(/^(application\/xml|text\/html); charset=utf-8$/)
    const id = /\/((?:inv|cn)_[0-9a-f]{32})\/(?:xml|html)$/.exec(c.endpoint.path.replace(":id", renderId(w, c).toString("latin1")))?.[1]
    expect(id !== undefined && callers.includes(w.owner.get(id)!), `${shown}\nwhose document`).toBe(true)
    return
  }
  const json = JSON.parse(answer.body.toString("utf8"))
  const items: Array<any> = Array.isArray(json.items) ? json.items : [json]
  for (const item of items) {
    if (typeof item.livemode === "boolean") {
      expect(callers.some((i) => w.principals[i]!.livemode === item.livemode), `${shown}\nmode`).toBe(true)
    }
    for (const value of Object.values(item)) {
      if (typeof value === "string" && w.owner.has(value) && !callers.includes(w.owner.get(value)!)) {
        // An id of someone else's object may appear only as an echo of a filter the caller sent.
        expect(query !== undefined && [...query.values()].includes(value), `${shown}\nleaks ${value}`).toBe(true)
      }
    }
  }
  if (json.object === "list" || Array.isArray(json.items)) {
    for (const [param, field] of Object.entries(filterFields)) {
      const values = query?.getAll(param) ?? []
      if (values.length !== 1 || !c.endpoint.urlParamNames.includes(param)) continue
      if (param === "status" && c.endpoint.collection === "request_logs") {
        // A status code (404) or a class (4xx).
        const pattern = new RegExp(`^${values[0]!.replace(/x/g, "\\d")}$`)
        for (const item of items) expect(String(item.status), `${shown}\nfilter status`).toMatch(pattern)
        continue
      }
      for (const item of items) {
        // Payments and subscriptions carry their customer as an embedded object, tax documents as their buyer.
        const actual = field === "customer_id"
          ? (item.customer_id ?? item.customer?.customer_id ?? item.buyer?.customer_id)
          : item[field]
        expect(actual, `${shown}\nfilter ${param}`).toBe(values[0])
      }
    }
    const email = query?.getAll("email") ?? []
    if (email.length === 1 && c.endpoint.collection === "customers") {
      for (const item of items) expect(String(item.email).toLowerCase(), `${shown}\nfilter email`).toBe(email[0]!.toLowerCase())
    }
    if (typeof json.next_cursor === "string") w.cursors.push({ path: c.endpoint.path, by: c.by, cursor: json.next_cursor })
  }
}

// The hosted checkout page ------------------------------------------------------------------------------------------

/**
 * `GET` and `POST /checkout/{id}` are outside the JSON contract: HTML pages for a person in a browser. The fuzzer
 * sends them form-encoded garbage, other content types, huge fields and bodies, missing, foreign, duplicated and
 * huge form tokens, and `Origin` / `Sec-Fetch-Site` of this page or of another site, to open, paid, declined and
 * unknown sessions. A submission may write rows (a payment) only if it was a `POST` carrying the session's own
 * token, from no other site, and only when it answers the redirect (303), the success page (200) or a decline
 * (402): a rejected submission never creates a payment.
 */
type SessionChoice =
  | { readonly tag: "known"; readonly pick: number }
  | { readonly tag: "wrongKind"; readonly pick: number }
  | { readonly tag: "text"; readonly text: string; readonly encode: boolean }
  | { readonly tag: "shape"; readonly hex: string }

type TokenChoice = "real" | "dupRealFirst" | "dupRealLast" | "other" | "none" | "empty" | "garbage" | "huge" | "truncated"

/** How the browser (or not) describes where the submission comes from. The first five are this page's own. */
const originChoices = ["absent", "self", "selfSameOrigin", "nullSameOrigin", "sfsNone", "evil", "crossSite", "sameSite", "null", "otherPort", "garbage", "selfButCrossSite"] as const
type OriginChoice = typeof originChoices[number]
const sameOriginChoices: ReadonlySet<OriginChoice> = new Set(["absent", "self", "selfSameOrigin", "nullSameOrigin", "sfsNone"])

type FieldEdit =
  | { readonly tag: "set"; readonly field: number; readonly value: string }
  | { readonly tag: "drop"; readonly field: number }
  | { readonly tag: "huge"; readonly field: number; readonly size: number }
  | { readonly tag: "dup"; readonly field: number; readonly value: string }
  | { readonly tag: "extra"; readonly name: string; readonly value: string }

type Encoding = "form" | "json" | "bytes" | "badUtf8" | "nul" | "huge" | "none"
/** Encodings whose body a form parser reads as the fields given (so the token can count). */
const formLike: ReadonlySet<Encoding> = new Set(["form", "badUtf8", "nul", "huge"])

interface CheckoutCase {
  readonly kind: "checkout"
  readonly method: string
  readonly session: SessionChoice
  readonly odd: "none" | "trailingSlash" | "query" | "encodedId" | "upper" | "doubleSlash"
  readonly token: TokenChoice
  readonly card: string
  readonly edits: ReadonlyArray<FieldEdit>
  readonly encoding: Encoding
  readonly contentType: string | undefined
  readonly origin: OriginChoice
  readonly headers: ReadonlyArray<ExtraHeader>
}

const formFieldNames = ["name", "email", "phone_number", "card_number", "exp_month", "exp_year", "cvc"] as const
const futureYear = String(new Date().getUTCFullYear() + 5)

/** Only cards the simulated processor answers at once: nothing settles later, behind the next case's back. */
const checkoutCards = [
  "4242424242424242",
  "5555555555554444",
  "4000000000000002",
  "4000000000009995",
  "4000000000000069",
  "4000000000000119",
  "4242424242424241",
  "4242 4242 4242 4242",
  "",
  "0000000000000000"
]

const checkoutCaseArb: fc.Arbitrary<CheckoutCase> = fc.record({
  kind: fc.constant("checkout" as const),
  method: fc.oneof(
    { weight: 10, arbitrary: fc.constant("POST") },
    { weight: 4, arbitrary: fc.constant("GET") },
    { weight: 1, arbitrary: fc.constantFrom("HEAD", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND") }
  ),
  session: fc.oneof(
    { weight: 10, arbitrary: fc.record({ tag: fc.constant("known" as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ tag: fc.constant("wrongKind" as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ tag: fc.constant("text" as const), text: weirdString, encode: fc.boolean() }) },
    {
      weight: 1,
      arbitrary: fc.record({
        tag: fc.constant("shape" as const),
        hex: fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 31, maxLength: 33 })
      })
    }
  ),
  odd: fc.oneof(
    { weight: 12, arbitrary: fc.constant("none" as const) },
    { weight: 2, arbitrary: fc.constantFrom("trailingSlash" as const, "query" as const, "encodedId" as const, "upper" as const, "doubleSlash" as const) }
  ),
  token: fc.oneof(
    { weight: 8, arbitrary: fc.constant("real" as const) },
    {
      weight: 6,
      arbitrary: fc.constantFrom<TokenChoice>("dupRealFirst", "dupRealLast", "other", "none", "empty", "garbage", "huge", "truncated")
    }
  ),
  card: fc.constantFrom(...checkoutCards),
  edits: fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as Array<FieldEdit>) },
    {
      weight: 4,
      arbitrary: fc.array(
        fc.oneof(
          fc.record({ tag: fc.constant("set" as const), field: fc.nat(), value: weirdString }),
          fc.record({ tag: fc.constant("drop" as const), field: fc.nat() }),
          fc.record({ tag: fc.constant("huge" as const), field: fc.nat(), size: fc.constantFrom(1_001, 10_000, 200_000) }),
          fc.record({ tag: fc.constant("dup" as const), field: fc.nat(), value: weirdString }),
          fc.record({ tag: fc.constant("extra" as const), name: weirdString, value: weirdString })
        ),
        { minLength: 1, maxLength: 3 }
      )
    }
  ),
  encoding: fc.oneof(
    { weight: 12, arbitrary: fc.constant("form" as const) },
    { weight: 4, arbitrary: fc.constantFrom<Encoding>("json", "bytes", "badUtf8", "nul", "huge", "none") }
  ),
  contentType: fc.oneof(
    { weight: 10, arbitrary: fc.constant("application/x-www-form-urlencoded") },
    {
      weight: 4,
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        "application/x-www-form-urlencoded; charset=utf-8",
        "APPLICATION/X-WWW-FORM-URLENCODED",
        "application/json",
        "text/plain",
        "text/html",
        "multipart/form-data; boundary=xyz",
        "multipart/form-data",
        "application/octet-stream",
        "",
        "*/*",
        "application/x-www-form-urlencoded, application/json"
      )
    }
  ),
  origin: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<OriginChoice>("absent", "self", "selfSameOrigin", "nullSameOrigin", "sfsNone") },
    { weight: 4, arbitrary: fc.constantFrom<OriginChoice>("evil", "crossSite", "sameSite", "null", "otherPort", "garbage", "selfButCrossSite") }
  ),
  headers: fc.oneof(
    { weight: 6, arbitrary: fc.constant([] as Array<ExtraHeader>) },
    {
      weight: 1,
      arbitrary: fc.uniqueArray(
        fc.constantFrom<ExtraHeader>("pad8k", "pad20k", "manyHeaders", "expectContinue", "chunked", "forwarded", "badHeaderValue", "noHost"),
        { maxLength: 2 }
      )
    }
  )
})

/** A session id to open, and its form token when the page shows a form (open sessions). */
interface KnownSession {
  readonly id: string
  readonly token: string | undefined
  readonly returnUrl: string | null
}

/** Open sessions for the checkout cases (each is paid at most once), plus every seeded session, with tokens. */
const checkoutSessionsFor = async (server: TestServer, principals: ReadonlyArray<Principal>, seeded: ReadonlyArray<Seeded>) => {
  const made: Array<{ readonly id: string; readonly returnUrl: string | null }> = []
  for (const [i, p] of principals.slice(0, 3).entries()) {
    const raw = rawFor(server, p.key)
    const product = await raw.post("/products", { name: `checkout fuzz ${i}`, price: 1_250 + i, currency: "AED" })
    expect(product.status, product.text).toBe(200)
    for (let n = 0; n < 8; n++) {
      const returnUrl = n % 2 === 0 ? "https://shop.example/thanks" : null
      const session = await raw.post("/checkout_sessions", {
        product_cart: [{ product_id: product.json.product_id, quantity: 1 + (n % 3) }],
        ...(returnUrl === null ? {} : { return_url: returnUrl })
      })
      expect(session.status, session.text).toBe(200)
      made.push({ id: session.json.session_id, returnUrl })
    }
  }
  for (const s of seeded.flatMap((x) => x.checkout_sessions)) made.push({ id: s, returnUrl: "https://shop.example/thanks" })
  const known: Array<KnownSession> = []
  for (const s of made) {
    const page = await fetch(`${server.origin}/checkout/${s.id}`)
    const token = /name="form_token" value="([^"]*)"/.exec(await page.text())?.[1]
    known.push({ id: s.id, token, returnUrl: s.returnUrl })
  }
  expect(known.filter((k) => k.token !== undefined).length).toBeGreaterThanOrEqual(24)
  return known
}

const sessionOf = (w: World, c: CheckoutCase): { readonly id: Buffer; readonly known: KnownSession | undefined } => {
  const s = c.session
  switch (s.tag) {
    case "known": {
      const known = pick(w.checkout, s.pick)!
      return { id: Buffer.from(known.id), known }
    }
    case "wrongKind":
      return { id: Buffer.from(pick(w.seeded[0]!.payments, s.pick) ?? "pay_x"), known: undefined }
    case "text":
      return {
        id: Buffer.from(s.encode ? encodeURIComponent(s.text.replace(/[\ud800-\udfff]/g, "x")) : s.text.replace(/[\s\u0000-\u001f\u007f#?/]/g, "_")),
        known: undefined
      }
    case "shape":
      return { id: Buffer.from(`cks_${s.hex}`), known: undefined }
  }
}

/** The form's fields, in order, as the case writes them (tokens first). */
const checkoutPairs = (w: World, c: CheckoutCase, known: KnownSession | undefined): Array<[string, string]> => {
  const real = known?.token
  const others = w.checkout.filter((k) => k.token !== undefined && k.token !== real)
  const pairs: Array<[string, string]> = []
  switch (c.token) {
    case "real":
      if (real !== undefined) pairs.push(["form_token", real])
      break
    case "dupRealFirst":
      if (real !== undefined) pairs.push(["form_token", real])
      pairs.push(["form_token", "forged"])
      break
    case "dupRealLast":
      pairs.push(["form_token", "forged"])
      if (real !== undefined) pairs.push(["form_token", real])
      break
    case "other":
      pairs.push(["form_token", others[c.card.length % Math.max(1, others.length)]?.token ?? "other"])
      break
    case "none":
      break
    case "empty":
      pairs.push(["form_token", ""])
      break
    case "garbage":
      pairs.push(["form_token", "' OR '1'='1"])
      break
    case "huge":
      pairs.push(["form_token", `${real ?? "t"}${"A".repeat(100_000)}`])
      break
    case "truncated":
      pairs.push(["form_token", (real ?? "token").slice(0, -1)])
      break
  }
  const fields: Array<[string, string]> = [
    ["name", "Layla Haddad"],
    ["email", "layla@example.ae"],
    ["phone_number", "+971501234567"],
    ["card_number", c.card],
    ["exp_month", "12"],
    ["exp_year", futureYear],
    ["cvc", "123"]
  ]
  for (const e of c.edits) {
    const i = "field" in e ? e.field % formFieldNames.length : 0
    const name = formFieldNames[i]!
    switch (e.tag) {
      case "set":
        for (const f of fields) if (f[0] === name) f[1] = e.value
        break
      case "drop": {
        const at = fields.findIndex((f) => f[0] === name)
        if (at !== -1) fields.splice(at, 1)
        break
      }
      case "huge":
        for (const f of fields) if (f[0] === name) f[1] = "9".repeat(e.size)
        break
      case "dup":
        fields.push([name, e.value])
        break
      case "extra":
        fields.push([e.name === "form_token" ? "form_token_" : e.name, e.value])
        break
    }
  }
  return [...pairs, ...fields]
}

/**
 * Whether the case's token is the session's own (the first `form_token` is the one read), or the case is a script's
 * post of the named fields alone (no token, and no `Origin` or `Sec-Fetch-Site`: a browser always sends one).
 */
const carriesRealToken = (c: CheckoutCase, known: KnownSession | undefined) =>
  known?.token !== undefined && (c.token === "real" || c.token === "dupRealFirst" || (c.token === "none" && c.origin === "absent"))

const encodePairs = (pairs: ReadonlyArray<[string, string]>) =>
  pairs.map(([k, v]) => `${encodeURIComponent(k.replace(/[\ud800-\udfff]/g, "x"))}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "x"))}`).join("&")

const renderCheckoutBody = (c: CheckoutCase, pairs: ReadonlyArray<[string, string]>): Buffer | undefined => {
  switch (c.encoding) {
    case "none":
      return undefined
    case "form":
      return Buffer.from(encodePairs(pairs))
    case "json":
      return Buffer.from(JSON.stringify(Object.fromEntries(pairs)))
    case "bytes":
      return Buffer.from(encodePairs(pairs).split("").reverse().join("").replace(/=/g, "\u0001"), "latin1")
    case "badUtf8":
      return Buffer.concat([Buffer.from(`${encodePairs(pairs)}&name=`), invalidUtf8[pairs.length % invalidUtf8.length]!, Buffer.from("x")])
    case "nul":
      return Buffer.from(`${encodePairs(pairs)}&name=a%00b`)
    case "huge":
      return Buffer.from(`${encodePairs(pairs)}&pad=${"x".repeat(1_100_000)}`)
  }
}

const originHeaders = (w: World, choice: OriginChoice): Array<string> => {
  const self = `http://127.0.0.1:${w.port}`
  switch (choice) {
    case "absent":
      return []
    case "self":
      return [`origin: ${self}`]
    case "selfSameOrigin":
      return [`origin: ${self}`, "sec-fetch-site: same-origin"]
    case "nullSameOrigin":
      return ["origin: null", "sec-fetch-site: same-origin"]
    case "sfsNone":
      return ["sec-fetch-site: none"]
    case "evil":
      return ["origin: https://evil.example"]
    case "crossSite":
      return ["origin: https://evil.example", "sec-fetch-site: cross-site"]
    case "sameSite":
      return [`origin: http://127.0.0.1:${w.port === 1 ? 2 : w.port - 1}`, "sec-fetch-site: same-site"]
    case "null":
      return ["origin: null"]
    case "otherPort":
      return [`origin: http://127.0.0.1:${w.port === 1 ? 2 : w.port - 1}`]
    case "garbage":
      return ["origin: ' OR 1=1 --"]
    case "selfButCrossSite":
      return [`origin: ${self}`, "sec-fetch-site: cross-site"]
  }
}

const renderCheckout = (w: World, c: CheckoutCase) => {
  const { id, known } = sessionOf(w, c)
  let path = Buffer.concat([Buffer.from("/checkout/"), id])
  switch (c.odd) {
    case "none":
      break
    case "trailingSlash":
      path = Buffer.concat([path, Buffer.from("/")])
      break
    case "query":
      path = Buffer.concat([path, Buffer.from("?form_token=x&session_id=y")])
      break
    case "encodedId":
      path = Buffer.from(`/checkout/${[...id.toString("latin1")].map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, "0")}`).join("")}`)
      break
    case "upper":
      path = Buffer.from(path.toString("latin1").toUpperCase(), "latin1")
      break
    case "doubleSlash":
      path = Buffer.concat([Buffer.from("/"), path])
      break
  }
  const pairs = checkoutPairs(w, c, known)
  const body = c.method === "GET" || c.method === "HEAD" ? (c.encoding === "none" ? undefined : renderCheckoutBody(c, pairs)) : renderCheckoutBody(c, pairs)
  const lines: Array<Buffer> = []
  if (!c.headers.includes("noHost")) lines.push(Buffer.from(`host: 127.0.0.1:${w.port}`))
  lines.push(Buffer.from("connection: close"))
  for (const h of originHeaders(w, c.origin)) lines.push(Buffer.from(h))
  if (c.contentType !== undefined && body !== undefined) lines.push(Buffer.from(`content-type: ${c.contentType}`))
  for (const h of c.headers) {
    switch (h) {
      case "pad8k":
        lines.push(Buffer.from(`x-pad: ${"p".repeat(8_000)}`))
        break
      case "pad20k":
        lines.push(Buffer.from(`x-pad: ${"p".repeat(20_000)}`))
        break
      case "manyHeaders":
        for (let i = 0; i < 150; i++) lines.push(Buffer.from(`x-h${i}: ${i}`))
        break
      case "expectContinue":
        lines.push(Buffer.from("expect: 100-continue"))
        break
      case "forwarded":
        // A proxy's view of the host, which is none of the origins the cases claim.
        lines.push(Buffer.from("x-forwarded-for: 10.0.0.1"), Buffer.from("x-forwarded-host: proxy.internal:8080"))
        break
      case "badHeaderValue":
        lines.push(Buffer.from("x-bad: a\u0001b"))
        break
      default:
        break
    }
  }
  const chunked = c.headers.includes("chunked") && body !== undefined
  if (body !== undefined) lines.push(Buffer.from(chunked ? "transfer-encoding: chunked" : `content-length: ${body.length}`))
  const parts: Array<Buffer> = [Buffer.from(`${c.method} `), path, Buffer.from(" HTTP/1.1\r\n")]
  for (const l of lines) parts.push(l, Buffer.from("\r\n"))
  parts.push(Buffer.from("\r\n"))
  if (body !== undefined) {
    if (chunked) {
      const half = Math.floor(body.length / 2)
      for (const piece of [body.subarray(0, half), body.subarray(half)]) {
        if (piece.length > 0) parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"))
      }
      parts.push(Buffer.from("0\r\n\r\n"))
    } else parts.push(body)
  }
  // What could lead to a charge: the session's own token in a form body posted from no other site.
  const mayCharge = c.method === "POST" && carriesRealToken(c, known) && sameOriginChoices.has(c.origin) && formLike.has(c.encoding)
  const shownPath = path.length > 200 ? `${path.subarray(0, 200).toString("latin1")}…` : path.toString("latin1")
  const shownBody = body === undefined ? "" : body.length > 300 ? ` ${body.subarray(0, 300).toString("latin1")}… (${body.length} bytes)` : ` ${body.toString("latin1")}`
  return {
    bytes: Buffer.concat(parts),
    head: c.method === "HEAD",
    mayCharge,
    known,
    summary: `${c.method} ${shownPath} [checkout page, token ${c.token}, origin ${c.origin}, encoding ${c.encoding}, ` +
      `type ${String(c.contentType)}, headers ${c.headers.join(",")}, edits ${c.edits.map((e) => e.tag).join(",")}]${shownBody}`
  }
}

/** Never a 5xx; an HTML page with its strict policy, or a `{ code, message }` error; a 303 only to the return URL. */
const checkCheckoutAnswer = (c: CheckoutCase, rendered: ReturnType<typeof renderCheckout>, answer: RawAnswer) => {
  const shown = `${rendered.summary}\n→ ${answer.status} ${answer.body.subarray(0, 300).toString("utf8")}`
  expect(answer.status, shown).toBeGreaterThanOrEqual(200)
  expect(answer.status, shown).toBeLessThan(500)
  if (answer.status === 303 || answer.status === 402) expect(rendered.mayCharge, `${shown}\nanswered as a charge`).toBe(true)
  if (answer.status === 303) {
    const location = header(answer, "location") ?? ""
    expect(location, shown).toMatch(/^https:\/\/shop\.example\/thanks\?/)
    expect(rendered.known?.returnUrl, shown).not.toBeNull()
    return
  }
  const type = header(answer, "content-type") ?? ""
  if (/^text\/html/.test(type)) {
    expect(header(answer, "content-security-policy") ?? "", shown).toContain("default-src 'none'")
    if (c.method !== "HEAD") expect(answer.body.subarray(0, 15).toString("latin1").toLowerCase(), shown).toBe("<!doctype html>")
    return
  }
  expect(answer.status, `${shown}\na 2xx that is not a page`).toBeGreaterThanOrEqual(300)
  expect(type, shown).toMatch(/^application\/json/)
  if (c.method === "HEAD") return
  const json = JSON.parse(answer.body.toString("utf8"))
  expect(Object.keys(json).sort(), shown).toEqual(["code", "message"])
}

// The suite ------------------------------------------------------------------------------------------------------------

/** Independent fuzzers at once, each with its own two accounts (so each can tell its own writes). */
const lanes = Number(process.env.FILS_FUZZ_LANES ?? "4")

/** Two accounts, their four principals with objects of every kind, and cursors of every list. */
const makeWorld = async (server: TestServer, lane: number): Promise<World> => {
  const a = await server.createAccount({ business_name: `Fuzz ${lane}A`, live_payments_enabled: true })
  const b = await server.createAccount({ business_name: `Fuzz ${lane}B`, live_payments_enabled: true })
  const principals = [a.test, a.live, b.test, b.live]
  const seeded: Array<Seeded> = []
  for (const [i, p] of principals.entries()) seeded.push(await seedObjects(server, p, `fuzz${lane}-${i}`))
  const owner = new Map<string, number>()
  seeded.forEach((objects, i) => Object.values(objects).flat().forEach((id) => owner.set(id, i)))
  const cursors: World["cursors"] = []
  // Cursors of every list, for every caller, with and without a filter: each is foreign to the other lists.
  for (const [i, p] of principals.entries()) {
    for (const e of endpoints.filter(isList)) {
      for (const extra of ["", "&status=succeeded", "&type=payment.succeeded"]) {
        const res = await rawFor(server, p.key).get(`${e.path}?limit=1${extra}`)
        if (res.status === 200 && typeof res.json.next_cursor === "string") {
          cursors.push({ path: e.path, by: i, cursor: res.json.next_cursor })
        }
      }
    }
  }
  return {
    server,
    port: Number(new URL(server.origin).port),
    principals,
    accounts: [a.accountId, b.accountId],
    seeded,
    owner,
    cursors,
    checkout: await checkoutSessionsFor(server, principals, seeded)
  }
}

interface LaneResult {
  readonly sent: number
  readonly rejected: number
  readonly byStatus: Map<number, number>
  /** Of `sent`, to the hosted page; by status. */
  readonly checkout: Map<number, number>
  readonly failure: string | undefined
}

/** An API case most of the time, a hosted-page case otherwise. */
const anyCase: fc.Arbitrary<Case | CheckoutCase> = fc.oneof(
  { weight: 5, arbitrary: caseArb },
  { weight: 1, arbitrary: checkoutCaseArb }
)

/** One fuzzer: fast-check draws cases and sends them one at a time, checking each answer and the writes it made. */
const runLane = async (w: World, client: pg.Client, seed: number, deadline: number): Promise<LaneResult> => {
  let sent = 0
  let rejected = 0
  const byStatus = new Map<number, number>()
  let current = await changes(client, w.accounts)
  const recent: Array<string> = []
  const checkout = new Map<number, number>()
  const details = await fc.check(
    fc.asyncProperty(anyCase, async (c) => {
      if ("kind" in c) {
        const rendered = renderCheckout(w, c)
        const answer = await exchange(w.port, rendered.bytes, rendered.head)
        sent++
        byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1)
        checkout.set(answer.status, (checkout.get(answer.status) ?? 0) + 1)
        recent.push(`${rendered.summary.slice(0, 500)} → ${answer.status}`)
        if (recent.length > 5) recent.shift()
        // Counted before any check, so that a failing case (and fast-check's shrinking after it) is not blamed
        // for the writes of the one before.
        const before = current
        const after = await changes(client, w.accounts)
        current = after
        checkCheckoutAnswer(c, rendered, answer)
        expect(after.unowned - before.unowned, `rows of no account written\n${recent.join("\n")}`).toBe(0)
        const charged = answer.status === 303 || answer.status === 402 || (answer.status === 200 && c.method === "POST")
        if (after.mine > before.mine) {
          expect(rendered.mayCharge && charged, `rows written by a rejected submission\n${recent.join("\n")}`).toBe(true)
        }
        if (answer.status >= 300 && answer.status !== 303 && answer.status !== 402) rejected++
        return
      }
      const { bytes, head, summary } = render(w, c)
      const answer = await exchange(w.port, bytes, head)
      sent++
      byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1)
      recent.push(`${summary} → ${answer.status}`)
      if (recent.length > 5) recent.shift()
      let query: URLSearchParams | undefined
      try {
        const q = bytes.toString("latin1").split(" ")[1]!.split("?")[1]
        query = q === undefined ? undefined : new URLSearchParams(q)
      } catch {
        query = undefined
      }
      const before = current
      const after = await changes(client, w.accounts)
      current = after
      checkAnswer(w, c, summary, answer, query)
      expect(after.unowned - before.unowned, `rows of no account written\n${recent.join("\n")}`).toBe(0)
      if (answer.status >= 300) {
        rejected++
        expect(after.mine - before.mine, `rows written by a rejected request\n${recent.join("\n")}`).toBe(0)
      } else if (!mutating(c.method)) {
        expect(after.mine - before.mine, `rows written by a read\n${recent.join("\n")}`).toBe(0)
      }
    }),
    {
      seed,
      numRuns: Math.ceil(maxRuns / lanes),
      interruptAfterTimeLimit: Math.max(1_000, deadline - Date.now()),
      markInterruptAsFailure: false
    }
  )
  return { sent, rejected, byStatus, checkout, failure: details.failed ? fc.defaultReportMessage(details) ?? "failed" : undefined }
}

describe("fuzzing every endpoint with hostile requests [postgres]", () => {
  let server: TestServer | undefined
  const worlds: Array<World> = []
  const clients: Array<pg.Client> = []

  beforeAll(async () => {
    server = await startServer(await postgresVariant.store())
    const url = Redacted.value(await fileDatabaseUrl())
    for (let lane = 0; lane < lanes; lane++) {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      clients.push(client)
    }
    await installChangeCounters(clients[0]!)
    worlds.push(...await Promise.all(Array.from({ length: lanes }, (_, lane) => makeWorld(server!, lane))))
  }, 240_000)

  afterAll(async () => {
    for (const client of clients) await client.end()
    await server?.close()
  })

  it("the contract's endpoints are all known to the fuzzer", () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(20)
    for (const e of endpoints) {
      if (e.hasId) expect(kinds[e.collection as Kind], `${e.name}: a collection the seed does not make`).toBeDefined()
      if (e.method === "POST" || e.method === "PATCH") expect(e.payload, `${e.name}: no arbitrary for its payload`).toBeDefined()
    }
  })

  it("a cursor of another list is 400 INVALID_REQUEST on every list", async () => {
    const w = worlds[0]!
    let checked = 0
    for (const e of endpoints.filter(isList)) {
      for (const foreign of w.cursors.filter((c) => c.path !== e.path && c.by === 0)) {
        expectError(await rawFor(w.server, w.principals[0]!.key).get(`${e.path}?cursor=${encodeURIComponent(foreign.cursor)}`), 400, "INVALID_REQUEST")
        checked++
      }
    }
    expect(checked).toBeGreaterThan(0)
  })

  it("a cursor forged outside the date range is 400 INVALID_REQUEST on every list", async () => {
    const w = worlds[0]!
    let checked = 0
    for (const e of endpoints.filter(isList)) {
      const own = w.cursors.find((c) => c.path === e.path && c.by === 0)
      const l = own === undefined ? e.collection : JSON.parse(Buffer.from(own.cursor, "base64url").toString()).l
      const id = `${kinds[e.collection as Kind]?.prefix ?? "pdt"}_${"0".repeat(32)}`
      for (const t of [8_640_000_000_000_001, -1, 1e300]) {
        const forged = Buffer.from(JSON.stringify({ l, t, i: id })).toString("base64url")
        expectError(await rawFor(w.server, w.principals[0]!.key).get(`${e.path}?cursor=${forged}`), 400, "INVALID_REQUEST")
        checked++
      }
    }
    expect(checked).toBe(endpoints.filter(isList).length * 3)
  })

  it("never a 5xx, never a non-JSON error, never a change by a rejected request", async () => {
    const started = Date.now()
    const deadline = started + budgetSeconds * 1000
    const base = Number(process.env.FILS_FUZZ_SEED ?? Date.now() % 1_000_000_000)
    const results = await Promise.all(worlds.map((w, lane) => runLane(w, clients[lane]!, base + lane, deadline)))
    const sent = results.reduce((n, r) => n + r.sent, 0)
    const rejected = results.reduce((n, r) => n + r.rejected, 0)
    const byStatus = new Map<number, number>()
    for (const r of results) for (const [k, v] of r.byStatus) byStatus.set(k, (byStatus.get(k) ?? 0) + v)
    const checkoutByStatus = new Map<number, number>()
    for (const r of results) for (const [k, v] of r.checkout) checkoutByStatus.set(k, (checkoutByStatus.get(k) ?? 0) + v)
    const checkoutSent = [...checkoutByStatus.values()].reduce((n, v) => n + v, 0)
    const summary = {
      requests: sent,
      rejected,
      checkout_page_requests: checkoutSent,
      checkout_page_statuses: Object.fromEntries([...checkoutByStatus.entries()].sort((x, y) => x[0] - y[0])),
      seconds: Math.round((Date.now() - started) / 1000),
      lanes,
      seed: base,
      endpoints: endpoints.length,
      statuses: Object.fromEntries([...byStatus.entries()].sort((x, y) => x[0] - y[0])),
      when: new Date().toISOString()
    }
    console.log(
      `fuzz: ${sent} requests to ${endpoints.length} endpoints in ${summary.seconds} s over ${lanes} lanes ` +
        `(seed ${base}; ${rejected} rejected): ${JSON.stringify(summary.statuses)}; ` +
        `${checkoutSent} to the checkout page: ${JSON.stringify(summary.checkout_page_statuses)}`
    )
    writeFileSync(join(ensureOutputDir(), "fuzz.json"), `${JSON.stringify(summary, null, 2)}\n`)
    const failures = results.flatMap((r, lane) => (r.failure === undefined ? [] : [`lane ${lane} (seed ${base + lane}): ${r.failure}`]))
    if (failures.length > 0) throw new Error(failures.join("\n\n"))
    expect(sent, "requests sent within the budget").toBeGreaterThanOrEqual(minimumRequests)
    expect(checkoutSent, "requests to the checkout page").toBeGreaterThanOrEqual(Math.floor(minimumRequests / 20))
  }, (budgetSeconds + 300) * 1000)
})

/**
 * The hot reads (`ApiMiddleware.ts`): which requests take them, and that their answers are HttpApi's own, byte for byte.
 *
 * The dispatch is checked with a stand-in app behind the middleware (it answers 418: the full way); the answers are
 * compared over HTTP on both stores, each hot request against the same read forced the full way (an extra query
 * parameter the endpoint ignores, which the dispatch sends the full way as the first test shows).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect, Option } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { Authentication } from "../../../adapters/http/Api.js"
import { makeApiMiddleware, plainQuery } from "../../../adapters/http/ApiMiddleware.js"
import { Accounts } from "../../../src/application/Accounts.js"
import { Payments } from "../../../src/application/Payments.js"
import { RequestLogs } from "../../../src/application/RequestLogs.js"
import { notFound } from "../../../src/domain/Errors.js"
import { describeStores, useServer } from "../../support/httpSuite.js"
import { seedObjects } from "../../support/seed.js"
import { type Principal, rawFor, type RawResponse, type TestServer } from "../../support/server.js"

const id = `pay_${"ab".repeat(16)}`

/** Which way `url` went: "hot" when the hot read authenticated it, "full" when it was left to the app behind. */
const dispatch = (method: string, url: string, headers: Record<string, string> = {}) => {
  let authenticated = false
  return Effect.gen(function*() {
    const middleware = yield* makeApiMiddleware
    const app = middleware(Effect.succeed(HttpServerResponse.empty({ status: 418 })))
    const request = HttpServerRequest.fromWeb(new Request(`http://127.0.0.1${url}`, { method, headers }))
    // The full way's own checks may refuse the request; either way only the hot read authenticates.
    yield* Effect.exit(Effect.provideService(app, HttpServerRequest.HttpServerRequest, request))
    return authenticated ? "hot" : "full"
  }).pipe(
    Effect.provideService(Authentication, {
      bearer: () => Effect.sync(() => (authenticated = true, { accountId: "acc_1", livemode: false, keyId: "key_1" }))
    } as never),
    // Request logs off: the dispatch alone (no key is looked up for a line).
    Effect.provideService(RequestLogs, { enabled: false } as never),
    Effect.provideService(Accounts, {} as never),
    Effect.provide(Context.make(Payments, {
      get: (_: unknown, payment: string) => Effect.fail(notFound("payment", payment)),
      list: () => Effect.succeed({ items: [], has_more: false, next_cursor: null })
    } as never)),
    Effect.runPromise
  )
}

describe("the hot reads' dispatch", () => {
  it("takes only a plain GET of a payment or of the payment list the schema accepts; everything else goes the full way", async () => {
    const hot = [
      `/api/v1/payments/${id}`,
      "/api/v1/payments/pay_malformed", // the handler's 404, as the full way gives it
      "/api/v1/payments",
      "/api/v1/payments?",
      "/api/v1/payments?limit=2&status=succeeded&unknown=1",
      `/api/v1/payments?customer_id=cus_${"0".repeat(32)}&cursor=abc-_`,
      // The schema takes any cursor text; the list refuses one it did not write (400), the same either way.
      "/api/v1/payments?cursor="
    ]
    const full = [
      `/api/v1/payments/${id}?x=1`,
      `/api/v1/payments/${id}/`,
      `/api/v1/payments/${id}%00`,
      `/api/v1/payments/${id};x`,
      "/api/v1/payments/",
      "/api/v1/payments?limit=0",
      "/api/v1/payments?limit=2&limit=3",
      "/api/v1/payments?x=1&x=2",
      "/api/v1/payments?status=nope",
      "/api/v1/payments?limit=%32",
      "/api/v1/payments?limit=2;x",
      "/API/v1/payments",
      "//api/v1/payments",
      "/api/v1/products"
    ]
    for (const url of hot) expect(await dispatch("GET", url), url).toBe("hot")
    for (const url of full) expect(await dispatch("GET", url), url).toBe("full")
    for (const method of ["POST", "HEAD", "PUT", "DELETE"]) expect(await dispatch(method, "/api/v1/payments"), method).toBe("full")
    expect(await dispatch("GET", "/api/v1/payments", { "content-length": "2" })).toBe("full")
    expect(await dispatch("GET", "/api/v1/payments", { "transfer-encoding": "chunked" })).toBe("full")
    expect(await dispatch("GET", "/api/v1/payments", { "content-length": "0" })).toBe("hot")
  })

  it("reads a query as the router does, and leaves one with a repeated key to it", () => {
    expect(plainQuery(undefined)).toEqual({})
    expect(plainQuery("a=1&b=&c")).toEqual({ a: "1", b: "", c: "" })
    expect(plainQuery("a=1&a=2")).toBeUndefined()
  })
})

/** The parts of an answer that must agree: status, body, and every header but those that change per request. */
const comparable = (res: RawResponse) => {
  const headers: Array<[string, string]> = []
  res.headers.forEach((value, name) => {
    if (!["date", "ratelimit-remaining", "ratelimit-reset", "x-request-id"].includes(name)) headers.push([name, value])
  })
  // Each way answers with a request id of its own.
  expect(res.headers.get("x-request-id") ?? "", res.text).toMatch(/^req_/)
  return { status: res.status, body: res.text, headers }
}

describeStores("hot reads answer as HttpApi does", (variant) => {
  const server = useServer(variant)
  let shop: Principal
  let payments: ReadonlyArray<string> = []

  beforeAll(async () => {
    const account = await server().createAccount({ live_payments_enabled: true })
    shop = account.test
    payments = (await seedObjects(server(), shop, "hot")).payments
  }, 60_000)

  /** The answer to `path`, and to the same read sent the full way (`forced` adds what the dispatch leaves alone). */
  const both = async (s: TestServer, key: string | undefined, path: string, forced: string) => {
    const raw = rawFor(s, key)
    return [comparable(await raw.get(path)), comparable(await raw.get(`${path}${forced}`))] as const
  }

  it("each payment, an unknown one, another account's, a malformed id: the same bytes either way", async () => {
    const other = (await server().createAccount()).test
    const foreign = (await seedObjects(server(), other, "foreign")).payments[0]!
    for (const payment of [...payments, foreign, `pay_${"0".repeat(32)}`, "pay_123"]) {
      const [hot, full] = await both(server(), shop.key, `/payments/${payment}`, "?via=router")
      expect(hot, payment).toEqual(full)
      expect(hot.status, payment).toBe(payments.includes(payment) ? 200 : 404)
    }
  })

  it("the list, filtered and paged, and refused keys: the same bytes either way", async () => {
    const first = await rawFor(server(), shop.key).get("/payments?limit=1")
    expect(first.json.has_more).toBe(true)
    for (const query of ["", "?limit=1", "?status=succeeded", `?limit=1&cursor=${first.json.next_cursor}`, `?customer_id=cus_${"0".repeat(32)}`]) {
      const [hot, full] = await both(server(), shop.key, `/payments${query}`, `${query === "" ? "?" : "&"}via=1&via=2`)
      expect(hot, query).toEqual(full)
      expect(hot.status, query).toBe(200)
    }
    for (const key of [undefined, "sk_test_unknown", `${shop.key}x`]) {
      const [hot, full] = await both(server(), key, `/payments/${payments[0]}`, "?via=router")
      expect(hot).toEqual(full)
      expect(hot.status).toBe(401)
      expect(new Map(hot.headers).get("www-authenticate")).toBe("Bearer")
    }
    const [hot] = await both(server(), shop.key, "/payments", "?via=1&via=2")
    expect(Option.some(new Map(hot.headers).get("ratelimit-limit"))).toEqual(Option.some("100000"))
  })
})

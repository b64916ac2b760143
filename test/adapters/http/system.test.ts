/** Routes outside the API contract: liveness, readiness, the OpenAPI document and the offline reference. */
import { HttpApi, OpenApi } from "@effect/platform"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { expect, it } from "vitest"
import { FilsApi } from "../../../adapters/http/Api.js"
import { rawFor } from "../../support/server.js"
import { describeStores, useServer } from "../../support/httpSuite.js"

/** Every (method, path) of the API contract, in OpenAPI's `{param}` form. */
const contractRoutes = (): Array<readonly [string, string]> => {
  const routes: Array<readonly [string, string]> = []
  HttpApi.reflect(FilsApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => routes.push([endpoint.method.toLowerCase(), endpoint.path.replace(/:(\w+)/g, "{$1}")])
  })
  return routes
}

describeStores("system routes", (variant) => {
  const server = useServer(variant)

  it("GET /health answers 200 without a key", async () => {
    const res = await rawFor(server()).get(`${server().origin}/health`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    expect(res.json).toEqual({ status: "ok" })
  })

  it("GET /favicon.ico answers 204 with no body, so browsers on the checkout page log no error", async () => {
    const res = await rawFor(server()).get(`${server().origin}/favicon.ico`)
    expect(res.status).toBe(204)
    expect(res.text).toBe("")
  })

  it("GET /ready answers 200 when the store answers", async () => {
    const res = await rawFor(server()).get(`${server().origin}/ready`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ status: "ready" })
  })

  it("GET /api/v1/openapi.json is OpenAPI 3.1 listing every path and method of the API", async () => {
    const res = await rawFor(server()).get("/api/v1/openapi.json")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    const spec = res.json
    expect(spec.openapi).toMatch(/^3\.1\.\d+$/)
    expect(spec.info).toMatchObject({ title: expect.any(String), version: "1.0.0" })
    const expected: Array<readonly [string, string]> = [
      ["get", "/api/v1/account"],
      ["get", "/api/v1/products"],
      ["post", "/api/v1/products"],
      ["get", "/api/v1/products/{id}"],
      ["patch", "/api/v1/products/{id}"],
      ["get", "/api/v1/customers"],
      ["post", "/api/v1/customers"],
      ["get", "/api/v1/customers/{id}"],
      ["patch", "/api/v1/customers/{id}"]
    ]
    const routes = contractRoutes()
    for (const route of expected) expect(routes).toContainEqual(route)
    for (const [method, path] of routes) {
      const operation = spec.paths?.[path]?.[method]
      expect(operation, `${method.toUpperCase()} ${path} is documented`).toBeDefined()
      expect(operation.security, `${method} ${path} requires the bearer key`).toEqual([{ bearer: [] }])
      expect(Object.keys(operation.responses)).toContain("200")
      expect(Object.keys(operation.responses)).toContain("401")
    }
    expect(Object.keys(spec.paths).sort()).toEqual([...new Set(routes.map(([, p]) => p))].sort())
    expect(spec.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" })
    // errors are documented as Fils' { code, message }, not the framework's decode error
    expect(Object.keys(spec.components.schemas)).not.toContain("HttpApiDecodeError")
    expect(JSON.stringify(spec)).not.toContain("HttpApiDecodeError")
    expect(spec.paths["/api/v1/products"].post.responses["422"]).toBeDefined()
  })

  it("GET /docs returns a self-contained HTML reference", async () => {
    const res = await rawFor(server()).get(`${server().origin}/docs`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^text\/html/)
    expect(res.text.slice(0, 200).toLowerCase()).toContain("<!doctype html>")
    expect(res.text).toContain("Fils API")
    // works offline: no script or stylesheet loaded from elsewhere
    expect(res.text).not.toMatch(/<script[^>]+src=["']https?:/i)
    expect(res.text).not.toMatch(/<link[^>]+href=["']https?:[^"']+\.css/i)
  })

  it("GET /docs is the page @effect/platform's HttpApiScalar makes: this API's document and Scalar's own script", async () => {
    const res = await rawFor(server()).get(`${server().origin}/docs`)
    const blocks = [...res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => [m[1]!, m[2]!] as const)
    expect(blocks.map(([attributes]) => attributes)).toEqual([` id="api-reference" type="application/json"`, "", ""])
    expect(JSON.parse(blocks[0]![1])).toEqual(JSON.parse(JSON.stringify(OpenApi.fromApi(FilsApi))))
    expect(blocks[1]![1]).toContain(`JSON.stringify({"_integration":"html","withDefaultFonts":false})`)
    const require = createRequire(import.meta.url)
    const scalar = join(dirname(require.resolve("@effect/platform/HttpApiScalar")), "internal", "httpApiScalar.js")
    expect(blocks[2]![1]).toBe((require(scalar) as { javascript: string }).javascript)
    // Asked again, the same page.
    expect((await rawFor(server()).get(`${server().origin}/docs`)).text).toBe(res.text)
  })
})

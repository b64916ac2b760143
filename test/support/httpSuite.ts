/** Vitest helpers for the HTTP suites: one suite per store, a server per `describe`, error-shape assertions. */
import { afterAll, beforeAll, describe, expect } from "vitest"
import { type RawResponse, startServer, type StoreVariant, storeVariants, type TestServer } from "./server.js"

/** Declares `suite` once per store variant, titled `<title> [<store>]`. */
export const describeStores = (title: string, suite: (variant: StoreVariant) => void): void => {
  for (const variant of storeVariants) describe(`${title} [${variant.name}]`, () => suite(variant))
}

/** A server for the enclosing `describe`: started before its first test, closed after its last. */
export const useServer = (variant: StoreVariant, config: Readonly<Record<string, string>> = {}): () => TestServer => {
  let server: TestServer | undefined
  beforeAll(async () => {
    server = await startServer(await variant.store(), config)
  })
  afterAll(async () => {
    await server?.close()
  })
  return () => {
    if (server === undefined) throw new Error("the test server did not start")
    return server
  }
}

/** Asserts an error response: its status, a JSON content type and a body of exactly `{ code, message }`. */
export const expectError = (res: RawResponse, status: number, code: string): string => {
  const shown = res.text.length > 300 ? `${res.text.slice(0, 300)}…` : res.text
  expect(res.status, shown).toBe(status)
  expect(res.headers.get("content-type") ?? "", shown).toMatch(/^application\/json/)
  expect(res.json, shown).toStrictEqual({ code, message: expect.any(String) })
  expect((res.json.message as string).length).toBeGreaterThan(0)
  return res.json.message as string
}

/**
 * `/docs` in headless Chromium: the reference renders the API's operations while nothing leaves the
 * machine (every request the page makes goes to this server), and it is protected like every other page.
 */
import type { Browser } from "playwright-core"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { ensureOutputDir, launchChromium } from "../support/browser.js"
import { memoryVariant, request } from "../support/server.js"
import { useServer } from "../support/httpSuite.js"

const server = useServer(memoryVariant)
let browser: Browser
beforeAll(async () => {
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
})

it("renders offline: every request stays on this server, no policy violation, the operations are listed", async () => {
  const page = await browser.newPage()
  const requested: Array<string> = []
  const violations: Array<string> = []
  page.on("request", (r) => requested.push(r.url()))
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text())
  })
  // Anything addressed elsewhere is refused here too, so the test itself never reaches out.
  await page.route((url) => url.hostname !== "127.0.0.1", (route) => route.abort())
  const response = await page.goto(`${server().origin}/docs`, { waitUntil: "networkidle" })
  expect(response?.status()).toBe(200)
  await page.getByText("Fils API", { exact: true }).first().waitFor({ timeout: 15_000 })
  for (const group of ["Products", "Customers", "Checkout sessions", "Payments", "Subscriptions", "Webhook endpoints", "Events"]) {
    await page.getByText(group, { exact: true }).first().waitFor({ timeout: 5_000 })
  }
  await page.screenshot({ path: join(ensureOutputDir(), "docs.png") })
  const elsewhere = requested.filter((u) => !u.startsWith(`${server().origin}/`) && !u.startsWith("data:") && !u.startsWith("blob:"))
  expect(elsewhere).toEqual([])
  expect(violations).toEqual([])
  await page.close()
})

it("sends a policy that allows only its own scripts and no framing", async () => {
  const res = await request(server(), "GET", `${server().origin}/docs`)
  expect(res.status).toBe(200)
  const csp = res.headers.get("content-security-policy") ?? ""
  expect(csp).toContain("default-src 'none'")
  expect(csp).toContain("frame-ancestors 'none'")
  expect(csp).toContain("connect-src 'self'")
  expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+' 'sha256-[A-Za-z0-9+/=]+' 'wasm-unsafe-eval';/)
  expect(csp).not.toMatch(/'unsafe-eval'/)
  expect(/script-src [^;]*/.exec(csp)?.[0]).not.toContain("unsafe-inline")
  expect(res.headers.get("x-frame-options")).toBe("DENY")
  expect(res.text).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/)
})

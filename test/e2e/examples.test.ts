/** Every example a user copies from runs, and says what it should. */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { describe, expect, it } from "vitest"
import { root } from "../support/cli.js"

const run = async (file: string) => {
  const child = spawn(process.execPath, ["--import", "tsx", file], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (c) => (stdout += c))
  child.stderr.on("data", (c) => (stderr += c))
  const [code] = await once(child, "exit")
  return { code: code as number | null, stdout, stderr }
}

describe("examples", () => {
  it("engine/catalog.ts lists the catalog it created, newest first", async () => {
    const { code, stdout, stderr } = await run("examples/engine/catalog.ts")
    expect(stderr).toBe("")
    expect(code).toBe(0)
    const lines = stdout.trim().split("\n")
    expect(lines[0]).toMatch(/^pdt_[0-9a-f]{32}  Monthly beans: AED 349\.00 every 1 month$/)
    expect(lines[1]).toMatch(/^pdt_[0-9a-f]{32}  Single origin, 250 g: AED 65\.00$/)
    expect(lines[2]).toMatch(/^customer cus_[0-9a-f]{32} <layla@example\.ae>; plan pdt_[0-9a-f]{32}$/)
  })

  it("engine/checkout.ts sells, declines, pays, refunds and reads the events", async () => {
    const { code, stdout, stderr } = await run("examples/engine/checkout.ts")
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(stdout).toMatch(/^session cks_[0-9a-f]{32}: AED 130\.00$/m)
    expect(stdout).toContain("first try: failed (card_declined)")
    // fee = round(13000 × 2.9 %) + 100 = 477 fils; net = 13000 − 477
    expect(stdout).toContain("second try: succeeded; fee AED 4.77, net AED 125.23; session complete")
    expect(stdout).toContain("refunded AED 20.00: payment is partially_refunded")
    expect(stdout).toContain("events (newest first): refund.succeeded, payment.succeeded, payment.failed")
  })

  it("engine/subscription.ts renews on the anchor day (28 Feb, 31 Mar) and ends at the period end", async () => {
    const { code, stdout, stderr } = await run("examples/engine/subscription.ts")
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(stdout).toContain("subscribed: active, period from 2027-01-31, next billing 2027-02-28")
    expect(stdout).toContain("after February's run: active, period from 2027-02-28, next billing 2027-03-31")
    expect(stdout).toContain("after March's run: active, period from 2027-03-31, next billing 2027-04-30")
    expect(stdout).toContain("at the period end: cancelled (requested) on 2027-04-30")
    expect(stdout).toContain(
      "events, oldest first: payment.succeeded, subscription.active, payment.succeeded, subscription.renewed, " +
        "payment.succeeded, subscription.renewed, subscription.cancelled"
    )
  })
})

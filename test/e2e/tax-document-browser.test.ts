/**
 * The printable tax invoice and credit note (adapters/http/documents/TaxDocumentPage.ts) in headless Chromium, served
 * as the product serves pages (its CSP, no script): every field the law lists in both languages, Arabic right-to-left,
 * no sideways scrolling on a phone, lines as cards there, and printed to an A4 PDF. Screenshots and the PDFs land in
 * test-output/ to be looked at.
 */
import { DateTime, Either } from "effect"
import { writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { creditNotePage, invoicePage, labels } from "../../adapters/http/documents/TaxDocumentPage.js"
import { newNonce } from "../../adapters/http/html/Document.js"
import type { AccountId, CreditNoteId, InvoiceId, PaymentId, RefundId } from "../../src/domain/Ids.js"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import type * as TaxProfile from "../../src/domain/TaxProfile.js"
import type { Trn } from "../../src/domain/Vat.js"
import { ensureOutputDir, launchChromium } from "../support/browser.js"

const hex = "0190f0c2a1b27c3d8e4f5a6b7c8d9e0f"
const supplier: TaxProfile.TaxProfile = {
  legal_name: "Dune Coffee Roasters LLC",
  legal_name_ar: "ديون لتحميص القهوة ذ.م.م",
  trn: "100123456700003" as Trn,
  address: { line1: "Warehouse 4, Al Quoz Industrial Area 3", line2: null, city: "Dubai", emirate: "DXB", country: "AE" },
  trade_licence: { number: "CN-1234567", authority: "Dubai Economy and Tourism" },
  vat_registered: true,
  prices_include_vat: true
}
const lines = TaxDocument.invoiceLines([
  { description: "Ethiopia Guji, 1 kg", quantity: 2, unit_amount: 18_900, category: "S", item_type: "G", item_code: null },
  { description: "Brewing course (online)", quantity: 1, unit_amount: 45_000, category: "S", item_type: "S", item_code: "999293" },
  { description: "Export shipping", quantity: 1, unit_amount: 7_500, category: "Z", item_type: "S", item_code: null }
], true)
const issuedAt = DateTime.unsafeMake("2026-11-27T08:30:00Z")
const invoice: TaxDocument.Invoice = {
  object: "invoice",
  invoice_id: `inv_${hex}` as InvoiceId,
  account_id: `acct_${hex}` as AccountId,
  livemode: false,
  number: TaxDocument.documentNumber("INV", 42),
  uuid: "0b9a5c1e-2f3d-4e5f-8a6b-7c8d9e0f1a2b",
  issued_at: issuedAt,
  currency: "AED",
  supplier,
  buyer: {
    customer_id: null,
    name: "Mariam Al Mansoori",
    email: "mariam@example.ae",
    business: {
      business_name: "Mansoori Trading LLC",
      trn: "100987654300003" as Trn,
      address: { line1: "Office 1203, Al Khan Tower", line2: null, city: "Sharjah", emirate: "SHJ", country: "AE" },
      peppol_endpoint: { scheme: "0235", id: "1009876543" }
    }
  },
  prices_include_vat: true,
  payment_id: `pay_${hex}` as PaymentId,
  subscription_id: null,
  kind: "full",
  supplied_at: issuedAt,
  continuous_supply: false,
  period: null,
  lines,
  totals: TaxDocument.totals(lines),
  card: { brand: "visa", last4: "4242" }
}
const credit = Either.getOrThrow(TaxDocument.credit(lines, [], 20_000))
const note: TaxDocument.CreditNote = {
  object: "credit_note",
  credit_note_id: `cn_${hex}` as CreditNoteId,
  account_id: invoice.account_id,
  livemode: false,
  number: TaxDocument.documentNumber("CN", 7),
  uuid: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
  issued_at: DateTime.unsafeMake("2026-11-29T10:00:00Z"),
  currency: "AED",
  supplier,
  buyer: invoice.buyer,
  prices_include_vat: true,
  payment_id: invoice.payment_id,
  subscription_id: null,
  invoice_id: invoice.invoice_id,
  invoice_number: invoice.number,
  invoice_issued_at: invoice.issued_at,
  refund_id: `ref_${hex}` as RefundId,
  reason: "Part of the order returned",
  reason_code: "DL8.61.1.D",
  ...credit
}

let server: Server
let base = ""
let browser: Browser
const output = ensureOutputDir()

beforeAll(async () => {
  server = createServer((request, response) => {
    const nonce = newNonce()
    const body = request.url === "/credit-note" ? creditNotePage(note, { nonce }) : invoicePage(invoice, { nonce })
    response.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": `default-src 'none'; style-src 'nonce-${nonce}'; frame-ancestors 'none'`
    })
    response.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => server?.close(resolve))
})

describe("printable tax documents in Chromium", () => {
  for (const [path, name] of [["/invoice", "invoice"], ["/credit-note", "credit-note"]] as const) {
    it(`${name}: both languages, every field, no sideways scroll at 390 px, lines as cards there, an A4 PDF`, async () => {
      for (const width of [390, 1280]) {
        const page = await browser.newPage({ viewport: { width, height: 900 } })
        const violations: Array<string> = []
        page.on("console", (m) => m.type() === "error" && violations.push(m.text()))
        await page.goto(`${base}${path}`)
        const text = await page.locator("main").innerText()
        const shown = name === "invoice" ? invoice : note
        for (const required of [
          name === "invoice" ? labels.taxInvoice.en : labels.taxCreditNote.en,
          name === "invoice" ? labels.taxInvoice.ar : labels.taxCreditNote.ar,
          shown.number,
          supplier.legal_name,
          supplier.legal_name_ar!,
          supplier.trn!,
          "Mansoori Trading LLC",
          "100987654300003",
          labels.trn.ar,
          "27 November 2026"
        ]) expect(text, `${name} at ${width} px shows ${required}`).toContain(required)
        if (name === "invoice") {
          expect(await page.getByTestId("payable").innerText()).toBe(`AED ${(invoice.totals.gross / 100).toFixed(2)}`)
          expect(await page.getByTestId("total-vat").innerText()).toBe(`AED ${(invoice.totals.vat / 100).toFixed(2)}`)
          expect(text).toContain("Zero rated")
        } else {
          expect(text).toContain(invoice.number)
          expect(await page.getByTestId("difference").innerText()).toBe("AED 200.00")
          expect(await page.getByTestId("vat-on-difference").innerText()).toBe(`AED ${(note.difference.vat / 100).toFixed(2)}`)
          expect(text).toContain("Part of the order returned")
        }
        // Arabic is marked as such and set right-to-left.
        const arabic = await page.locator("[lang=ar]").evaluateAll((els) => els.map((e) => getComputedStyle(e).direction))
        expect(arabic.length).toBeGreaterThan(10)
        expect(new Set(arabic)).toEqual(new Set(["rtl"]))
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
        const wide = await page.evaluate(() => Array.from(document.querySelectorAll("body *")).filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 3).map((e) => `${e.tagName}.${e.className} ${e.textContent?.slice(0, 40)}`))
        expect(widths.scroll, `${name} scrolls sideways at ${width} px: ${wide.join(" | ")}`).toBeLessThanOrEqual(widths.inner)
        if (width === 390) {
          // Each line a card: the table's header is hidden from sight and each cell carries its label.
          expect(await page.locator("table.lines tbody tr").first().evaluate((e) => getComputedStyle(e).display)).toBe("block")
        }
        await page.screenshot({ path: join(output, `tax-${name}-${width}.png`), fullPage: true })
        expect(violations).toEqual([])
        if (width === 1280) {
          await page.emulateMedia({ media: "print" })
          expect(await page.locator("footer").evaluate((e) => getComputedStyle(e).display)).toBe("none")
          await page.setViewportSize({ width: 794, height: 1123 })
          await page.screenshot({ path: join(output, `tax-${name}-print.png`), fullPage: true })
          const pdf = await page.pdf({ format: "A4", printBackground: true })
          writeFileSync(join(output, `tax-${name}.pdf`), pdf)
          expect(pdf.subarray(0, 5).toString()).toBe("%PDF-")
          const pages = (pdf.toString("latin1").match(/\/Type\s*\/Page[^s]/g) ?? []).length
          expect(pages, `${name} prints on one A4 page`).toBe(1)
        }
        await page.close()
      }
    }, 60_000)
  }
})

/**
 * Writes sample PINT AE e-invoices, to check Fils' writer against OpenPeppol's official validation artefacts outside
 * the repository (docs/einvoicing.md): `node --import tsx scripts/einvoice-samples.ts <directory> [count] [seed]`.
 *
 * The documents are random but cover each kind Fils writes: prices including and excluding VAT, a subscription's
 * continuous supply, a buyer with and without a TRN, no card, only exempt or out-of-scope lines (480 and 81), and
 * credit notes of every reason (a volume discount names no invoice). Each is checked by PintAeRules first: the
 * script says which documents Fils itself would refuse, so an official finding on any other is the writer's fault.
 */
import { FastCheck as fc } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { creditNoteXml, invoiceXml } from "../adapters/einvoice/PintAe.js"
import { check } from "../adapters/einvoice/PintAeRules.js"
import type * as TaxDocument from "../src/domain/TaxDocument.js"
import * as Docs from "../test/support/taxDocuments.js"

const [directory, countText = "12", seedText = "20260101"] = process.argv.slice(2)
if (directory === undefined) {
  console.error("usage: node --import tsx scripts/einvoice-samples.ts <directory> [count] [seed]")
  process.exit(2)
}
const count = Number(countText)
const seed = Number(seedText)
mkdirSync(directory, { recursive: true })

const eo = (lines: ReadonlyArray<{ readonly category: string }>) => lines.every((l) => l.category === "E" || l.category === "O")
const pick = <A>(arb: fc.Arbitrary<A>, n: number, i: number): ReadonlyArray<A> => fc.sample(arb, { seed: seed + i, numRuns: n })

const invoices: ReadonlyArray<[string, fc.Arbitrary<TaxDocument.Invoice>]> = [
  ["random", Docs.invoice({ licence: true })],
  ["including-vat", Docs.invoice().filter((d) => d.prices_include_vat && d.lines.some((l) => l.category === "S"))],
  ["excluding-vat", Docs.invoice().filter((d) => !d.prices_include_vat && d.lines.some((l) => l.category === "S"))],
  ["subscription", Docs.invoice().filter((d) => d.continuous_supply)],
  ["buyer-without-trn", Docs.invoice().filter((d) => d.buyer.business?.trn === null)],
  ["no-card", Docs.invoice().filter((d) => d.card === null)],
  ["exempt-or-out-of-scope", Docs.invoice({ licence: true }).filter((d) => eo(d.lines))]
]
const notes: ReadonlyArray<[string, fc.Arbitrary<TaxDocument.CreditNote>]> = [
  ["random", Docs.creditNote({ licence: true })],
  ["volume-discount", Docs.creditNote().filter((d) => d.reason_code === "VD")],
  ["subscription", Docs.creditNote().filter((d) => d.subscription_id !== null)],
  ["exempt-or-out-of-scope", Docs.creditNote({ licence: true }).filter((d) => eo(d.lines))]
]

let refused = 0
const write = (name: string, doc: TaxDocument.Invoice | TaxDocument.CreditNote) => {
  const file = join(directory, `${name}.xml`)
  writeFileSync(file, doc.object === "invoice" ? invoiceXml(doc) : creditNoteXml(doc))
  const findings = check(doc)
  if (findings.length > 0) refused++
  console.log(`${file}${findings.length === 0 ? "" : `  (Fils refuses it: ${findings.map((f) => f.rule).join(", ")})`}`)
}
invoices.forEach(([kind, arb], i) =>
  pick(arb, kind === "random" ? count : 1, i).forEach((doc, j) => write(`invoice-${kind}-${j + 1}`, doc))
)
notes.forEach(([kind, arb], i) =>
  pick(arb, kind === "random" ? count : 1, 100 + i).forEach((doc, j) => write(`credit-note-${kind}-${j + 1}`, doc))
)
console.log(`${refused} of the documents are refused by Fils' own rules`)

/**
 * UAE tax documents (Executive Regulation of Federal Decree-Law 8 of 2017): the tax invoice a taxable supply issues
 * (Art. 59: full, or simplified when the buyer gives no TRN) and the tax credit note a refund issues (Art. 60). The
 * arithmetic lives here: lines rounded per line to the nearest fils (Vat.ts), totals as the sums of their lines, and
 * credit notes that start from the value as altered by the notes before them.
 *
 * A refund of part of a mixed cart is apportioned across the invoice's lines by what each has left; each line's VAT
 * credited is the fall of `vatLeft` (its VAT in proportion to what it has left, rounded), so the notes of a payment
 * refunded in any number of steps credit exactly the invoice's VAT, never more, and no line ever goes negative.
 */
import { Either, Schema } from "effect"
import { Amount } from "./Money.js"
import * as Vat from "./Vat.js"

/** What a line sells: goods (`G`) or services (`S`), as PINT AE types an item. */
export const ItemType = Schema.Literal("G", "S").annotations({ identifier: "ItemType", description: "G goods, S services" })
export type ItemType = typeof ItemType.Type

/** A line as the sale gave it: the price as listed (including VAT or not, as the merchant's profile says). */
export interface LineInput {
  readonly description: string
  readonly quantity: number
  readonly unit_amount: number
  readonly category: Vat.Category
  readonly item_type: ItemType
  /** A service accounting code (services) or an HS code (goods), when the product has one. */
  readonly item_code: string | null
}

/** A line of a document: its amounts in fils (`net + vat = gross`), rounded once, per line. */
export const DocumentLine = Schema.Struct({
  description: Schema.String,
  quantity: Schema.Int.pipe(Schema.positive()),
  unit_amount: Amount,
  category: Vat.Category,
  rate_bps: Schema.Int.pipe(Schema.nonNegative()),
  item_type: ItemType,
  item_code: Schema.NullOr(Schema.String),
  net: Amount,
  vat: Amount,
  gross: Amount
}).annotations({ identifier: "DocumentLine" })
export type DocumentLine = typeof DocumentLine.Type

/** A document's totals: the sums of its lines. */
export const Totals = Schema.Struct({ net: Amount, vat: Amount, gross: Amount }).annotations({ identifier: "DocumentTotals" })
export type Totals = typeof Totals.Type

/** The lines of a sale, each through `Vat.line`. */
export const invoiceLines = (inputs: ReadonlyArray<LineInput>, pricesIncludeVat: boolean): ReadonlyArray<DocumentLine> =>
  inputs.map((input) => ({
    ...input,
    rate_bps: Vat.rateBps(input.category),
    ...Vat.line({ unitAmount: input.unit_amount, quantity: input.quantity, category: input.category, pricesIncludeVat })
  }))

export const totals = (lines: ReadonlyArray<{ readonly net: number; readonly vat: number; readonly gross: number }>): Totals =>
  Vat.sum(lines)

/** The VAT of each category on a document: what PINT AE's tax subtotals and the printed summary show. */
export const breakdown = (lines: ReadonlyArray<DocumentLine>): ReadonlyArray<{
  readonly category: Vat.Category
  readonly rate_bps: number
  readonly net: number
  readonly vat: number
}> => {
  const byCategory = new Map<Vat.Category, { category: Vat.Category; rate_bps: number; net: number; vat: number }>()
  for (const line of lines) {
    const entry = byCategory.get(line.category) ?? { category: line.category, rate_bps: line.rate_bps, net: 0, vat: 0 }
    byCategory.set(line.category, { ...entry, net: entry.net + line.net, vat: entry.vat + line.vat })
  }
  return [...byCategory.values()]
}

/**
 * Which invoice a sale gets: full when the buyer gave a TRN (it names the buyer), simplified otherwise, as Art. 59(2)
 * allows for a buyer that is not registered.
 */
export const invoiceKind = (buyerTrn: string | null): "full" | "simplified" => (buyerTrn === null ? "simplified" : "full")

/** A document number: gap-free per account and mode, `INV-000001`, `CN-000001`. */
export const documentNumber = (prefix: "INV" | "CN", n: number): string => `${prefix}-${String(n).padStart(6, "0")}`

/**
 * The VAT a line still holds when `left` fils of its gross are left: its VAT in proportion, rounded. All of it at
 * its whole gross, none at 0, and never less for more left: what a credit note credits is the fall of this.
 */
export const vatLeft = (line: { readonly vat: number; readonly gross: number }, left: number): number =>
  line.gross === 0 ? 0 : Number(Vat.roundHalfUp(BigInt(left) * BigInt(line.vat), BigInt(line.gross)))

/**
 * `amount` shared across `weights` in proportion, by largest remainder (ties to the earlier), each share at most its
 * weight: the shares sum to `amount` exactly (`amount` ≤ the weights' sum).
 */
export const apportion = (amount: number, weights: ReadonlyArray<number>): ReadonlyArray<number> => {
  const total = weights.reduce((a, b) => a + b, 0)
  if (total === 0) return weights.map(() => 0)
  const exact = weights.map((w) => (BigInt(amount) * BigInt(w)))
  const shares = exact.map((e) => Number(e / BigInt(total)))
  let rest = amount - shares.reduce((a, b) => a + b, 0)
  const order = exact
    .map((e, i) => ({ i, remainder: e % BigInt(total) }))
    .sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1))
  for (const { i } of order) {
    if (rest === 0) break
    if (shares[i]! < weights[i]!) {
      shares[i]!++
      rest--
    }
  }
  return shares
}

/** A credit note's line: what one invoice line gives back (its gross, and the VAT and net in it). */
export interface CreditLine {
  readonly description: string
  readonly category: Vat.Category
  readonly rate_bps: number
  readonly item_type: ItemType
  readonly item_code: string | null
  readonly net: number
  readonly vat: number
  readonly gross: number
}

/** The amounts of a credit note for `amount` fils returned on an invoice after the notes before it (Art. 60). */
export interface Credit {
  /** The invoice's gross. */
  readonly original_value: number
  /** What the invoice was worth after the notes before this one. */
  readonly value_before: number
  /** What it is worth after this one: the correct amount. */
  readonly correct_value: number
  /** What this note takes off (its gross), with the VAT and net in it. */
  readonly difference: Totals
  readonly lines: ReadonlyArray<CreditLine>
}

/** A credit note that cannot be issued: more than the invoice has left, or nothing. */
export class CreditRefused extends Schema.TaggedError<CreditRefused>()("CreditRefused", {
  message: Schema.String,
  value_left: Schema.Number
}) {}

/**
 * The credit of `amount` fils on an invoice's `lines`, after `previous` credits (their lines in the invoice's order).
 * Refused for nothing, or for more than the invoice has left.
 */
export const credit = (
  lines: ReadonlyArray<DocumentLine>,
  previous: ReadonlyArray<{ readonly lines: ReadonlyArray<{ readonly gross: number }> }>,
  amount: number
): Either.Either<Credit, CreditRefused> => {
  const original = totals(lines).gross
  const left = lines.map((line, i) => line.gross - previous.reduce((sum, note) => sum + (note.lines[i]?.gross ?? 0), 0))
  const valueBefore = left.reduce((a, b) => a + b, 0)
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > valueBefore) {
    return Either.left(
      new CreditRefused({
        message: valueBefore === 0
          ? "Nothing is left on this invoice to credit"
          : `A credit note can take off 1 to ${valueBefore} fils of this invoice`,
        value_left: valueBefore
      })
    )
  }
  const shares = apportion(amount, left)
  const creditLines = lines.map((line, i): CreditLine => {
    const gross = shares[i]!
    const vat = vatLeft(line, left[i]!) - vatLeft(line, left[i]! - gross)
    return {
      description: line.description,
      category: line.category,
      rate_bps: line.rate_bps,
      item_type: line.item_type,
      item_code: line.item_code,
      net: gross - vat,
      vat,
      gross
    }
  })
  return Either.right({
    original_value: original,
    value_before: valueBefore,
    correct_value: valueBefore - amount,
    difference: totals(creditLines),
    lines: creditLines
  })
}

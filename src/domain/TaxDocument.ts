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
import { AccountId, CreditNoteId, CustomerId, InvoiceId, PaymentId, RefundId, SubscriptionId } from "./Ids.js"
import { Amount, Currency } from "./Money.js"
import * as Pagination from "./Pagination.js"
import { Buyer, TaxProfile } from "./TaxProfile.js"
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
  /** Why an exempt (`E`) line is exempt: its e-invoice must say. */
  readonly exemption_code?: Vat.ExemptionCode
  /**
   * What a discount code takes off the line (`Discount.lineDiscounts`), in the same terms as its price: at most
   * `quantity` × `unit_amount`. None when absent.
   */
  readonly discount?: number
}

const lineFields = {
  description: Schema.String,
  quantity: Schema.Int.pipe(Schema.positive()),
  unit_amount: Amount,
  category: Vat.Category,
  rate_bps: Schema.Int.pipe(Schema.nonNegative()),
  item_type: ItemType,
  item_code: Schema.NullOr(Schema.String),
  exemption_code: Schema.optionalWith(Vat.ExemptionCode, { exact: true }),
  net: Amount,
  vat: Amount,
  gross: Amount
}

/**
 * A line of a document: its amounts in fils (`net + vat = gross`), rounded once, per line, on the line's price less
 * its `discount` (Art. 59(1)(j): a tax invoice shows any discount). Lines priced before discounts existed read 0.
 */
export const DocumentLine = Schema.Struct({
  ...lineFields,
  discount: Schema.optionalWith(Amount, { default: () => 0 }).annotations({
    description: "What a discount code took off the line's price (quantity × unit_amount, with or without VAT as " +
      "the document's prices_include_vat says); 0 when none"
  })
}).annotations({ identifier: "DocumentLine" })
export type DocumentLine = typeof DocumentLine.Type

/** A document's totals: the sums of its lines. */
export const Totals = Schema.Struct({ net: Amount, vat: Amount, gross: Amount }).annotations({ identifier: "DocumentTotals" })
export type Totals = typeof Totals.Type

/** The lines of a sale, each through `Vat.line`. */
export const invoiceLines = (inputs: ReadonlyArray<LineInput>, pricesIncludeVat: boolean): ReadonlyArray<DocumentLine> =>
  inputs.map((input) => ({
    ...input,
    discount: input.discount ?? 0,
    rate_bps: Vat.rateBps(input.category),
    ...Vat.line({
      unitAmount: input.unit_amount,
      quantity: input.quantity,
      category: input.category,
      pricesIncludeVat,
      discount: input.discount
    })
  }))

/** A priced line as the sale gave it again (its price, category and item; no discount): to price it anew. */
export const inputOf = (line: DocumentLine): LineInput => ({
  description: line.description,
  quantity: line.quantity,
  unit_amount: line.unit_amount,
  category: line.category,
  item_type: line.item_type,
  item_code: line.item_code,
  ...(line.exemption_code === undefined ? {} : { exemption_code: line.exemption_code })
})

/**
 * A sale's lines as priced when its amount was fixed (a checkout session, a subscription's period): kept with the
 * session, the subscription and the payment, so that the invoice shows exactly what was charged, whatever changes
 * in the catalog or the profile later.
 */
export const TaxLines = Schema.Struct({
  prices_include_vat: Schema.Boolean,
  lines: Schema.Array(DocumentLine).pipe(Schema.minItems(1))
}).annotations({ identifier: "TaxLines" })
export type TaxLines = typeof TaxLines.Type

/** `invoiceLines` with the convention they were priced under. */
export const price = (inputs: ReadonlyArray<LineInput>, pricesIncludeVat: boolean): TaxLines => ({
  prices_include_vat: pricesIncludeVat,
  lines: invoiceLines(inputs, pricesIncludeVat)
})

/** The same lines priced without their discounts: what they list, as a period's price (a subscription's). */
export const undiscounted = (priced: TaxLines): TaxLines =>
  priced.lines.some((l) => l.discount > 0) ? price(priced.lines.map(inputOf), priced.prices_include_vat) : priced

/**
 * The lines of a charge priced before the merchant charged VAT (a subscription started then): its whole amount as
 * one standard-rated service line, VAT inside it.
 */
export const chargedLines = (charge: { readonly description: string; readonly total_amount: number }): TaxLines =>
  price([{
    description: charge.description,
    quantity: 1,
    unit_amount: charge.total_amount,
    category: "S",
    item_type: "S",
    item_code: null
  }], true)

export const totals = (lines: ReadonlyArray<{ readonly net: number; readonly vat: number; readonly gross: number }>): Totals =>
  Vat.sum(lines)

/**
 * The VAT of each category on a document (an invoice's lines or a credit note's): what PINT AE's tax subtotals and the
 * printed summary show.
 */
export const breakdown = (
  lines: ReadonlyArray<{ readonly category: Vat.Category; readonly rate_bps: number; readonly net: number; readonly vat: number }>
): ReadonlyArray<{
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
export const CreditLine = Schema.Struct((({ quantity: _, unit_amount: __, ...rest }) => rest)(lineFields)).annotations({
  identifier: "CreditLine"
})
export type CreditLine = typeof CreditLine.Type

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
      ...(line.exemption_code === undefined ? {} : { exemption_code: line.exemption_code }),
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

/** Who a document is for: the customer as the payment named them, and the business details a buyer gave. */
export const DocumentBuyer = Schema.Struct({
  customer_id: Schema.NullOr(CustomerId),
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  business: Schema.NullOr(Buyer)
}).annotations({ identifier: "DocumentBuyer" })
export type DocumentBuyer = typeof DocumentBuyer.Type

/** The card a payment was made with, as a document shows it (PINT AE payment means 55, a masked card). */
export const DocumentCard = Schema.Struct({ brand: Schema.String, last4: Schema.String }).annotations({ identifier: "DocumentCard" })

const documentFields = {
  account_id: AccountId,
  livemode: Schema.Boolean,
  /** Gap-free per account and mode. */
  number: Schema.String,
  /** PINT AE's document UUID. */
  uuid: Schema.UUID,
  issued_at: Schema.DateTimeUtc,
  currency: Currency,
  /** The merchant's profile as it was when the document was issued: a document never changes. */
  supplier: TaxProfile,
  buyer: DocumentBuyer,
  prices_include_vat: Schema.Boolean,
  payment_id: PaymentId,
  subscription_id: Schema.NullOr(SubscriptionId)
}

/** A tax invoice (Art. 59), issued once for a payment that succeeded. */
export const Invoice = Schema.Struct({
  object: Schema.Literal("invoice"),
  invoice_id: InvoiceId,
  ...documentFields,
  kind: Schema.Literal("full", "simplified"),
  /** The date of supply, when not the date of issue (a renewal's period start). */
  supplied_at: Schema.DateTimeUtc,
  /** A continuous supply (a subscription's period), as PINT AE flags it. */
  continuous_supply: Schema.Boolean,
  /** The period a continuous supply covers. */
  period: Schema.NullOr(Schema.Struct({ start: Schema.DateTimeUtc, end: Schema.DateTimeUtc })),
  lines: Schema.Array(DocumentLine),
  totals: Totals,
  card: Schema.NullOr(DocumentCard)
}).annotations({ identifier: "Invoice" })
export type Invoice = typeof Invoice.Type

/**
 * Why a credit note was issued, by PINT AE's reason code (the cases of Art. 61(1) of the Decree-Law, `DL8.61.1.A`–`E`,
 * and `VD` for a volume discount).
 */
export const CreditReasonCode = Schema.Literal("DL8.61.1.A", "DL8.61.1.B", "DL8.61.1.C", "DL8.61.1.D", "DL8.61.1.E", "VD")
export type CreditReasonCode = typeof CreditReasonCode.Type

/** A tax credit note (Art. 60), issued once for a refund that succeeded, referencing its invoice. */
export const CreditNote = Schema.Struct({
  object: Schema.Literal("credit_note"),
  credit_note_id: CreditNoteId,
  ...documentFields,
  invoice_id: InvoiceId,
  invoice_number: Schema.String,
  invoice_issued_at: Schema.DateTimeUtc,
  refund_id: RefundId,
  reason: Schema.String,
  reason_code: CreditReasonCode,
  original_value: Amount,
  value_before: Amount,
  correct_value: Amount,
  difference: Totals,
  lines: Schema.Array(CreditLine)
}).annotations({ identifier: "CreditNote" })
export type CreditNote = typeof CreditNote.Type

/** A document's id, whichever kind it is. */
export const idOf = (d: Invoice | CreditNote): InvoiceId | CreditNoteId => (d.object === "invoice" ? d.invoice_id : d.credit_note_id)

/** A document's place in its list: newest issued first, as every list orders by creation. */
export const position = Pagination.byCreation<Invoice | CreditNote>((d) => d.issued_at, idOf)

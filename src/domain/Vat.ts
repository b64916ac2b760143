/**
 * UAE VAT as a cart line needs it (Federal Decree-Law 8 of 2017 and its Executive Regulation): a line's tax
 * category, its rate, and its net, VAT and gross amounts in fils, rounded per line to the nearest fils (half up),
 * whether the merchant's prices include VAT or not. The rules here are arithmetic; which category a supply falls in
 * is the merchant's decision, not Fils'.
 */
import { Schema } from "effect"

/**
 * A supply's VAT category, by the code PINT AE uses (UNCL5305): `S` standard rated (5 %), `Z` zero rated, `E`
 * exempt, `O` outside the scope of VAT.
 */
export const Category = Schema.Literal("S", "Z", "E", "O").annotations({
  identifier: "VatCategory",
  description: "VAT category: S standard rated (5 %), Z zero rated, E exempt, O outside the scope of VAT."
})
export type Category = typeof Category.Type

/**
 * Why a supply is exempt, by the code PINT AE uses: the exempt supplies of Art. 46 of the Decree-Law (`DL8.46.1`
 * certain financial services, `DL8.46.2` residential property, `DL8.46.3` bare land, `DL8.46.4` local passenger
 * transport). An exempt line's e-invoice must name one.
 */
export const ExemptionCode = Schema.Literal("DL8.46.1", "DL8.46.2", "DL8.46.3", "DL8.46.4").annotations({
  identifier: "VatExemptionCode",
  description:
    "Why an exempt supply is exempt (Art. 46): DL8.46.1 financial services, DL8.46.2 residential property, DL8.46.3 bare land, DL8.46.4 local passenger transport."
})
export type ExemptionCode = typeof ExemptionCode.Type

/** The rate of each category, in basis points (5 % = 500). */
export const rateBps = (category: Category): number => (category === "S" ? 500 : 0)

/** A line's amounts in fils: `net + vat = gross`, each a non-negative safe integer. */
export interface LineAmounts {
  readonly net: number
  readonly vat: number
  readonly gross: number
}

/** `numerator / denominator` rounded to the nearest integer, halves up; both non-negative, in exact integers. */
export const roundHalfUp = (numerator: bigint, denominator: bigint): bigint => (2n * numerator + denominator) / (2n * denominator)

/**
 * The amounts of `quantity` × `unitAmount` fils in `category`, less `discount` fils (a discount code's share of the
 * line, in the same terms as the price: at most the line's total). With prices including VAT the line's total is its
 * gross and the VAT is the part of it the rate makes up (gross × r / (1 + r)); excluding VAT the total is its net and
 * the VAT is added (net × r). Either way the VAT is on what is left after the discount, rounded once per line, to the
 * nearest fils.
 */
export const line = (props: {
  readonly unitAmount: number
  readonly quantity: number
  readonly category: Category
  readonly pricesIncludeVat: boolean
  readonly discount?: number | undefined
}): LineAmounts => {
  const total = BigInt(props.unitAmount) * BigInt(props.quantity) - BigInt(props.discount ?? 0)
  const bps = BigInt(rateBps(props.category))
  if (props.pricesIncludeVat) {
    const vat = roundHalfUp(total * bps, 10_000n + bps)
    return { net: Number(total - vat), vat: Number(vat), gross: Number(total) }
  }
  const vat = roundHalfUp(total * bps, 10_000n)
  return { net: Number(total), vat: Number(vat), gross: Number(total + vat) }
}

/** Lines summed: the document's totals are the sums of its lines' rounded amounts, never rounded again. */
export const sum = (lines: ReadonlyArray<LineAmounts>): LineAmounts =>
  lines.reduce((a, b) => ({ net: a.net + b.net, vat: a.vat + b.vat, gross: a.gross + b.gross }), {
    net: 0,
    vat: 0,
    gross: 0
  })

/** A UAE Tax Registration Number: 15 digits. */
export const Trn = Schema.String.pipe(
  Schema.pattern(/^[0-9]{15}$/, { message: () => "A TRN is 15 digits" }),
  Schema.brand("Trn"),
  Schema.annotations({ identifier: "Trn", description: "UAE Tax Registration Number: 15 digits." })
)
export type Trn = typeof Trn.Type

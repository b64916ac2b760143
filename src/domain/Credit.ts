/**
 * A subscription's credit (`credit_balance`, fils with VAT): money the customer already paid and has not used, such
 * as the unused time of a plan changed down (docs/subscriptions.md, "Credit"). It is no refund: it pays (part of) the
 * subscription's next charges before the card does. Applied to a charge it lowers what the charge's lines ask, so an
 * invoice shows the consideration actually charged, with its VAT on that amount.
 *
 * Every charge of a subscription goes through `lessCredit`: a renewal's (`Subscription.renewalCharge`) and a plan
 * change's (`PlanChange`). What it applies comes off the balance only once the charge succeeds, and what it could not
 * apply (at most one fils a line, see `listAmountFor`) stays on the balance: credit is never lost nor used twice.
 */
import { formatAmount } from "./Money.js"
import * as TaxDocument from "./TaxDocument.js"
import * as Vat from "./Vat.js"

/** What a charge asks of the card once credit has paid what it can. */
export interface Charge {
  /** Fils charged to the card: the lines' gross when there are lines. */
  readonly amount: number
  /** The lines charged, with their VAT (null when the merchant does not charge VAT). */
  readonly taxLines: TaxDocument.TaxLines | null
  /** Fils of credit the charge uses: its full price less `amount`. */
  readonly creditApplied: number
}

/**
 * The smallest list price of one unit whose line's gross is at least `target` fils: the price itself when prices
 * include VAT; excluding VAT, the net whose net plus rounded VAT first reaches `target` (a 5 % line's gross moves by 1
 * or 2 fils a fils of net, so it is at most one fils over).
 */
export const listAmountFor = (target: number, category: Vat.Category, pricesIncludeVat: boolean): number => {
  const gross = (list: number) => Vat.line({ unitAmount: list, quantity: 1, category, pricesIncludeVat }).gross
  if (pricesIncludeVat || Vat.rateBps(category) === 0) return target
  let list = Math.floor((target * 10_000) / (10_000 + Vat.rateBps(category)))
  while (gross(list) < target) list++
  while (list > 0 && gross(list - 1) >= target) list--
  return list
}

/**
 * `amount` (or `lines`, whose gross it is) less up to `credit` fils: each line takes its share of the credit
 * (in proportion to its gross) and is priced again as one unit at the list price that leaves at least its gross less
 * that share (`listAmountFor`), its VAT rounded once; a line's discount stays on it, as it was. A line the credit does not reach is kept as it was. `note`
 * names the credit in a reduced line's description. Never negative: the credit used is at most the price.
 */
export const lessCredit = (props: {
  readonly amount: number
  readonly taxLines: TaxDocument.TaxLines | null
  readonly credit: number
  readonly note: (applied: number) => string
}): Charge => {
  const usable = Math.max(0, Math.min(props.credit, props.amount))
  if (usable === 0) return { amount: props.amount, taxLines: props.taxLines, creditApplied: 0 }
  if (props.taxLines === null) {
    return { amount: props.amount - usable, taxLines: null, creditApplied: usable }
  }
  const { lines, prices_include_vat } = props.taxLines
  const shares = TaxDocument.apportion(usable, lines.map((l) => l.gross))
  const charged = lines.map((line, i): TaxDocument.DocumentLine => {
    const share = shares[i]!
    if (share === 0) return line
    const unitAmount = listAmountFor(line.gross - share, line.category, prices_include_vat)
    const left = Vat.line({ unitAmount, quantity: 1, category: line.category, pricesIncludeVat: prices_include_vat }).gross
    // A share of a fils or so that no list price reaches (the VAT rounds it back): the line stays as it was, rather
    // than say "less AED 0.00 credit".
    if (left === line.gross) return line
    const [priced] = TaxDocument.invoiceLines([{
      description: `${line.description}${line.quantity > 1 ? ` × ${line.quantity}` : ""}, ${props.note(line.gross - left)}`,
      quantity: 1,
      // A discount stays on its line (a tax invoice shows it): the unit is what is left after the credit, before the
      // discount, so the line's amount less its discount is the credit-reduced price, as without a discount.
      unit_amount: unitAmount + line.discount,
      category: line.category,
      item_type: line.item_type,
      item_code: line.item_code,
      ...(line.exemption_code === undefined ? {} : { exemption_code: line.exemption_code }),
      ...(line.discount === 0 ? {} : { discount: line.discount })
    }], prices_include_vat)
    return priced!
  })
  if (charged.every((line, i) => line === lines[i])) return { amount: props.amount, taxLines: props.taxLines, creditApplied: 0 }
  const amount = TaxDocument.totals(charged).gross
  return {
    amount,
    taxLines: { prices_include_vat, lines: charged },
    creditApplied: props.amount - amount
  }
}

/** "less AED 10.00 credit": the note of a charge that only spends the balance. */
export const balanceNote = (currency: string) => (applied: number): string => `less ${formatAmount(applied, currency)} credit`

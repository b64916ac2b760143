/**
 * Checkout sessions (docs/decisions.md §2): a priced cart the customer pays on the hosted page.
 *
 *   open → complete (a payment succeeded) | expired (24 h passed)
 *
 * Both end states are final, and a session past `expires_at` reads as expired before any job has run.
 */
import { DateTime, Duration, Either, JSONSchema, ParseResult, Schema } from "effect"
import * as Discount from "./Discount.js"
import { InvalidRequest, InvalidState } from "./Errors.js"
import { CustomerName, Email, PhoneNumber } from "./Customer.js"
import { AccountId, CheckoutSessionId, CustomerId, PaymentId, ProductId, SubscriptionId } from "./Ids.js"
import * as Pagination from "./Pagination.js"
import { Metadata } from "./Metadata.js"
import { Text } from "./Text.js"
import { httpUrlJsonSchema, parseHttpUrl } from "./Url.js"
import { Amount, Currency } from "./Money.js"
import { lineInput, type Product, TrialPeriodDays } from "./Product.js"
import * as TaxDocument from "./TaxDocument.js"

export const lifetime = Duration.hours(24)
export const maxLines = 50
export const maxQuantity = 1000

export const SessionKind = Schema.Literal("payment", "subscription")
export type SessionKind = typeof SessionKind.Type
export const SessionStatus = Schema.Literal("open", "complete", "expired")
export type SessionStatus = typeof SessionStatus.Type

export const CartLine = Schema.Struct({
  product_id: ProductId,
  name: Schema.String,
  quantity: Schema.Int,
  unit_amount: Amount
}).annotations({ identifier: "CartLine" })
export type CartLine = typeof CartLine.Type

export const SessionCustomer = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  email: Schema.String,
  phone_number: Schema.NullOr(Schema.String)
}).annotations({ identifier: "SessionCustomer" })
export type SessionCustomer = typeof SessionCustomer.Type

const resourceFields = {
  object: Schema.Literal("checkout_session"),
  session_id: CheckoutSessionId,
  kind: SessionKind,
  status: SessionStatus,
  checkout_url: Schema.String,
  total_amount: Amount,
  /** The VAT in `total_amount`, when the merchant charges VAT (docs/tax-documents.md); null otherwise. */
  tax: Schema.NullOr(Amount),
  currency: Currency,
  product_cart: Schema.Array(CartLine),
  /** The discount code applied (at most one): what it took off `total_amount`'s prices (docs/discounts.md). */
  discounts: Schema.Array(Discount.AppliedDiscount),
  customer: Schema.NullOr(SessionCustomer),
  return_url: Schema.NullOr(Schema.String),
  payment_id: Schema.NullOr(PaymentId),
  subscription_id: Schema.NullOr(SubscriptionId),
  /**
   * The trial the subscription starts with, in days (the product's, or `subscription_data.trial_period_days`); null
   * without one. With a trial, `total_amount` is what the trial charges today (0 when it is free).
   */
  trial_period_days: Schema.NullOr(Schema.Int),
  metadata: Metadata,
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  expires_at: Schema.DateTimeUtc,
  completed_at: Schema.NullOr(Schema.DateTimeUtc)
}
export const CheckoutSessionResource = Schema.Struct(resourceFields).annotations({ identifier: "CheckoutSession" })
/** The stored session: the resource, its owner and the customer record it is tied to (if any yet). */
export const CheckoutSession = Schema.Struct({
  ...resourceFields,
  account_id: AccountId,
  customer_id: Schema.NullOr(CustomerId),
  /**
   * Random per session, embedded in the page's form: a submission from another site cannot know it. Once the payer's
   * submission is through, the digest of the payer's receipt key instead (`Checkout.bindReceipt`).
   */
  form_token: Schema.String,
  /** The cart's lines with their VAT, as priced at creation: the payment (and its invoice) carries them. */
  tax_lines: Schema.NullOr(TaxDocument.TaxLines),
  /**
   * With a trial, the lines of a period after it with their VAT (what the subscription then renews at), when the
   * merchant charges VAT; null otherwise (`tax_lines` are then a period's).
   */
  period_tax_lines: Schema.NullOr(TaxDocument.TaxLines)
})
export type CheckoutSession = typeof CheckoutSession.Type

/** The refusal of a checkout form whose token is not the session's (another page's, or an old one). */
export const staleFormMessage = "This form is out of date; reload the page and try again."

/** Whether `s` is an absolute http(s) URL with a plain host (it ends up in the page's CSP `form-action`). */
export const isReturnUrl = (s: string): boolean => Either.isRight(parseReturnUrl(s))

const parseReturnUrl = (s: string): Either.Either<URL, string> =>
  Either.filterOrLeft(
    parseHttpUrl(s),
    (url) => /^[A-Za-z0-9.\-[\]:]+$/.test(url.host),
    () => "must have a plain host name (letters, digits, dots and hyphens; an IDN in its xn-- form)"
  )

/** `return_url` as sent, refused unless it is an absolute http(s) URL; decoded to the parser's normalized form. */
export const ReturnUrl = Schema.transformOrFail(
  Text(1, 2048).annotations({ jsonSchema: httpUrlJsonSchema }),
  Schema.String,
  {
    strict: true,
    decode: (s, _, ast) =>
      Either.match(parseReturnUrl(s), {
        onLeft: (reason) => ParseResult.fail(new ParseResult.Type(ast, s, reason)),
        onRight: (url) => ParseResult.succeed(url.href)
      }),
    encode: ParseResult.succeed
  }
)

export const CartLineInput = Schema.Struct({
  // Any string (an unknown product is named in the error), documented with the id's shape.
  product_id: Schema.String.annotations({ jsonSchema: { type: "string", pattern: "^pdt_[0-9a-f]{32}$" } }),
  quantity: Schema.optional(Schema.Int.pipe(Schema.between(1, maxQuantity)))
}).annotations({ identifier: "CartLineInput", parseOptions: { onExcessProperty: "error" } })

/** A cart line as a merchant sends it, priced from the product at creation. */
export interface PricedLine {
  readonly product: Product
  readonly quantity: number
}

/** `subscription` when the cart is exactly one line of a recurring product; otherwise `payment`. */
export const kindOf = (lines: ReadonlyArray<PricedLine>): SessionKind =>
  lines.length === 1 && lines[0]!.product.billing === "recurring" ? "subscription" : "payment"

/** The customer a session is tied to, as the session shows it. */
export interface CustomerOnFile {
  readonly customer_id: CustomerId
  readonly name: string | null
  readonly email: string
  readonly phone_number: string | null
}

/** A new open session for a priced cart (`price`), due to expire `lifetime` after `now`. */
export const open = (props: {
  readonly id: CheckoutSessionId
  readonly accountId: AccountId
  readonly livemode: boolean
  readonly checkoutUrl: string
  readonly kind: SessionKind
  readonly priced: Priced
  readonly customer: CustomerOnFile | undefined
  readonly returnUrl: string | null
  readonly metadata: Metadata
  readonly formToken: string
  readonly now: DateTime.Utc
}): CheckoutSession => ({
  object: "checkout_session",
  session_id: props.id,
  account_id: props.accountId,
  livemode: props.livemode,
  kind: props.kind,
  status: "open",
  checkout_url: props.checkoutUrl,
  total_amount: props.priced.total,
  tax: props.priced.taxLines === null ? null : TaxDocument.totals(props.priced.taxLines.lines).vat,
  currency: props.priced.currency,
  product_cart: props.priced.lines,
  discounts: props.priced.discounts,
  customer: props.customer === undefined ? null : sessionCustomer(props.customer),
  customer_id: props.customer?.customer_id ?? null,
  return_url: props.returnUrl,
  payment_id: null,
  subscription_id: null,
  trial_period_days: props.priced.trial?.days ?? null,
  metadata: props.metadata,
  created_at: props.now,
  expires_at: DateTime.addDuration(props.now, lifetime),
  completed_at: null,
  form_token: props.formToken,
  tax_lines: props.priced.taxLines,
  period_tax_lines: props.priced.periodTaxLines
})

const sessionCustomer = (c: CustomerOnFile): SessionCustomer => ({
  name: c.name,
  email: c.email,
  phone_number: c.phone_number
})

/** A subscription cart's trial: its days, and what it charges per unit today (0: a free trial). */
export interface Trial {
  readonly days: number
  readonly unitAmount: number
}

/**
 * The trial a subscription starts with: the product's, or the session's `subscription_data.trial_period_days`
 * (0 gives none; a paid product keeps its `trial_amount` for the days given). Only a cart that starts a subscription
 * takes the override.
 */
export const trialOf = (
  kind: SessionKind,
  lines: ReadonlyArray<PricedLine>,
  override: number | null | undefined
): Either.Either<Trial | null, InvalidRequest> => {
  if (kind !== "subscription") {
    return override == null ? Either.right(null) : Either.left(
      new InvalidRequest({
        message: "subscription_data.trial_period_days applies only to a cart of exactly one recurring product " +
          "(the cart that starts a subscription)"
      })
    )
  }
  const product = lines[0]!.product
  const days = override ?? product.trial_period_days
  // A paid trial cut to 0 days is no trial: the first period is charged in full.
  return Either.right(days === 0 ? null : { days, unitAmount: product.trial_amount ?? 0 })
}

/**
 * A priced cart: its lines as listed, what the checkout charges today (with its VAT lines, for a merchant that charges
 * VAT), and the trial it starts.
 */
export interface Priced {
  readonly lines: ReadonlyArray<CartLine>
  /** What the checkout charges: the lines less the discount, or the trial's price; with VAT when prices exclude it. */
  readonly total: number
  readonly currency: Currency
  readonly taxLines: TaxDocument.TaxLines | null
  readonly discounts: ReadonlyArray<Discount.AppliedDiscount>
  readonly trial: Trial | null
  /** With a trial and VAT: a period's lines after the trial. */
  readonly periodTaxLines: TaxDocument.TaxLines | null
}

/**
 * What a cart charges with `discount` (or none): each line's share of it (`Discount.lineDiscounts`) comes off that
 * line, and its VAT is worked out on what is left (`TaxDocument.price`), so the lines add up to the charge to the
 * fils. `inputs` are the cart's lines as VAT prices them (none: the merchant charges no VAT).
 */
const discounted = (
  cart: ReadonlyArray<CartLine>,
  vat: { readonly inputs: ReadonlyArray<TaxDocument.LineInput>; readonly pricesIncludeVat: boolean } | null,
  discount: Discount.Discount | null
) => {
  const listed = cart.map((l) => l.unit_amount * l.quantity)
  const off = discount === null
    ? listed.map(() => 0)
    : Discount.lineDiscounts(discount, cart.map((l, i) => ({ amount: listed[i]!, eligible: Discount.appliesTo(discount, l.product_id) })))
  const amountOff = off.reduce((a, b) => a + b, 0)
  const taxLines = vat === null
    ? null
    : TaxDocument.price(vat.inputs.map((input, i) => (off[i] === 0 ? input : { ...input, discount: off[i]! })), vat.pricesIncludeVat)
  return {
    total: taxLines === null ? listed.reduce((a, b) => a + b, 0) - amountOff : TaxDocument.totals(taxLines.lines).gross,
    taxLines,
    discounts: discount === null ? [] : [Discount.applied(discount, amountOff)]
  }
}

/**
 * Prices a cart: only active products, one currency, a total that stays a safe integer. A merchant that charges VAT
 * (`vat`, from its tax profile) gets the lines with their VAT, rounded per line; the total is then their gross. A
 * `discount` (already found redeemable for this cart) comes off the lines it applies to. With a trial, the checkout
 * charges the trial's price instead (nothing, for a free one), and a period's lines are kept for the subscription's
 * renewals; a discount code is redeemed with it but takes nothing off the trial (`trialDiscounts`).
 */
export const price = (
  lines: ReadonlyArray<PricedLine>,
  vat: { readonly pricesIncludeVat: boolean } | null,
  discount: Discount.Discount | null = null,
  trial: Trial | null = null
): Either.Either<Priced, InvalidRequest> => {
  if (lines.length < 1 || lines.length > maxLines) {
    return Either.left(new InvalidRequest({ message: `product_cart must have 1 to ${maxLines} lines` }))
  }
  const inactive = lines.find((l) => l.product.status !== "active")
  if (inactive !== undefined) {
    return Either.left(
      new InvalidRequest({
        message: `Product ${inactive.product.product_id} is ${inactive.product.status}; only active products can be sold`
      })
    )
  }
  const badQuantity = lines.findIndex((l) => !Number.isInteger(l.quantity) || l.quantity < 1 || l.quantity > maxQuantity)
  if (badQuantity !== -1) {
    return Either.left(
      new InvalidRequest({ message: `product_cart.${badQuantity}.quantity must be an integer from 1 to ${maxQuantity}` })
    )
  }
  const currency = lines[0]!.product.currency
  let total = 0
  const priced: Array<CartLine> = []
  for (const { product, quantity } of lines) {
    total += product.price * quantity
    priced.push({ product_id: product.product_id, name: product.name, quantity, unit_amount: product.price })
  }
  const inputs = lines.map(({ product, quantity }) => lineInput(product, quantity))
  // Made only when refused: an error built up front (its fields checked, its stack captured) cost every checkout
  // about 25 µs.
  const tooLarge = () => Either.left(new InvalidRequest({ message: "The cart total is too large" }))
  if (!Number.isSafeInteger(total)) return tooLarge()
  if (trial !== null) {
    const periodLines = vat === null ? null : TaxDocument.price(inputs, vat.pricesIncludeVat)
    const trialLines = vat === null
      ? null
      : TaxDocument.price(inputs.map((input) => ({ ...input, unit_amount: trial.unitAmount })), vat.pricesIncludeVat)
    const today = trialLines === null ? trial.unitAmount * lines[0]!.quantity : TaxDocument.totals(trialLines.lines).gross
    const period = periodLines === null ? total : TaxDocument.totals(periodLines.lines).gross
    if (!Number.isSafeInteger(today) || !Number.isSafeInteger(period)) return tooLarge()
    return Either.right({
      lines: priced,
      total: today,
      currency,
      taxLines: trialLines,
      discounts: trialDiscounts(discount),
      trial,
      periodTaxLines: periodLines
    })
  }
  const charged = discounted(priced, vat === null ? null : { inputs, pricesIncludeVat: vat.pricesIncludeVat }, discount)
  if (!Number.isSafeInteger(charged.total)) return tooLarge()
  return Either.right({
    lines: priced,
    total: charged.total,
    currency,
    taxLines: charged.taxLines,
    discounts: charged.discounts,
    trial: null,
    periodTaxLines: null
  })
}

/**
 * The discount a trial's checkout redeems: nothing off the trial (its price is the trial's, free or paid); its cycles
 * count the payments after it, at the plan's price (`Discount.forSubscription`).
 */
const trialDiscounts = (discount: Discount.Discount | null): ReadonlyArray<Discount.AppliedDiscount> =>
  discount === null ? [] : [Discount.applied(discount, 0)]

/** A session whose checkout charges nothing: a free trial, where the card is only saved. */
export const isFreeTrial = (session: CheckoutSession): boolean =>
  session.trial_period_days !== null && session.total_amount === 0

/** What each period after the trial charges (with VAT), for a subscription session; its total otherwise. */
export const periodAmount = (session: CheckoutSession): number =>
  session.trial_period_days === null
    ? session.total_amount
    : session.period_tax_lines !== null
    ? TaxDocument.totals(session.period_tax_lines.lines).gross
    : session.product_cart.reduce((sum, line) => sum + line.unit_amount * line.quantity, 0)

/**
 * The open session priced again with `discount` instead of the one it has (none: without a discount), from the prices
 * it was created with: the code a customer types on the hosted page (already found redeemable for its cart).
 */
export const withDiscount = (session: CheckoutSession, discount: Discount.Discount | null): CheckoutSession => {
  if (session.trial_period_days !== null) return { ...session, discounts: trialDiscounts(discount) }
  const vat = session.tax_lines === null
    ? null
    : { inputs: session.tax_lines.lines.map(TaxDocument.inputOf), pricesIncludeVat: session.tax_lines.prices_include_vat }
  const charged = discounted(session.product_cart, vat, discount)
  return {
    ...session,
    total_amount: charged.total,
    tax: charged.taxLines === null ? null : TaxDocument.totals(charged.taxLines.lines).vat,
    tax_lines: charged.taxLines,
    discounts: charged.discounts
  }
}

/** The product ids of a cart, to ask whether a discount fits it. */
export const productIdsOf = (session: { readonly product_cart: ReadonlyArray<CartLine> }): ReadonlyArray<ProductId> =>
  session.product_cart.map((l) => l.product_id)

/**
 * The status as of `now`: an open session past its expiry reads as expired, unless a charge is still `processing`
 * (`pending`): that one may yet complete it, and a session must never read expired and later complete.
 */
export const statusAt = (session: CheckoutSession, now: DateTime.Utc, pending = false): SessionStatus =>
  session.status === "open" && !pending && DateTime.greaterThanOrEqualTo(now, session.expires_at)
    ? "expired"
    : session.status

/** The session as it reads at `now` (see `statusAt`). */
export const asOf = (session: CheckoutSession, now: DateTime.Utc, pending = false): CheckoutSession => {
  const status = statusAt(session, now, pending)
  return status === session.status ? session : { ...session, status }
}

/** Whether the customer can still pay it; refused with the reason otherwise. */
export const ensurePayable = (session: CheckoutSession, now: DateTime.Utc): Either.Either<CheckoutSession, InvalidState> => {
  const status = statusAt(session, now)
  return status === "open"
    ? Either.right(session)
    : Either.left(new InvalidState({ message: `Checkout session ${session.session_id} is ${status}` }))
}

/** What can happen to a session after its creation. */
export type SessionCommand =
  /**
   * A payment of the session succeeded: money was taken, so it completes even past its expiry (a charge that was
   * still `processing` then kept it from expiring; see `statusAt`). A free trial completes with no payment, when its
   * subscription starts.
   */
  | {
    readonly _tag: "Complete"
    readonly paymentId: PaymentId | null
    readonly subscriptionId: SubscriptionId | null
    /**
     * Who paid: a session created without a customer takes this one (the form's, of the attempt that succeeded); a
     * session created for one keeps its own. Never before: a declined try's details are not the session's.
     */
    readonly payer: CustomerOnFile | null
  }
  /** Its 24 hours passed with no charge in flight. */
  | { readonly _tag: "Expire" }

/**
 * The session's state machine: `open → complete | expired`, both final. A command that does not apply to the
 * session as it stands (already complete or expired, or not yet due to expire) is refused with `InvalidState`, and
 * the caller decides whether that matters (a second success for one session changes nothing).
 */
export const transition = (
  session: CheckoutSession,
  command: SessionCommand,
  now: DateTime.Utc
): Either.Either<CheckoutSession, InvalidState> => {
  if (session.status !== "open") {
    return Either.left(new InvalidState({ message: `Checkout session ${session.session_id} is ${session.status}` }))
  }
  switch (command._tag) {
    case "Complete":
      return Either.right({
        ...session,
        ...(session.customer_id === null && command.payer !== null
          ? { customer_id: command.payer.customer_id, customer: sessionCustomer(command.payer) }
          : {}),
        status: "complete",
        payment_id: command.paymentId,
        subscription_id: command.subscriptionId,
        completed_at: now
      })
    case "Expire":
      return statusAt(session, now) === "expired"
        ? Either.right({ ...session, status: "expired" })
        : Either.left(new InvalidState({ message: `Checkout session ${session.session_id} is not due to expire` }))
  }
}

const customerIdInput = Schema.String.annotations({ jsonSchema: { type: "string", pattern: "^cus_[0-9a-f]{32}$" } })
const CustomerById = Schema.Struct({ customer_id: customerIdInput })
const CustomerDetails = Schema.Struct({
  email: Email,
  name: Schema.optional(Schema.NullOr(CustomerName)),
  phone_number: Schema.optional(Schema.NullOr(PhoneNumber))
})
const customerShapes = Schema.Union(
  CustomerById.annotations({ parseOptions: { onExcessProperty: "error" } }),
  CustomerDetails.annotations({ parseOptions: { onExcessProperty: "error" } })
)

/**
 * A session's `customer`: `{ customer_id }` or `{ email, name?, phone_number? }`. Read as one object with every field
 * first, so that a refusal is about the fields sent: decoded as the union, each shape would complain, and a good
 * `email` would be called an unknown field of the other. Documented as the union it is.
 */
const CustomerInput = Schema.Struct({
  customer_id: Schema.optional(customerIdInput),
  email: Schema.optional(Email),
  name: Schema.optional(Schema.NullOr(CustomerName)),
  phone_number: Schema.optional(Schema.NullOr(PhoneNumber))
}).pipe(
  Schema.filter((c) =>
    c.customer_id !== undefined
      ? (c.email === undefined && c.name === undefined && c.phone_number === undefined) ||
        "must be either { customer_id } alone or { email, name, phone_number }, not both"
      : c.email !== undefined || { path: ["email"], message: "is required (or give customer_id for a customer on file)" }
  ),
  Schema.annotations({ parseOptions: { onExcessProperty: "error" } }),
  Schema.transform(Schema.typeSchema(customerShapes), {
    strict: true,
    decode: ({ customer_id, ...details }) =>
      customer_id !== undefined ? { customer_id } : (details as typeof CustomerDetails.Type),
    encode: (shape) => shape
  }),
  // The union's JSON Schema, its named parts referred to where the API's OpenAPI document keeps them.
  Schema.annotations({
    jsonSchema: JSONSchema.fromAST(customerShapes.ast, { definitions: {}, definitionPath: "#/components/schemas/" })
  })
)

export const CheckoutSessionCreate = Schema.Struct({
  product_cart: Schema.Array(CartLineInput).pipe(Schema.minItems(1), Schema.maxItems(maxLines)),
  customer: Schema.optional(CustomerInput),
  return_url: Schema.optional(ReturnUrl),
  /** A discount code to apply (docs/discounts.md): any case; one that cannot be redeemed for this cart is refused. */
  discount_code: Schema.optional(Schema.NullOr(Text(1, 100))),
  metadata: Schema.optional(Metadata),
  /** For a cart that starts a subscription (Dodo's `subscription_data`). */
  subscription_data: Schema.optional(Schema.Struct({
    trial_period_days: Schema.optional(Schema.NullOr(TrialPeriodDays)).annotations({
      description: "Overrides the product's trial: 0 (none) to 365 days; null keeps the product's. Only for a cart " +
        "of exactly one recurring product."
    })
  }).annotations({ identifier: "SubscriptionData", parseOptions: { onExcessProperty: "error" } }))
}).annotations({ identifier: "CheckoutSessionCreate" })
export type CheckoutSessionCreate = typeof CheckoutSessionCreate.Type

/** A session's place in a newest-first list. */
export const position = Pagination.byCreation<CheckoutSession>((s) => s.created_at, (s) => s.session_id)

/** The hosted page's form (docs/decisions.md §3): Luhn, expiry in the future, 3–4 digit CVC, e-mail, optional E.164 phone. */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Either, FastCheck, Redacted } from "effect"
import * as CheckoutForm from "../../src/domain/CheckoutForm.js"
import { isCardNumber } from "../../src/domain/Card.js"
import { assertHidden } from "../support/secrets.js"

/** A fixed "now": 21 November 2026. */
const now = DateTime.unsafeMake("2026-11-21T10:00:00.000Z")

/** A script's form: the expiry as `exp_month` and `exp_year` (the hosted page sends one `exp` field instead). */
const valid: Required<Omit<CheckoutForm.SubmittedForm, "exp">> = {
  name: "Layla Haddad",
  email: "layla@example.ae",
  phone_number: "+971501234567",
  card_number: "4242 4242 4242 4242",
  exp_month: "12",
  exp_year: "2030",
  cvc: "123",
  business_name: "",
  business_trn: ""
}

/** The form as a page submits it: its fields as typed, read into the engine's input. */
const validated = (input: CheckoutForm.SubmittedForm) => CheckoutForm.validate(CheckoutForm.fromSubmitted(input), now)
const errorsOf = (input: CheckoutForm.SubmittedForm): CheckoutForm.FieldErrors => {
  const r = validated(input)
  return Either.isLeft(r) ? r.left : {}
}
const accepted = (input: CheckoutForm.SubmittedForm) => {
  const r = validated(input)
  assert.isTrue(Either.isRight(r), `expected acceptance, got ${JSON.stringify(Either.isLeft(r) ? r.left : null)}`)
  return Either.getOrThrow(r)
}
const errorKeys = (input: CheckoutForm.SubmittedForm) => Object.keys(errorsOf(input)).sort()

/** docs/decisions.md §4's test cards, all Luhn-valid. */
const testCards = [
  "4242424242424242",
  "5555555555554444",
  "4000000000000002",
  "4000000000009995",
  "4000000000000069",
  "4000000000000341",
  "4000000000000259",
  "4000000000000267",
  "4000000000000119"
]

/** An independent Luhn check digit for `body` (the digits before it). */
const checkDigit = (body: string): string => {
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i])
    if (i % 2 === 0) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return String((10 - (sum % 10)) % 10)
}

describe("Card.isCardNumber", () => {
  it("accepts every test card and other well-known test numbers", () => {
    for (const card of [...testCards, "378282246310005", "6011111111111117", "5105105105105100"]) {
      assert.isTrue(isCardNumber(card), card)
    }
  })

  it("refuses non-digits, too short and too long numbers", () => {
    for (const s of ["", "4242-4242-4242-4242", "4242 4242 4242 4242", "42424242424242a2", "00000000000", "4".repeat(20)]) {
      assert.isFalse(isCardNumber(s), s)
    }
  })

  it.prop(
    "any single-digit change of a test card is refused",
    [FastCheck.constantFrom(...testCards), FastCheck.nat(), FastCheck.integer({ min: 1, max: 9 })],
    ([card, position, delta]) => {
      const i = position % card.length
      const changed = card.slice(0, i) + String((Number(card[i]) + delta) % 10) + card.slice(i + 1)
      assert.notStrictEqual(changed, card)
      assert.isFalse(isCardNumber(changed), changed)
      assert.isTrue(Either.isLeft(validated({ ...valid, card_number: changed })))
      assert.deepStrictEqual(errorKeys({ ...valid, card_number: changed }), ["card_number"])
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "a random 12–19 digit number with the right check digit is accepted, with a wrong one refused",
    [FastCheck.array(FastCheck.integer({ min: 0, max: 9 }), { minLength: 11, maxLength: 18 }), FastCheck.integer({ min: 1, max: 9 })],
    ([digits, off]) => {
      const body = digits.join("")
      const good = body + checkDigit(body)
      assert.isTrue(isCardNumber(good), good)
      const bad = body + String((Number(checkDigit(body)) + off) % 10)
      assert.isFalse(isCardNumber(bad), bad)
    },
    { fastCheck: { numRuns: 200 } }
  )
})

describe("CheckoutForm.validate", () => {
  it("accepts a complete form: the card and phone numbers without their spaces and dashes, the name as typed", () => {
    const form = accepted({
      ...valid,
      name: "  Layla Haddad ",
      card_number: "4242-4242 4242-4242",
      phone_number: "+971 50 123-4567",
      exp_month: "3"
    })
    const { card, customer } = form
    assert.deepStrictEqual(customer, { name: "  Layla Haddad ", email: "layla@example.ae", phone_number: "+971501234567" })
    assert.deepStrictEqual(
      { ...card, number: Redacted.value(card.number), cvc: Redacted.value(card.cvc) },
      { number: "4242424242424242", expMonth: 3, expYear: 2030, cvc: "123" }
    )
  })

  it("the phone number is optional (absent or empty is null)", () => {
    const { phone_number: _, ...withoutPhone } = valid
    assert.isNull(accepted(withoutPhone).customer.phone_number)
    assert.isNull(accepted({ ...valid, phone_number: "" }).customer.phone_number)
    assert.strictEqual(accepted({ ...valid, phone_number: "+12345678" }).customer.phone_number, "+12345678")
    assert.strictEqual(accepted({ ...valid, phone_number: "+123456789012345" }).customer.phone_number, "+123456789012345")
    for (const phone of ["0501234567", "971501234567", "+1234567", "+1234567890123456", "+97150abc4567", "+"]) {
      assert.deepStrictEqual(errorKeys({ ...valid, phone_number: phone }), ["phone_number"], phone)
    }
  })

  it("the e-mail must look like one", () => {
    for (const email of ["", "layla", "layla@", "@example.ae", "a@b", "a b@example.ae", "a@@example.ae", `${"a".repeat(250)}@x.ae`]) {
      assert.deepStrictEqual(errorKeys({ ...valid, email }), ["email"], email)
    }
    // Refused, not trimmed away unseen, with a message that says why.
    for (const email of [" a@b.co ", "a@b.co ", "\ta@b.co"]) {
      assert.deepStrictEqual(errorKeys({ ...valid, email }), ["email"], email)
    }
  })

  it("the name and a business's name are at most 200 characters, an emoji counting as one, as the API counts them", () => {
    for (const name of ["", "   ", "n".repeat(201), "😀".repeat(201), "n\u0000"]) assert.deepStrictEqual(errorKeys({ ...valid, name }), ["name"])
    assert.strictEqual(accepted({ ...valid, name: "n".repeat(200) }).customer.name?.length, 200)
    assert.strictEqual(accepted({ ...valid, name: "😀".repeat(200) }).customer.name, "😀".repeat(200))
    assert.deepStrictEqual(errorKeys({ ...valid, business_name: "😀".repeat(201) }), ["business_name"])
    assert.strictEqual(accepted({ ...valid, business_name: "😀".repeat(150) }).business?.name, "😀".repeat(150))
  })

  it("the CVC is 3 or 4 digits", () => {
    assert.strictEqual(Redacted.value(accepted({ ...valid, cvc: "123" }).card.cvc), "123")
    assert.strictEqual(Redacted.value(accepted({ ...valid, cvc: "0000" }).card.cvc), "0000")
    for (const cvc of ["", "1", "12", "12345", "12a", "1 2 3", "-123"]) {
      assert.deepStrictEqual(errorKeys({ ...valid, cvc }), ["cvc"], cvc)
    }
  })

  it("years may have 2 or 4 digits", () => {
    assert.strictEqual(accepted({ ...valid, exp_year: "30" }).card.expYear, 2030)
    assert.strictEqual(accepted({ ...valid, exp_year: "2030" }).card.expYear, 2030)
    assert.strictEqual(accepted({ ...valid, exp_year: "99" }).card.expYear, 2099)
    for (const exp_year of ["", "3", "203", "20300", "2101", "year", "-30"]) {
      assert.deepStrictEqual(errorKeys({ ...valid, exp_year }), ["exp_year"], exp_year)
    }
  })

  it("months are 1 to 12, with or without a leading zero", () => {
    for (const [m, n] of [["1", 1], ["01", 1], ["09", 9], ["12", 12]] as const) {
      assert.strictEqual(accepted({ ...valid, exp_month: m }).card.expMonth, n)
    }
    for (const exp_month of ["", "0", "00", "13", "123", "jan", "-1"]) {
      assert.deepStrictEqual(errorKeys({ ...valid, exp_month }), ["exp_month"], exp_month)
    }
  })

  it("an expiry in the past is refused; the current month is still valid (with now = 21 Nov 2026)", () => {
    accepted({ ...valid, exp_month: "11", exp_year: "2026" })
    accepted({ ...valid, exp_month: "11", exp_year: "26" })
    accepted({ ...valid, exp_month: "12", exp_year: "2026" })
    accepted({ ...valid, exp_month: "1", exp_year: "2027" })
    for (const [exp_month, exp_year] of [["10", "2026"], ["10", "26"], ["12", "2025"], ["01", "2026"], ["12", "2000"]]) {
      const errors = errorsOf({ ...valid, exp_month, exp_year })
      assert.deepStrictEqual(Object.keys(errors), ["exp_year"], `${exp_month}/${exp_year}`)
      assert.match(errors.exp_year!, /expired/i)
    }
  })

  it.prop(
    "for any expiry month/year, refused exactly when the month has ended",
    [FastCheck.integer({ min: 1, max: 12 }), FastCheck.integer({ min: 2000, max: 2100 })],
    ([month, year]) => {
      const r = validated({ ...valid, exp_month: String(month), exp_year: String(year) })
      const expired = year < 2026 || (year === 2026 && month < 11)
      assert.strictEqual(Either.isLeft(r), expired)
    },
    { fastCheck: { numRuns: 200 } }
  )

  it("missing fields are each reported (phone excepted)", () => {
    assert.deepStrictEqual(errorKeys({}), ["card_number", "cvc", "email", "exp_month", "exp_year", "name"])
    for (const message of Object.values(errorsOf({}))) assert.isTrue(message!.length > 0)
  })

  const badValue: Record<Exclude<CheckoutForm.Field, "exp">, string> = {
    name: "",
    email: "nope",
    phone_number: "12345",
    card_number: "4242424242424241",
    exp_month: "13",
    exp_year: "20x0",
    cvc: "1",
    business_name: " ",
    business_trn: "10012345670000"
  }

  it.prop(
    "each field's error is reported independently: the errors are exactly the fields made invalid",
    [FastCheck.subarray(CheckoutForm.fields.filter((f) => f !== "exp"))],
    ([broken]) => {
      const input: CheckoutForm.SubmittedForm = { ...valid }
      for (const f of broken) input[f] = badValue[f]
      assert.deepStrictEqual(errorKeys(input), [...broken].sort())
      const r = validated(input)
      assert.strictEqual(Either.isRight(r), broken.length === 0)
    },
    { fastCheck: { numRuns: 128 } }
  )

  it("the field names are exactly those of the hosted form", () => {
    assert.deepStrictEqual([...CheckoutForm.fields], [
      "name",
      "email",
      "phone_number",
      "card_number",
      "exp",
      "exp_month",
      "exp_year",
      "cvc",
      "business_name",
      "business_trn"
    ])
  })

  describe("the expiry as one field, MM / YY", () => {
    const { exp_month: _m, exp_year: _y, ...rest } = valid
    const withExp = (exp: string) => ({ ...rest, exp })

    it("reads MM / YY, MM/YY and a four-digit year", () => {
      for (const exp of ["12 / 30", "12/30", "12 /2030", " 01/27 "]) {
        const card = accepted(withExp(exp)).card
        assert.deepStrictEqual([card.expMonth, card.expYear], exp.includes("01") ? [1, 2027] : [12, 2030], exp)
      }
      // The current month is still valid (now = 21 Nov 2026).
      accepted(withExp("11 / 26"))
    })

    it("refuses anything else on the field itself, never guessing what was meant", () => {
      for (const exp of ["", "1230", "1/30", "12-30", "12 / 3", "13 / 30", "00/30", "12/30/1", "12 / 2101", "MM / YY", "１２/３０"]) {
        const errors = errorsOf(withExp(exp))
        assert.deepStrictEqual(Object.keys(errors), ["exp"], exp)
        assert.strictEqual(errors.exp, CheckoutForm.messages.exp, exp)
      }
      assert.deepStrictEqual(errorsOf(withExp("10 / 26")), { exp: CheckoutForm.messages.expired })
    })

    it("refuses an expiry given twice, as one field and as month and year", () => {
      assert.deepStrictEqual(errorsOf({ ...valid, exp: "12 / 30" }), { exp: CheckoutForm.messages.expTwice })
      // Empty month and year beside it are not a second expiry (a form may carry them empty).
      accepted({ ...valid, exp_month: "", exp_year: "", exp: "12 / 30" })
    })
  })

  it("a business buyer: a name alone, or a name with a 15-digit TRN as typed; a TRN without the name, or mistyped, is refused", () => {
    assert.isNull(accepted(valid).business)
    assert.deepStrictEqual(accepted({ ...valid, business_name: "Gulf Trading FZE" }).business, { name: "Gulf Trading FZE", trn: null })
    assert.deepStrictEqual(
      accepted({ ...valid, business_name: "Gulf Trading FZE", business_trn: "100765432100003" }).business,
      { name: "Gulf Trading FZE", trn: "100765432100003" }
    )
    assert.deepStrictEqual(errorKeys({ ...valid, business_trn: "100765432100003" }), ["business_name"])
    assert.deepStrictEqual(errorKeys({ ...valid, business_name: "Gulf", business_trn: "100 765 432 100 003" }), ["business_trn"])
  })
})

describe("the card's secrets", () => {
  it("the card number and CVC are Redacted from the submitted form on: printing the input or the valid card shows neither", () => {
    const typed = { ...valid, card_number: "4242 4242 4242 4242", cvc: "839" }
    const input = CheckoutForm.fromSubmitted(typed)
    const form = accepted(typed)
    const secrets = ["4242 4242", "4242424242424242", "839"]
    assertHidden(input, secrets, "the submitted form")
    assertHidden(form, secrets, "the validated form")
    assertHidden(CheckoutForm.validateCard(input, now), secrets, "the validated card")
    // Redacted hides them from printing only: the processor adapter reads them.
    assert.strictEqual(Redacted.value(form.card.number), "4242424242424242")
    assert.strictEqual(Redacted.value(form.card.cvc), "839")
    // The other fields stay as typed, for the page to show again.
    assert.strictEqual(input.name, valid.name)
    assert.strictEqual(input.exp_month, valid.exp_month)
  })
})

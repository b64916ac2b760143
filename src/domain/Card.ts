/** Card numbers: the one check of their shape, shared by the checkout form and the log redaction. */

/** 12 to 19 digits whose Luhn checksum holds: what a card number looks like. */
export const isCardNumber = (digits: string): boolean => {
  if (!/^[0-9]{12,19}$/.test(digits)) return false
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/**
 * CSV as RFC 4180 writes it, safe to open in a spreadsheet: a cell with a comma, a quote or a line break is quoted
 * (its quotes doubled); a text cell that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a
 * tab or a carriage return) is prefixed with `'`, so a customer's name like `=HYPERLINK(…)` stays text. Numbers the
 * export formats itself (`-12.50`) are written as numbers.
 */

/** A cell: text (guarded against formulas), a number we formatted, or empty. */
export type Cell = string | { readonly number: string } | null

const formulaStart = /^[=+\-@\t\r]/

const quoted = (text: string) => /[",\r\n]/.test(text) ? `"${text.replace(/"/g, "\"\"")}"` : text

export const cell = (value: Cell): string =>
  value === null ? "" : typeof value === "string" ? quoted(formulaStart.test(value) ? `'${value}` : value) : quoted(value.number)

/** One record, ended by CRLF. */
export const row = (cells: ReadonlyArray<Cell>): string => `${cells.map(cell).join(",")}\r\n`

/** Fils as a decimal number of AED (`1250` → `12.50`, `-5` → `-0.05`). */
export const aed = (fils: number): Cell => {
  const sign = fils < 0 ? "-" : ""
  const abs = Math.abs(fils)
  return { number: `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}` }
}

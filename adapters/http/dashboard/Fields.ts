/**
 * Form fields whose refusal is shown next to them: a decode's issues, each under the field it is about, and the
 * controls that show them (`aria-invalid`, the message linked by `aria-describedby`). Used where one form sets a
 * structured value (a tax profile, a business buyer, a product's taxation), so that a merchant sees which field to fix.
 */
import type { ParseResult } from "effect"
import { html, type Raw, raw } from "../html/Html.js"
import { inMerchantWords } from "../SchemaIssues.js"
import { emirates } from "../documents/TaxDocumentPage.js"
import type { Locale } from "../i18n/Locale.js"

/** Messages by field name. */
export type FieldErrors = Readonly<Record<string, string>>

type Issue = ParseResult.ArrayFormatterIssue

/** The two refusals this module words itself (the others are the schema's own); other languages word them by key. */
export const fieldMessages = {
  required: "This is required",
  chooseOne: "Choose one of the options"
} as const

/** An issue's message as a sentence: the domain's own (`A TRN is 15 digits`) as written, a built-in one restated. */
const sentence = (issue: Issue): string => {
  if (issue._tag === "Missing") return fieldMessages.required
  const words = /^Expected ("[^"]*"|\d+)(, actual| \|)/.test(issue.message)
    ? fieldMessages.chooseOne
    : issue.message.startsWith("Expected ")
    ? inMerchantWords(issue.message)
    : issue.message
  return /^(must|is|has) /.test(words) ? `This ${words}` : words.charAt(0).toUpperCase() + words.slice(1)
}

/**
 * The first, most specific issue of each field: `fieldOf` names the form field a schema path is about (the empty
 * path is the schema's own rule across fields), `undefined` for a path no field of this form sets.
 */
export const fieldErrorsOf = (
  issues: ReadonlyArray<Issue>,
  fieldOf: (path: ReadonlyArray<string>) => string | undefined
): FieldErrors => {
  const errors: Record<string, string> = {}
  const paths = issues.map((issue) => issue.path.map(String))
  issues.forEach((issue, i) => {
    const path = paths[i]!
    // A nested failure also fails its parent: the child says more.
    const deeper = paths.some((other) => other.length > path.length && path.every((p, j) => other[j] === p))
    if (deeper && path.length > 0) return
    // An optional value's `null` member fails beside its value's own rule, which says what is wrong.
    const beside = paths.some((other, j) => j !== i && other.length === path.length && path.every((p, k) => other[k] === p))
    if (beside && issue.message.startsWith("Expected null, actual")) return
    const field = fieldOf(path)
    if (field !== undefined && errors[field] === undefined) errors[field] = sentence(issue)
  })
  return errors
}

const errorOf = (errors: FieldErrors, name: string): Raw =>
  errors[name] === undefined ? html`` : html`<p class="field-error" id="${name}-error">${errors[name]}</p>`

const invalid = (errors: FieldErrors, name: string): Raw =>
  errors[name] === undefined ? html`` : html` aria-invalid="true" aria-describedby="${name}-error"`

/** A text input with its label, and its refusal under it. */
export const textField = (props: {
  readonly name: string
  readonly label: string
  readonly value: string
  readonly errors: FieldErrors
  readonly attributes?: string
}) =>
  html`<label for="${props.name}">${props.label}</label><input id="${props.name}" name="${props.name}" value="${props.value}"${
    raw(props.attributes === undefined ? "" : ` ${props.attributes}`)
  }${invalid(props.errors, props.name)}>${errorOf(props.errors, props.name)}`

/** A select of `options` (`[value, text]`), the one equal to `value` selected, and its refusal under it. */
export const selectField = (props: {
  readonly name: string
  readonly label: string
  readonly value: string
  readonly options: ReadonlyArray<readonly [string, string]>
  readonly errors: FieldErrors
}) =>
  html`<label for="${props.name}">${props.label}</label><select id="${props.name}" name="${props.name}"${invalid(props.errors, props.name)}>${
    props.options.map(([value, text]) => html`<option value="${value}"${raw(value === props.value ? " selected" : "")}>${text}</option>`)
  }</select>${errorOf(props.errors, props.name)}`

/** A checkbox (sent as `on` when ticked, absent otherwise) with its label after it. */
export const checkboxField = (props: { readonly name: string; readonly label: string; readonly checked: boolean; readonly errors: FieldErrors }) =>
  html`<label class="check"><input type="checkbox" id="${props.name}" name="${props.name}"${raw(props.checked ? " checked" : "")}${
    invalid(props.errors, props.name)
  }> ${props.label}</label>${errorOf(props.errors, props.name)}`

/** The emirates, by the code PINT AE uses, as an address's select offers them. */
export const emirateOptions = (locale: Locale): ReadonlyArray<readonly [string, string]> =>
  Object.entries(emirates).map(([code, name]) => [code, name[locale]])

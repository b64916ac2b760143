/**
 * A tiny XML writer: elements, attributes and text, every text and attribute value escaped, so a merchant's or a
 * buyer's words can never change a document's structure. Enough for the e-invoices Fils writes; no dependency.
 */

/** An element: its qualified name, attributes in order, and children (elements or text). */
export interface Element {
  readonly name: string
  readonly attributes: ReadonlyArray<readonly [string, string]>
  readonly children: ReadonlyArray<Element | string>
}

/** What an element may be given as a child: nothing (left out), text, an element, or a list of them. */
export type Child = Element | string | null | undefined | false | ReadonlyArray<Child>

const flatten = (children: ReadonlyArray<Child>, into: Array<Element | string>): Array<Element | string> => {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (typeof child === "string") into.push(child)
    else if ("name" in child) into.push(child as Element)
    else flatten(child as ReadonlyArray<Child>, into)
  }
  return into
}

/** `<name attributes…>children…</name>`; an attribute given `undefined` is left out. */
export const el = (
  name: string,
  attributes: Readonly<Record<string, string | undefined>> | null,
  ...children: ReadonlyArray<Child>
): Element => ({
  name,
  attributes: Object.entries(attributes ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, v] as const])),
  children: flatten(children, [])
})

/**
 * Characters XML 1.0 cannot carry at all, not even as a character reference: C0 controls other than tab, line feed
 * and carriage return, U+FFFE, U+FFFF, and lone surrogates.
 */
export const forbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const forbiddenAll = new RegExp(forbidden.source, "g")

// A forbidden character is written as U+FFFD so the output stays well-formed; the rules refuse such a document
// before it is issued (PintAeRules), so nothing altered is ever sent.
const escapeText = (s: string): string =>
  s.replace(forbiddenAll, "\uFFFD").replace(/[&<>\r]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#13;"))

const escapeAttribute = (s: string): string =>
  s.replace(forbiddenAll, "\uFFFD").replace(/[&<>"\t\n\r]/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "\"" ? "&quot;" : `&#${c.charCodeAt(0)};`
  )

const render = (e: Element, depth: number, out: Array<string>): void => {
  const indent = "  ".repeat(depth)
  const attributes = e.attributes.map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`).join("")
  if (e.children.length === 0) {
    out.push(`${indent}<${e.name}${attributes}/>`)
  } else if (e.children.every((c) => typeof c === "string")) {
    out.push(`${indent}<${e.name}${attributes}>${e.children.map((c) => escapeText(c as string)).join("")}</${e.name}>`)
  } else {
    out.push(`${indent}<${e.name}${attributes}>`)
    for (const child of e.children) {
      if (typeof child === "string") out.push(`${indent}  ${escapeText(child)}`)
      else render(child, depth + 1, out)
    }
    out.push(`${indent}</${e.name}>`)
  }
}

/** The document: an XML declaration (UTF-8) and `root`, indented by two spaces. */
export const document = (root: Element): string => {
  const out = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>"]
  render(root, 0, out)
  return out.join("\n") + "\n"
}

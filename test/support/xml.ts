/**
 * A strict, minimal XML 1.0 reader for tests: it refuses what is not well-formed (unbalanced or mismatched tags, a
 * bare `&` or `<` in text, an unknown entity, an unquoted or repeated attribute, a character XML cannot carry, an
 * undeclared namespace prefix, anything after the root) and gives back the element tree with text and attribute
 * values decoded. Enough to read back the e-invoices Fils writes; no dependency.
 */

export interface XmlElement {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<XmlElement>
  /** The element's own text, decoded (only text directly inside it). */
  readonly text: string
}

const forbiddenChar = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const nameChars = /^[A-Za-z_][A-Za-z0-9_.\-]*(:[A-Za-z_][A-Za-z0-9_.\-]*)?$/
const entities: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" }

const decode = (raw: string, where: string): string =>
  raw.replace(/&([^;&<\s]*);|&/g, (all, ref: string | undefined) => {
    if (ref === undefined) throw new Error(`bare & in ${where}`)
    if (ref in entities) return entities[ref]!
    const code = /^#x[0-9a-fA-F]+$/.test(ref) ? parseInt(ref.slice(2), 16) : /^#[0-9]+$/.test(ref) ? parseInt(ref.slice(1), 10) : NaN
    if (Number.isNaN(code) || code > 0x10ffff) throw new Error(`unknown reference ${all} in ${where}`)
    const c = String.fromCodePoint(code)
    if (forbiddenChar.test(c) || (code >= 0xd800 && code <= 0xdfff)) throw new Error(`reference ${all} to a forbidden character`)
    return c
  })

interface Building {
  name: string
  attributes: Record<string, string>
  children: Array<XmlElement>
  text: string
  namespaces: ReadonlyMap<string, string>
}

/** The root element of `xml`; throws on anything not well-formed. */
export const parse = (xml: string): XmlElement => {
  if (forbiddenChar.test(xml)) throw new Error("a character XML cannot carry")
  let i = 0
  const declaration = /^<\?xml version="1\.0"( encoding="UTF-8")?\?>/.exec(xml)
  if (declaration !== null) i = declaration[0].length
  const stack: Array<Building> = []
  let root: XmlElement | undefined
  const nsOf = (name: string, scope: ReadonlyMap<string, string>, where: string) => {
    const colon = name.indexOf(":")
    if (colon > 0 && name.slice(0, colon) !== "xml" && name.slice(0, colon) !== "xmlns" && !scope.has(name.slice(0, colon))) {
      throw new Error(`undeclared prefix in ${name} (${where})`)
    }
  }
  while (i < xml.length) {
    const lt = xml.indexOf("<", i)
    const textEnd = lt === -1 ? xml.length : lt
    const raw = xml.slice(i, textEnd)
    if (raw.length > 0) {
      if (stack.length === 0) {
        if (raw.trim() !== "") throw new Error(`text outside the root: ${JSON.stringify(raw.slice(0, 40))}`)
      } else {
        if (raw.includes("]]>")) throw new Error("]]> in text")
        stack[stack.length - 1]!.text += decode(raw, stack[stack.length - 1]!.name)
      }
    }
    if (lt === -1) break
    if (xml.startsWith("<!--", lt)) {
      const end = xml.indexOf("-->", lt + 4)
      if (end === -1 || xml.slice(lt + 4, end).includes("--")) throw new Error("bad comment")
      i = end + 3
      continue
    }
    if (xml.startsWith("<?", lt) || xml.startsWith("<!", lt)) throw new Error(`unexpected markup at ${lt}`)
    const gt = xml.indexOf(">", lt)
    if (gt === -1) throw new Error("unterminated tag")
    const tag = xml.slice(lt + 1, gt)
    if (tag.includes("<")) throw new Error(`< inside a tag at ${lt}`)
    i = gt + 1
    if (tag.startsWith("/")) {
      const name = tag.slice(1).trim()
      const open = stack.pop()
      if (open === undefined || open.name !== name) throw new Error(`</${name}> closes <${open?.name ?? "nothing"}>`)
      const done: XmlElement = { name: open.name, attributes: open.attributes, children: open.children, text: open.text }
      if (stack.length === 0) {
        if (root !== undefined) throw new Error("two roots")
        root = done
      } else stack[stack.length - 1]!.children.push(done)
      continue
    }
    const selfClosing = tag.endsWith("/")
    const body = selfClosing ? tag.slice(0, -1) : tag
    const nameMatch = /^[^\s/>]+/.exec(body)
    if (nameMatch === null || !nameChars.test(nameMatch[0])) throw new Error(`bad element name in <${tag}>`)
    const name = nameMatch[0]
    const attributes: Record<string, string> = {}
    let rest = body.slice(name.length)
    const attribute = /^\s+([^\s=]+)\s*=\s*("([^"<]*)"|'([^'<]*)')/
    for (let m = attribute.exec(rest); m !== null; m = attribute.exec(rest)) {
      const key = m[1]!
      if (!nameChars.test(key)) throw new Error(`bad attribute name ${key}`)
      if (key in attributes) throw new Error(`repeated attribute ${key} on ${name}`)
      attributes[key] = decode(m[3] ?? m[4] ?? "", `${name}/@${key}`)
      rest = rest.slice(m[0].length)
    }
    if (rest.trim() !== "") throw new Error(`malformed attributes in <${tag}>`)
    if (stack.length === 0 && root !== undefined) throw new Error("content after the root")
    const scope = new Map(stack.length === 0 ? [] : stack[stack.length - 1]!.namespaces)
    for (const [k, v] of Object.entries(attributes)) if (k.startsWith("xmlns:")) scope.set(k.slice(6), v)
    nsOf(name, scope, name)
    for (const k of Object.keys(attributes)) nsOf(k, scope, name)
    const element: Building = { name, attributes, children: [], text: "", namespaces: scope }
    if (selfClosing) {
      const done: XmlElement = { name, attributes, children: [], text: "" }
      if (stack.length === 0) root = done
      else stack[stack.length - 1]!.children.push(done)
    } else stack.push(element)
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1]!.name}> is never closed`)
  if (root === undefined) throw new Error("no root element")
  return root
}

/** The children of `element` named `name`. */
export const all = (element: XmlElement, name: string): ReadonlyArray<XmlElement> =>
  element.children.filter((c) => c.name === name)

/** The single element at `path` under `element` (each step a child's name); throws when absent or repeated. */
export const one = (element: XmlElement, ...path: ReadonlyArray<string>): XmlElement =>
  path.reduce((at, name) => {
    const found = all(at, name)
    if (found.length !== 1) throw new Error(`${found.length} <${name}> under <${at.name}>`)
    return found[0]!
  }, element)

/** The element at `path`, or undefined when absent. */
export const maybe = (element: XmlElement, ...path: ReadonlyArray<string>): XmlElement | undefined => {
  let at: XmlElement | undefined = element
  for (const name of path) at = at === undefined ? undefined : all(at, name)[0]
  return at
}

/** The text at `path`. */
export const textAt = (element: XmlElement, ...path: ReadonlyArray<string>): string => one(element, ...path).text

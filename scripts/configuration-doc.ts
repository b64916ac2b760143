/**
 * docs/configuration.md's table of settings, written from `settings` in adapters/cli/config.ts, the one list of them
 * (`fils config` shows the same list). Only the lines between the two markers are rewritten; the page's prose is left
 * as written.
 *
 * `npm run docs:config` (node --import tsx scripts/configuration-doc.ts [--check] [page]): rewrites the table;
 * with `--check` it writes nothing and exits 1 when the table is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { type Setting, settings } from "../adapters/cli/config.js"

export const startMarker = "<!-- settings: written by `npm run docs:config` from adapters/cli/config.ts; edit them there -->"
export const endMarker = "<!-- end of settings -->"

/** A table cell: a `|` would end the cell (GitHub's tables read `\|` as a pipe, in code spans too). */
const cell = (text: string) => text.replace(/\|/g, "\\|")

/** The markdown table of `list`: one row per setting, in its order. */
export const settingsTable = (list: ReadonlyArray<Setting>): string =>
  [
    "| variable | default | meaning |",
    "|---|---|---|",
    ...list.map((s) =>
      `| \`${s.name}\`${s.secret === true ? " (secret)" : ""} | ${cell(s.default)} | ${cell(s.meaning)} |`
    )
  ].join("\n")

export class MarkerError extends Error {}

/** `page` with the table between its markers replaced by `settings`' table. */
export const withSettingsTable = (page: string, list: ReadonlyArray<Setting> = settings): string => {
  const start = page.indexOf(startMarker)
  const end = page.indexOf(endMarker)
  if (start < 0 || end < start || page.indexOf(startMarker, start + 1) >= 0 || page.indexOf(endMarker, end + 1) >= 0) {
    throw new MarkerError(`The page needs the table between one pair of markers:\n${startMarker}\n…\n${endMarker}`)
  }
  // Blank lines around the table: a line right after a table's last row could be read as one more row.
  return `${page.slice(0, start)}${startMarker}\n\n${settingsTable(list)}\n\n${page.slice(end)}`
}

const main = (args: ReadonlyArray<string>) => {
  const check = args.includes("--check")
  const path = resolve(args.find((a) => a !== "--check") ?? new URL("../docs/configuration.md", import.meta.url).pathname)
  const page = readFileSync(path, "utf8")
  let next: string
  try {
    next = withSettingsTable(page)
  } catch (error) {
    if (!(error instanceof MarkerError)) throw error
    process.stderr.write(`${path}: ${error.message}\n`)
    return 1
  }
  if (next === page) {
    process.stdout.write(`${path}: the settings table is up to date\n`)
    return 0
  }
  if (check) {
    process.stderr.write(`${path}: the settings table differs from adapters/cli/config.ts: run \`npm run docs:config\`\n`)
    return 1
  }
  writeFileSync(path, next)
  process.stdout.write(`${path}: settings table written (${settings.length} settings)\n`)
  return 0
}

// Run as a script, not when a test imports the functions above.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2))
}

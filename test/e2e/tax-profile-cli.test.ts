/**
 * `fils accounts tax-profile show|set|remove ACCOUNT_ID` as real processes on a fresh database: a profile set is
 * shown and stored (the account's row); a refused one names the option to fix, as `{ code, message }` on stderr, and
 * changes nothing; removing it leaves none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliResult, runFils } from "../support/cli.js"
import { type TestDatabase, testDatabase } from "../support/load.js"

let db: TestDatabase
let env: Record<string, string | undefined> = {}
let accountId = ""

beforeAll(async () => {
  db = await testDatabase()
  env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined }
  const made = await runFils(["accounts", "create", "--name", "Dune Coffee"], env)
  expect(made.code, made.stderr).toBe(0)
  accountId = JSON.parse(made.stdout).account_id
}, 90_000)

afterAll(async () => {
  await db?.close()
})

const refusal = (result: CliResult) => {
  expect(result.code, result.stderr).toBe(1)
  expect(result.stdout).toBe("")
  return JSON.parse(result.stderr.trim().split("\n").pop()!) as { code: string; message: string }
}
const stored = async () =>
  (await db.sql<{ tax_profile: unknown }>(`SELECT tax_profile FROM accounts WHERE account_id = '${accountId}'`))[0]?.tax_profile

const profile = {
  legal_name: "Dune Coffee Roasters LLC",
  legal_name_ar: "ديون لتحميص القهوة ذ.م.م",
  trn: "100123456700003",
  address: { line1: "Warehouse 4, Al Quoz 3", line2: null, city: "Dubai", emirate: "DXB", country: "AE" },
  trade_licence: { number: "CN-1234567", authority: "Dubai Economy and Tourism" },
  vat_registered: true,
  prices_include_vat: true
}
const setArgs = [
  "--legal-name", profile.legal_name, "--legal-name-ar", profile.legal_name_ar, "--trn", profile.trn,
  "--line1", profile.address.line1, "--city", "Dubai", "--emirate", "DXB",
  "--licence-number", "CN-1234567", "--licence-authority", "Dubai Economy and Tourism"
]

describe("fils accounts tax-profile", () => {
  it("shows none, sets a profile and shows it, refuses bad input naming the option, removes it", async () => {
    const none = await runFils(["accounts", "tax-profile", "show", accountId], env)
    expect(none.code, none.stderr).toBe(0)
    expect(JSON.parse(none.stdout)).toStrictEqual({ account_id: accountId, tax_profile: null })

    const set = await runFils(["accounts", "tax-profile", "set", ...setArgs, accountId], env)
    expect(set.code, set.stderr).toBe(0)
    expect(JSON.parse(set.stdout)).toStrictEqual({ account_id: accountId, tax_profile: profile })
    const shown = await runFils(["accounts", "tax-profile", "show", accountId], env)
    expect(JSON.parse(shown.stdout)).toStrictEqual({ account_id: accountId, tax_profile: profile })
    expect(await stored()).toMatchObject({ trn: profile.trn, vat_registered: true })

    // A TRN of 14 digits, an unknown emirate: both named, nothing changed.
    const bad = refusal(await runFils(["accounts", "tax-profile", "set", "--legal-name", "Other LLC", "--trn", "10012345670000",
      "--line1", "x", "--city", "Dubai", "--emirate", "XYZ", accountId], env))
    expect(bad.code).toBe("INVALID_REQUEST")
    expect(bad.message).toContain("--trn: A TRN is 15 digits")
    expect(bad.message).toContain("--emirate must be one of AUH, DXB, SHJ, UAQ, FUJ, AJM, RAK")
    // Registered (the default) without a TRN.
    const noTrn = refusal(await runFils(["accounts", "tax-profile", "set", "--legal-name", "Other LLC", "--line1", "x",
      "--city", "Dubai", "--emirate", "DXB", accountId], env))
    expect(noTrn.message).toContain("--trn: A VAT-registered merchant needs its TRN")
    // A licence number without its authority.
    const licence = refusal(await runFils(["accounts", "tax-profile", "set", "--legal-name", "Other LLC", "--trn", profile.trn,
      "--line1", "x", "--city", "Dubai", "--emirate", "DXB", "--licence-number", "CN-1", accountId], env))
    expect(licence.message).toContain("--licence-authority")
    expect(JSON.parse((await runFils(["accounts", "tax-profile", "show", accountId], env)).stdout).tax_profile).toStrictEqual(profile)

    // Not registered, prices excluding VAT, no TRN: accepted.
    const unregistered = await runFils(["accounts", "tax-profile", "set", "--legal-name", "Small Shop", "--line1", "Shop 2",
      "--line2", "Souq Al Arsa", "--city", "Sharjah", "--emirate", "SHJ", "--not-vat-registered", "--prices-exclude-vat", accountId], env)
    expect(unregistered.code, unregistered.stderr).toBe(0)
    expect(JSON.parse(unregistered.stdout).tax_profile).toStrictEqual({
      legal_name: "Small Shop",
      legal_name_ar: null,
      trn: null,
      address: { line1: "Shop 2", line2: "Souq Al Arsa", city: "Sharjah", emirate: "SHJ", country: "AE" },
      trade_licence: null,
      vat_registered: false,
      prices_include_vat: false
    })

    const removed = await runFils(["accounts", "tax-profile", "remove", accountId], env)
    expect(removed.code, removed.stderr).toBe(0)
    expect(JSON.parse(removed.stdout)).toStrictEqual({ account_id: accountId, tax_profile: null })
    expect(await stored()).toBeNull()

    const notAnId = refusal(await runFils(["accounts", "tax-profile", "show", "acct_nope"], env))
    expect(notAnId.message).toBe("'acct_nope' is not an account id (acct_…)")
  }, 120_000)
})

#!/usr/bin/env node
/**
 * Completes package-lock.json with the optional, platform-specific packages the registry here does not serve
 * (e.g. rollup's Android builds). `npm install` leaves them out silently, and `npm ci` then refuses the lock as
 * out of sync. Recording them with their `os`/`cpu` lets `npm ci` skip them on this platform without fetching.
 *
 *   node scripts/complete-lockfile.mjs     (after any `npm install` that changes the lock)
 */
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages

const platform = (name) => {
  const n = name.toLowerCase()
  const os = ["android", "darwin", "freebsd", "openbsd", "netbsd", "sunos", "aix", "win32", "linux", "openharmony"]
    .find((o) => n.includes(o === "win32" ? "win32" : o)) ?? (n.includes("windows") ? "win32" : undefined)
  const cpu = ["arm64", "x64", "ia32", "arm", "ppc64", "riscv64", "s390x", "loong64", "mips64el", "wasm32"]
    .find((c) => new RegExp(`[-_]${c}(?:[-_]|$)`).test(n)) ??
    (n.includes("universal") ? undefined : n.includes("loongarch64") ? "loong64" : undefined)
  const libc = /musl/.test(n) ? "musl" : /gnu/.test(n) ? "glibc" : undefined
  return { os, cpu, libc }
}

let added = 0
for (const [location, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location === "" ? "" : `${location}/`
    const candidates = [`${base}node_modules/${dep}`, `node_modules/${dep}`]
    if (candidates.some((c) => packages[c] !== undefined)) continue
    const { os, cpu, libc } = platform(dep)
    if (os === undefined) continue // not a platform package: leave it to npm
    packages[`node_modules/${dep}`] = {
      version: version.replace(/^[\^~=]/, ""),
      dev: entry.dev || undefined,
      optional: true,
      os: [os],
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc: [libc] } : {})
    }
    added++
  }
}
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`complete-lockfile: recorded ${added} platform packages this registry does not serve`)

/**
 * Where the CLI's settings come from, in order: the environment; a `<NAME>_FILE` holding a secret's value
 * (as container platforms mount secrets: `DATABASE_URL_FILE`, `FILS_SECRET_KEY_FILE`, …); a `.env` file
 * (`FILS_ENV_FILE`, default `./.env` when there is one); the defaults. Every setting is then read through Effect's
 * `Config` from one provider over the result, and `fils config` shows each with where it came from, secrets redacted.
 * The settings are checked before anything starts: a bad one is one clear error naming it.
 */
import { Config, type ConfigError, ConfigProvider, Context, Data, Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { parseEnv } from "node:util"
import { secretBoxConfig } from "../crypto/SecretBox.js"
import { TrustedProxies } from "../http/ClientAddress.js"
import { RequestDeadlines } from "../http/Server.js"
import { LogLevelConfig } from "../observability/Logging.js"
import { SamplerConfig, TracingConfig } from "../observability/Tracing.js"
import { embeddedConfig } from "../sql/EmbeddedPostgres.js"
import { databaseUrlConfig, listenUrlConfig, statementTimeoutConfig } from "../sql/Postgres.js"
import { FeeConfig } from "../runtime/Settings.js"

/** Settings that hold secrets: never shown, and each may come from `<NAME>_FILE`. */
export const secretSettings = ["DATABASE_URL", "FILS_LISTEN_DATABASE_URL", "FILS_SECRET_KEY", "FILS_SECRET_KEY_PREVIOUS", "OTEL_EXPORTER_OTLP_HEADERS"] as const

export interface Setting {
  readonly name: string
  /** What applies when it is not set, as docs/configuration.md's table says it. */
  readonly default: string
  readonly secret?: boolean
}

/** Every setting Fils reads, in docs/configuration.md's order. */
export const settings: ReadonlyArray<Setting> = [
  { name: "DATABASE_URL", default: "unset (the embedded PostgreSQL)", secret: true },
  { name: "FILS_DATA_DIR", default: "./.fils" },
  { name: "FILS_DB_PORT", default: "a free port" },
  { name: "FILS_LISTEN_DATABASE_URL", default: "DATABASE_URL", secret: true },
  { name: "FILS_DB_STATEMENT_TIMEOUT_SECONDS", default: "8" },
  { name: "FILS_PORT", default: "PORT, else 4242" },
  { name: "FILS_HOST", default: "HOST, else 127.0.0.1" },
  { name: "PORT", default: "unset" },
  { name: "HOST", default: "unset" },
  { name: "FILS_PUBLIC_URL", default: "http://<host>:<port>" },
  { name: "FILS_HEADERS_TIMEOUT_SECONDS", default: "10" },
  { name: "FILS_REQUEST_TIMEOUT_SECONDS", default: "30" },
  { name: "FILS_RATE_LIMIT_PER_MIN", default: "240" },
  { name: "FILS_AUTH_FAILURES_PER_MIN", default: "30" },
  { name: "FILS_TRUSTED_PROXIES", default: "none" },
  { name: "FILS_KEY_CACHE_TTL", default: "5 seconds" },
  { name: "FILS_FEE_BPS", default: "290" },
  { name: "FILS_FEE_FIXED", default: "100" },
  { name: "FILS_SIMULATED_LIVE", default: "false" },
  { name: "FILS_SIMULATED_DELAY", default: "unset" },
  { name: "FILS_SECRET_KEY", default: "unset (secrets stored as given)", secret: true },
  { name: "FILS_SECRET_KEY_PREVIOUS", default: "unset", secret: true },
  { name: "FILS_DASHBOARD", default: "true" },
  { name: "FILS_OWNER_EMAIL", default: "owner@fils.local" },
  { name: "FILS_LOG_LEVEL", default: "info" },
  { name: "OTEL_EXPORTER_OTLP_ENDPOINT", default: "unset (no tracing)" },
  { name: "OTEL_EXPORTER_OTLP_HEADERS", default: "unset", secret: true },
  { name: "OTEL_SERVICE_NAME", default: "fils" },
  { name: "OTEL_TRACES_SAMPLER", default: "parentbased_always_on" },
  { name: "OTEL_TRACES_SAMPLER_ARG", default: "1" }
]

export type Source =
  | { readonly kind: "environment" }
  | { readonly kind: "file"; readonly path: string }
  | { readonly kind: "env-file"; readonly path: string }

export interface LoadedConfig {
  readonly values: ReadonlyMap<string, string>
  readonly sources: ReadonlyMap<string, Source>
  /** The `.env` file read, if any. */
  readonly envFile: string | undefined
}

/** A setting that cannot even be read (a file that is not there, a secret given twice): nothing starts. */
export class ConfigLoadError extends Error {
  readonly code = "INVALID_CONFIG"
}

/** The settings from the environment, `<NAME>_FILE` files and the `.env` file (see the module's comment). */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): LoadedConfig => {
  const values = new Map<string, string>()
  const sources = new Map<string, Source>()
  const named = env.FILS_ENV_FILE
  const envFile = named !== undefined && named !== ""
    ? resolve(cwd, named)
    : existsSync(resolve(cwd, ".env"))
    ? resolve(cwd, ".env")
    : undefined
  if (envFile !== undefined) {
    let text: string
    try {
      text = readFileSync(envFile, "utf8")
    } catch {
      throw new ConfigLoadError(`FILS_ENV_FILE names ${envFile}, which cannot be read`)
    }
    for (const [name, value] of Object.entries(parseEnv(text))) {
      if (value === undefined) continue
      values.set(name, value)
      sources.set(name, { kind: "env-file", path: envFile })
    }
  }
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    values.set(name, value)
    sources.set(name, { kind: "environment" })
  }
  for (const name of secretSettings) {
    const fileVar = `${name}_FILE`
    const path = values.get(fileVar)
    if (path === undefined || path === "") continue
    if (values.has(name)) throw new ConfigLoadError(`Both ${name} and ${fileVar} are set: set one of them`)
    let text: string
    try {
      text = readFileSync(resolve(cwd, path), "utf8")
    } catch {
      throw new ConfigLoadError(`${fileVar} names ${resolve(cwd, path)}, which cannot be read`)
    }
    // A file written by `echo` or an editor ends with a newline that is not part of the secret.
    values.set(name, text.replace(/\r?\n$/, ""))
    sources.set(name, { kind: "file", path: resolve(cwd, path) })
  }
  return { values, sources, envFile }
}

/** The provider every command reads its settings from (the environment's conventions: `_` nests, `,` lists). */
export const providerOf = (loaded: LoadedConfig): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(new Map(loaded.values), { pathDelim: "_", seqDelim: "," })

const integerSetting = (name: string) => Config.option(Config.integer(name))
const booleanSetting = (name: string) => Config.option(Config.boolean(name))
const durationSetting = (name: string) => Config.option(Config.duration(name))
const portSetting = (name: string) => Config.option(Config.port(name))

/**
 * Every setting checked at once, as the engine and the server will read them: the first bad one fails, naming it.
 * (Serve and `fils config` run it before anything else.)
 */
export const checkSettings = Effect.all([
  databaseUrlConfig,
  listenUrlConfig,
  statementTimeoutConfig,
  embeddedConfig,
  portSetting("FILS_PORT"),
  portSetting("PORT"),
  RequestDeadlines,
  integerSetting("FILS_RATE_LIMIT_PER_MIN"),
  integerSetting("FILS_AUTH_FAILURES_PER_MIN"),
  TrustedProxies,
  durationSetting("FILS_KEY_CACHE_TTL"),
  FeeConfig,
  booleanSetting("FILS_SIMULATED_LIVE"),
  durationSetting("FILS_SIMULATED_DELAY"),
  secretBoxConfig,
  booleanSetting("FILS_DASHBOARD"),
  LogLevelConfig,
  TracingConfig,
  SamplerConfig
], { discard: true })

/** `fils config`: each setting's effective value (secrets redacted) and where it came from. */
export const describeSettings = (loaded: LoadedConfig) =>
  settings.map((s) => {
    const value = loaded.values.get(s.name)
    const source = loaded.sources.get(s.name)
    return {
      name: s.name,
      value: value === undefined ? null : s.secret === true ? "[redacted]" : value,
      source: source === undefined
        ? `default: ${s.default}`
        : source.kind === "environment"
        ? "environment"
        : source.kind === "file"
        ? `file ${source.path} (${s.name}_FILE)`
        : `.env file ${source.path}`
    }
  })

/** A `ConfigError` as the operator should read it: the variable and what is wrong with it. */
export const configMessage = (error: ConfigError.ConfigError): string => {
  const messages: Array<string> = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        walk(e.left)
        walk(e.right)
        return
      case "InvalidData":
      case "MissingData":
      case "SourceUnavailable":
      case "Unsupported":
        messages.push(e.message.includes(e.path.join("_")) ? e.message : `${e.path.join("_")}: ${e.message}`)
    }
  }
  walk(error)
  return [...new Set(messages)].join("; ")
}

/** The settings as loaded at start (main.ts provides them), for `fils config`. */
export class LoadedSettings extends Context.Tag("fils/cli/LoadedSettings")<LoadedSettings, LoadedConfig>() {}

/** `checkSettings`, failing with `{ code: "INVALID_CONFIG", message }` naming the variable. */
export const checkedSettings = Effect.mapError(checkSettings, (error) => new InvalidConfig({ message: configMessage(error) }))

export class InvalidConfig extends Data.TaggedError("InvalidConfig")<{ readonly message: string }> {
  readonly code = "INVALID_CONFIG"
}

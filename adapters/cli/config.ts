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
import { FeeConfig, RequestLogRetentionConfig } from "../runtime/Settings.js"
import { EInvoiceConfig } from "../einvoice/ProviderConfig.js"
import { isEmail } from "../../src/domain/Customer.js"

export interface Setting {
  readonly name: string
  /**
   * What applies when it is not set, in markdown as docs/configuration.md's table shows it; `fils config` prints it
   * without the backticks (`default: PORT, else 4242`).
   */
  readonly default: string
  /** What it does, in markdown for docs/configuration.md's table (one line; links relative to docs/). */
  readonly meaning: string
  /** Never shown (`fils config` prints `[redacted]`), and may come from a file named by `<NAME>_FILE`. */
  readonly secret?: boolean
}

/**
 * Every setting Fils reads, in the order of docs/configuration.md's table, which `npm run docs:config` writes from
 * this list (test/package/configuration-doc.test.ts fails when they differ).
 */
export const settings: ReadonlyArray<Setting> = [
  {
    name: "DATABASE_URL",
    default: "unset (the embedded PostgreSQL)",
    meaning: "PostgreSQL connection URL (`postgres://user:password@host:5432/fils`). Unset or empty: Fils runs its own embedded PostgreSQL in `FILS_DATA_DIR`.",
    secret: true
  },
  { name: "FILS_DATA_DIR", default: "`./.fils`", meaning: "Data folder of the embedded PostgreSQL (`<dir>/pg`)." },
  { name: "FILS_DB_PORT", default: "a free port", meaning: "Port of the embedded PostgreSQL on 127.0.0.1." },
  {
    name: "FILS_LISTEN_DATABASE_URL",
    default: "`DATABASE_URL`",
    meaning: "Where the LISTEN connections (webhook wake-ups, key revocations) connect. Set it to a direct route to the primary when `DATABASE_URL` goes through PgBouncer in transaction mode, which cannot hold a LISTEN.",
    secret: true
  },
  {
    name: "FILS_DB_STATEMENT_TIMEOUT_SECONDS",
    default: "`8`",
    meaning: "How long one statement may go unanswered before its connection is dropped and the request answered `503` (0: no limit, at most 3600), so that a silent network or a pooler waiting for a primary never hangs a request past 10 s."
  },
  { name: "FILS_PORT", default: "`PORT`, else `4242`", meaning: "HTTP port of `fils serve` (`--port` overrides)." },
  {
    name: "FILS_HOST",
    default: "`HOST`, else `127.0.0.1`",
    meaning: "Interface `fils serve` listens on (`--host` overrides); `0.0.0.0` for every interface."
  },
  {
    name: "PORT",
    default: "unset",
    meaning: "The port a hosting platform gives the process: used when `FILS_PORT` is not set."
  },
  { name: "HOST", default: "unset", meaning: "The interface to listen on when `FILS_HOST` is not set." },
  {
    name: "FILS_PUBLIC_URL",
    default: "`http://<host>:<port>` (`fils serve`'s, else `FILS_HOST` and `FILS_PORT`)",
    meaning: "Public base URL where customers reach Fils: printed URLs, sign-in links, `checkout_url` and portal links start with it."
  },
  {
    name: "FILS_HEADERS_TIMEOUT_SECONDS",
    default: "`10`",
    meaning: "Time a client has to send a request's headers; then `408 REQUEST_TIMEOUT`. No longer than `FILS_REQUEST_TIMEOUT_SECONDS`."
  },
  {
    name: "FILS_REQUEST_TIMEOUT_SECONDS",
    default: "`30`",
    meaning: "Time a client has to send a whole request, body included; then `408 REQUEST_TIMEOUT`."
  },
  { name: "FILS_RATE_LIMIT_PER_MIN", default: "`240`", meaning: "Requests per rolling minute per API key." },
  {
    name: "FILS_AUTH_FAILURES_PER_MIN",
    default: "`30`",
    meaning: "Failed authentications per rolling minute per client address."
  },
  {
    name: "FILS_TRUSTED_PROXIES",
    default: "none",
    meaning: "The proxies in front of Fils whose `X-Forwarded-For` is believed: a hop count (`1`: the nearest peer), or addresses and CIDRs separated by commas (`10.0.0.0/8, 192.168.1.10`; `loopback`, `linklocal` and `uniquelocal` name those ranges). See [Behind a load balancer](operations.md#behind-a-load-balancer)."
  },
  {
    name: "FILS_KEY_CACHE_TTL",
    default: "`5 seconds`",
    meaning: "How long a process caches an API-key lookup. Revocations reach every process at once through the database; the TTL is the fallback should one be missed."
  },
  {
    name: "FILS_REQUEST_LOG_RETENTION_DAYS",
    default: "`7`",
    meaning: "Days each API request's log line is kept (`GET /request_logs`, the dashboard's developers section), 0 to 365; `0` logs no requests. Older lines are deleted hourly. See [Request logs](api.md#request-logs)."
  },
  {
    name: "FILS_REQUEST_LOG_BUFFER",
    default: "`10000`",
    meaning: "Log lines a process holds while they wait to be written in batches. A request never waits for its line: when the database falls this far behind, further lines are dropped and counted in `fils_request_logs_dropped_total`."
  },
  {
    name: "FILS_FEE_BPS",
    default: "`290`",
    meaning: "Fee in basis points (hundredths of a percent) of a succeeded payment's total."
  },
  { name: "FILS_FEE_FIXED", default: "`100`", meaning: "Fixed part of the fee, in fils (100 fils = 1 AED)." },
  {
    name: "FILS_SIMULATED_LIVE",
    default: "`false`",
    meaning: "Let the simulated processor take live-mode charges too (staging)."
  },
  {
    name: "FILS_SIMULATED_DELAY",
    default: "unset (no delay)",
    meaning: "A duration (e.g. `4 seconds`) every simulated charge and refund waits before answering: to rehearse a slow processor."
  },
  {
    name: "FILS_EINVOICE_URL",
    default: "unset (live e-invoices wait)",
    meaning: "Base URL of the merchant's Accredited Service Provider for live-mode e-invoices, over Fils' HTTP protocol. Unset: live business-to-business e-invoices stay pending until it is set. See [E-invoicing](einvoicing.md#sending-e-invoices)."
  },
  {
    name: "FILS_EINVOICE_TOKEN",
    default: "unset",
    meaning: "The bearer token for `FILS_EINVOICE_URL` (required with it).",
    secret: true
  },
  {
    name: "FILS_EINVOICE_TEST_URL",
    default: "unset (the simulated provider)",
    meaning: "An ASP's sandbox for test-mode e-invoices. Unset: the simulated provider answers them (its test TRNs in [E-invoicing](einvoicing.md#the-simulated-provider))."
  },
  {
    name: "FILS_EINVOICE_TEST_TOKEN",
    default: "unset",
    meaning: "The bearer token for `FILS_EINVOICE_TEST_URL` (required with it).",
    secret: true
  },
  {
    name: "FILS_SECRET_KEY",
    default: "unset (webhook secrets stored in plaintext)",
    meaning: "32 random bytes (64 hex digits or base64, e.g. `openssl rand -base64 32`): webhook signing secrets are stored encrypted with it (AES-256-GCM). A malformed key stops the process at start. See [Secrets at rest](webhooks.md#secrets-at-rest).",
    secret: true
  },
  {
    name: "FILS_SECRET_KEY_PREVIOUS",
    default: "unset",
    meaning: "Older keys, comma-separated: they only decrypt, during a rotation.",
    secret: true
  },
  {
    name: "FILS_DASHBOARD",
    default: "`true`",
    meaning: "Serve the merchant dashboard under `/dashboard`; `false` leaves it out."
  },
  {
    name: "FILS_OWNER_EMAIL",
    default: "`owner@fils.local`",
    meaning: "E-mail of the dashboard owner `serve` creates (with a sign-in link) for the default account on an empty store. Checked at every start, like every setting: one that is not an e-mail address (as the API takes one) stops it."
  },
  {
    name: "FILS_LOG_LEVEL",
    default: "`info`",
    meaning: "Minimum level of `serve`'s JSON logs: `all`, `trace`, `debug`, `info`, `warn`, `error`, `fatal`, `none`."
  },
  {
    name: "OTEL_EXPORTER_OTLP_ENDPOINT",
    default: "unset (no tracing)",
    meaning: "OTLP/HTTP collector base URL (traces go to `<url>/v1/traces`). Unset: no tracing SDK is loaded."
  },
  {
    name: "OTEL_EXPORTER_OTLP_HEADERS",
    default: "unset",
    meaning: "Headers sent to the collector (`key=value` pairs, comma-separated, e.g. an API key).",
    secret: true
  },
  { name: "OTEL_SERVICE_NAME", default: "`fils`", meaning: "`service.name` of the exported traces." },
  {
    name: "OTEL_TRACES_SAMPLER",
    default: "`parentbased_always_on`",
    meaning: "Which requests are traced: `always_on`, `always_off`, `traceidratio`, or `parentbased_` one of those (a caller's `traceparent` decides when it has one)."
  },
  {
    name: "OTEL_TRACES_SAMPLER_ARG",
    default: "`1`",
    meaning: "The share of new traces kept by the `traceidratio` samplers, 0 to 1 (e.g. `0.1`)."
  },
  {
    name: "FILS_API_URL",
    default: "`http://<host>:<port>` (`FILS_HOST` and `FILS_PORT`, as `fils serve` listens)",
    meaning: "The Fils server that `fils listen`, `fils trigger`, `fils clocks` and `fils logs tail` talk to (`--api` overrides). See [A local webhook loop](webhooks.md#a-local-webhook-loop)."
  },
  {
    name: "FILS_API_KEY",
    default: "unset",
    meaning: "The test-mode secret key (`sk_test_…`) `fils listen` and `fils trigger` use (`--key` overrides).",
    secret: true
  },
  {
    name: "FILS_ENV_FILE",
    default: "`./.env` when there is one",
    meaning: "The `.env` file to read, relative to the working directory. Only the environment sets it: a `.env` file that does is refused."
  }
]

/** Settings that hold secrets: never shown, and each may come from `<NAME>_FILE`. */
export const secretSettings: ReadonlyArray<string> = settings.filter((s) => s.secret === true).map((s) => s.name)

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
    const parsed = parseEnv(text)
    // It names this very file: set inside it, it would be ignored, which would hide a mistake.
    if (parsed.FILS_ENV_FILE !== undefined) {
      throw new ConfigLoadError(`${envFile} sets FILS_ENV_FILE, which only the environment can set: remove it from the file`)
    }
    for (const [name, value] of Object.entries(parsed)) {
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

/**
 * The e-mail of the dashboard owner `serve` makes on an empty store: an address as every other is checked, so that a
 * bad one stops the start before the default account is made (not halfway, with no owner ever made after).
 */
export const OwnerEmailConfig = Config.string("FILS_OWNER_EMAIL").pipe(
  Config.validate({ message: "must be an e-mail address of at most 254 characters: one @, a dot after it, no spaces or control characters", validation: isEmail }),
  Config.withDefault("owner@fils.local")
)

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
  RequestLogRetentionConfig,
  integerSetting("FILS_REQUEST_LOG_BUFFER"),
  FeeConfig,
  booleanSetting("FILS_SIMULATED_LIVE"),
  durationSetting("FILS_SIMULATED_DELAY"),
  EInvoiceConfig,
  secretBoxConfig,
  booleanSetting("FILS_DASHBOARD"),
  OwnerEmailConfig,
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
        ? `default: ${s.default.replaceAll("`", "")}`
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

/**
 * LISTEN connections that notice when they die. @effect/sql-pg shares one LISTEN client per pool and swallows its
 * errors, so after a database restart or failover its streams go quiet for good. Here every `listen` owns a
 * connection of its own: the stream fails when that connection errors, ends, or stops answering a heartbeat, and the
 * caller listens again (with a backoff) on a new one.
 *
 * The URL may differ from the pool's: through PgBouncer in transaction mode LISTEN cannot work, so
 * `FILS_LISTEN_DATABASE_URL` names a direct route to the primary (docs/cluster.md).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Duration, Effect, Layer, Option, Queue, Redacted, Stream } from "effect"
import { createRequire } from "node:module"

export interface ListenOptions {
  /** How often the connection is asked a trivial question (default 5 s). */
  readonly heartbeat?: Duration.DurationInput | undefined
  /** How long connecting, LISTEN or a heartbeat may take before the connection counts as dead (default 3 s). */
  readonly timeout?: Duration.DurationInput | undefined
}

/** Notifications on a channel, from a connection of the stream's own; it fails when that connection is lost. */
export class PgListen extends Context.Tag("fils/sql/PgListen")<PgListen, {
  readonly listen: (channel: string) => Stream.Stream<string, SqlError>
}>() {}

interface ListenClient {
  connect(): Promise<void>
  query(text: string): Promise<unknown>
  end(): Promise<void>
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown
  on(event: "error" | "end", listener: (error?: unknown) => void): unknown
  removeAllListeners(): unknown
}
type ClientClass = new(options: Record<string, unknown>) => ListenClient

/** The `Client` of the very `pg` that @effect/sql-pg drives. */
const PgClientClass = (): ClientClass => {
  const require = createRequire(import.meta.url)
  return (createRequire(require.resolve("@effect/sql-pg/package.json"))("pg") as { readonly Client: ClientClass })
    .Client
}

const escapeIdentifier = (name: string) => `"${name.replaceAll("\"", "\"\"")}"`

const failure = (cause: unknown, message: string) => new SqlError({ cause, message })

/** `listen` on dedicated connections to `url`. */
export const makePgListen = (url: Redacted.Redacted, options: ListenOptions = {}): PgListen["Type"] => {
  const heartbeat = Duration.decode(options.heartbeat ?? Duration.seconds(5))
  const timeout = Duration.decode(options.timeout ?? Duration.seconds(3))
  const Client = PgClientClass()

  const connection = Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const client = new Client({
          connectionString: Redacted.value(url),
          connectionTimeoutMillis: Duration.toMillis(timeout),
          // A peer that vanished without a word (a lost machine) is found by the heartbeat; keepalive also tells
          // the kernel to give up on the socket.
          keepAlive: true,
          keepAliveInitialDelayMillis: Duration.toMillis(heartbeat),
          application_name: "fils-listen"
        })
        client.on("error", () => {}) // reported through `lost` below
        await client.connect()
        return client
      },
      catch: (cause) => failure(cause, "Failed to connect for LISTEN")
    }),
    (client) =>
      Effect.promise(() => client.end()).pipe(
        Effect.ensuring(Effect.sync(() => client.removeAllListeners())),
        Effect.interruptible,
        Effect.timeoutOption(1000)
      )
  )

  const listen = (channel: string): Stream.Stream<string, SqlError> =>
    Stream.unwrapScoped(Effect.gen(function*() {
      const client = yield* connection
      const bounded = <A>(effect: Effect.Effect<A, SqlError>) =>
        Effect.timeoutFail(effect, { duration: timeout, onTimeout: () => failure(undefined, "LISTEN connection stopped answering") })
      const ask = (text: string, message: string) =>
        bounded(Effect.tryPromise({ try: () => client.query(text), catch: (cause) => failure(cause, message) }))
      /** Fails when the connection errors or ends. */
      const lost = Effect.async<never, SqlError>((resume) => {
        client.on("error", (cause) => resume(Effect.fail(failure(cause, "LISTEN connection lost"))))
        client.on("end", () => resume(Effect.fail(failure(undefined, "LISTEN connection ended"))))
      })
      const beating = Effect.forever(Effect.zipRight(Effect.sleep(heartbeat), ask("SELECT 1", "LISTEN heartbeat failed")))
      // Collected from before LISTEN, so nothing sent right after it is missed.
      const received = yield* Effect.acquireRelease(Queue.unbounded<string>(), Queue.shutdown)
      client.on("notification", (message) => {
        if (message.channel === channel && message.payload !== undefined) Queue.unsafeOffer(received, message.payload)
      })
      yield* ask(`LISTEN ${escapeIdentifier(channel)}`, "Failed to listen")
      return Stream.merge(Stream.fromQueue(received), Stream.fromEffect(Effect.raceFirst(lost, beating)), {
        haltStrategy: "either"
      })
    }))

  return { listen }
}

/** `PgListen` on `url`. */
export const PgListenLive = (url: Redacted.Redacted, options?: ListenOptions): Layer.Layer<PgListen> =>
  Layer.succeed(PgListen, makePgListen(url, options))

/**
 * The `PgListen` in the context; else one over the context's `PgClient` (its URL, or its shared LISTEN client when
 * it has no URL); else none, and callers poll.
 */
export const listenService: Effect.Effect<Option.Option<PgListen["Type"]>> = Effect.gen(function*() {
  const own = yield* Effect.serviceOption(PgListen)
  if (Option.isSome(own)) return own
  const pg = yield* Effect.serviceOption(PgClient.PgClient)
  return Option.map(pg, (client): PgListen["Type"] =>
    client.config.url !== undefined
      ? makePgListen(client.config.url)
      : { listen: (channel) => client.listen(channel) })
})

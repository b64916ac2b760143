/** The engine on PostgreSQL (DATABASE_URL, or the embedded database in FILS_DATA_DIR), as the CLI runs it. */
import { Layer } from "effect"
import { Engine } from "../../src/application/Engine.js"
import { DatabaseLive, DbPool } from "../sql/Postgres.js"
import { StoreSql } from "../sql/StoreSql.js"
import { SecretBoxLive } from "../crypto/SecretBox.js"
import { NodeAdaptersSql } from "../runtime/NodeAdapters.js"

/** The Store on the configured database, migrated; webhook secrets sealed when FILS_SECRET_KEY is set. */
export const StoreLive = StoreSql.pipe(Layer.provide(Layer.merge(DatabaseLive, SecretBoxLive)))

/** Every use case, plus the ports they run on (the server's readiness check uses the Store directly). Test mode
 * uses the simulated processor (its ledger in the same database); live mode needs `FILS_SIMULATED_LIVE=true` (staging) until a live adapter exists. */
export const EngineSql = Engine.pipe(
  Layer.provideMerge(Layer.mergeAll(
    StoreLive,
    NodeAdaptersSql.pipe(Layer.provide(DatabaseLive)),
    // The pool's figures, for /metrics.
    Layer.effect(DbPool, DbPool).pipe(Layer.provide(DatabaseLive))
  ))
)

/** Only the database, migrated: `fils migrate`. */
export const MigrationsOnly = Layer.discard(DatabaseLive)

/**
 * The engine on the store you choose, for every example: `FILS_STORE=memory` (the default: nothing to set up,
 * gone when the process ends) or `FILS_STORE=postgres` (`DATABASE_URL`, or else the embedded PostgreSQL in
 * `FILS_DATA_DIR`, default `./.fils`; migrated on start, stopped with the program).
 *
 * Either way it is the same `Engine` over the node adapters (signer, simulated processor, webhook transport): only
 * the `Store` layer differs.
 */
import { Config, Effect, Layer } from "effect"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"
import { DatabaseLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { Engine } from "../../src/application/Engine.js"

export const StoreKind = Config.literal("memory", "postgres")("FILS_STORE").pipe(Config.withDefault("memory"))

const StorePostgres = StoreSql.pipe(Layer.provide(DatabaseLive))

/** Every use case, plus the Store and ports they run on. */
export const EngineLive = Layer.unwrapEffect(
  Effect.map(StoreKind, (kind) =>
    Engine.pipe(Layer.provideMerge(Layer.mergeAll(kind === "postgres" ? StorePostgres : StoreMemory, NodeAdapters))))
)

/**
 * The engine on the store you choose, for every example: `FILS_STORE=memory` (the default: nothing to set up,
 * gone when the process ends) or `FILS_STORE=postgres` (`DATABASE_URL`, or else the embedded PostgreSQL in
 * `FILS_DATA_DIR`, default `./.fils`; migrated on start, stopped with the program).
 *
 * Either way it is the same `Engine` over the node adapters (signer, simulated processor, webhook transport). On
 * PostgreSQL the simulated processor keeps its records in the same database as the Store (`NodeAdaptersSql`), as
 * `fils serve` does: `fils` on that database (e.g. `fils reconcile`) then sees what the program charged.
 */
import { Config, Effect, Layer } from "effect"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { NodeAdapters, NodeAdaptersSql } from "../../adapters/runtime/NodeAdapters.js"
import { DatabaseLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { Engine } from "../../src/application/Engine.js"

export const StoreKind = Config.literal("memory", "postgres")("FILS_STORE").pipe(Config.withDefault("memory"))

/** The Store and the processor's records, both on the one database (migrated once). */
const OnPostgres = Layer.merge(StoreSql, NodeAdaptersSql).pipe(Layer.provide(DatabaseLive))
const InMemory = Layer.merge(StoreMemory, NodeAdapters)

/** Every use case, plus the Store and ports they run on. */
export const EngineLive = Layer.unwrapEffect(
  Effect.map(StoreKind, (kind) => Engine.pipe(Layer.provideMerge(kind === "postgres" ? OnPostgres : InMemory)))
)

/** `fils/memory`: the Store in memory, for tests and demos (it passes the same contract suite as PostgreSQL). */
export { makeStoreMemory, StoreMemory } from "./StoreMemory.js"

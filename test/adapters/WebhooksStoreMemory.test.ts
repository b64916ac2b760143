/** The webhook store contract (endpoints and the delivery outbox) on the memory adapter. */
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { webhookStoreContract } from "./webhookStoreContract.js"

webhookStoreContract("StoreMemory", StoreMemory)

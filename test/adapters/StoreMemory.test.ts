/** The Store contract on the memory adapter. */
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { storeContract } from "./storeContract.js"

storeContract("StoreMemory", StoreMemory)

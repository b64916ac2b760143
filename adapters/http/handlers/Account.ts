import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Accounts } from "../../../src/application/Accounts.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"

export const AccountLive = HttpApiBuilder.group(FilsApi, "account", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    return handlers.handle("get", () => Effect.flatMap(CurrentPrincipal, accounts.describe))
  }))

/** Ids as an operator types them: a malformed one is a `{ code, message }` refusal like every other. */
import { Effect } from "effect"
import { InvalidRequest } from "../../src/domain/Errors.js"
import { AccountId, parseId } from "../../src/domain/Ids.js"

export const accountIdOf = (raw: string) => {
  const id = parseId(AccountId)(raw)
  return id === undefined
    ? Effect.fail(new InvalidRequest({ message: `'${raw}' is not an account id (acct_…)` }))
    : Effect.succeed(id)
}

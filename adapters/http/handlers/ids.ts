import { Effect, type Schema } from "effect"
import { notFound } from "../../../src/domain/Errors.js"
import { parseId } from "../../../src/domain/Ids.js"

/**
 * Resolves a path id. One that does not match its pattern names nothing that could exist, so it is a 404 like an
 * unknown id (docs/decisions.md §8), not a 400.
 */
export const pathId = <S extends Schema.Schema<any, string>>(schema: S, what: string) => {
  const parse = parseId(schema)
  return (raw: string) => {
    const id = parse(raw)
    return id === undefined ? Effect.fail(notFound(what, raw)) : Effect.succeed(id as S["Type"])
  }
}

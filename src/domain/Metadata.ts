/** Merchant metadata: at most 50 string keys (1 to 40 characters) with string values of at most 500. */
import { Schema } from "effect"

export const maxKeys = 50
export const maxKeyLength = 40
export const maxValueLength = 500

export const MetadataKey = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(maxKeyLength))
export const MetadataValue = Schema.String.pipe(Schema.maxLength(maxValueLength))

// The key rule is checked on the whole record: as a record's key schema, a failing key would be dropped as an
// "excess" property instead of being refused.
export const Metadata = Schema.Record({ key: Schema.String, value: MetadataValue }).pipe(
  Schema.filter((m) => {
    const keys = Object.keys(m)
    if (keys.length > maxKeys) return `metadata has more than ${maxKeys} keys`
    const bad = keys.find((k) => k.length < 1 || k.length > maxKeyLength)
    return bad === undefined || `metadata key '${bad.slice(0, 50)}' must be 1 to ${maxKeyLength} characters`
  }),
  Schema.annotations({
    identifier: "Metadata",
    description: "String keys (1 to 40 characters) to string values (at most 500 characters); at most 50 keys."
  })
)
export type Metadata = typeof Metadata.Type

export const empty: Metadata = {}

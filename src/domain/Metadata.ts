/** Merchant metadata: at most 50 string keys (1 to 40 characters) with string values of at most 500. */
import { Schema } from "effect"
import { check, storablePattern, Text } from "./Text.js"

export const maxKeys = 50
export const maxKeyLength = 40
export const maxValueLength = 500

export const MetadataValue = Text(0, maxValueLength)

// The key rule is checked on the whole record: as a record's key schema, a failing key would be dropped as an
// "excess" property instead of being refused.
export const Metadata = Schema.Record({ key: Schema.String, value: MetadataValue }).pipe(
  Schema.filter((m) => {
    const keys = Object.keys(m)
    if (keys.length > maxKeys) return `metadata has more than ${maxKeys} keys`
    for (const key of keys) {
      const bad = check(key, 1, maxKeyLength)
      if (bad !== true) return `metadata key '${[...key].slice(0, 50).join("")}' ${bad}`
    }
    return true
  }, {
    jsonSchema: {
      maxProperties: maxKeys,
      propertyNames: { minLength: 1, maxLength: maxKeyLength, pattern: storablePattern }
    }
  }),
  Schema.annotations({
    identifier: "Metadata",
    description: "String keys (1 to 40 characters) to string values (at most 500 characters); at most 50 keys. Keys " +
      "and values are text as sent: a NUL character or a lone surrogate is refused."
  })
)
export type Metadata = typeof Metadata.Type

export const empty: Metadata = {}

/** Merchant metadata: at most 50 string keys (1 to 40 characters) with string values of at most 500. */
import { Schema } from "effect"

export const maxKeys = 50
export const maxKeyLength = 40
export const maxValueLength = 500

export const MetadataKey = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(maxKeyLength))
export const MetadataValue = Schema.String.pipe(Schema.maxLength(maxValueLength))

export const Metadata = Schema.Record({ key: MetadataKey, value: MetadataValue }).pipe(
  Schema.filter((m) => Object.keys(m).length <= maxKeys || `metadata has more than ${maxKeys} keys`),
  Schema.annotations({
    identifier: "Metadata",
    description: "String keys (1 to 40 characters) to string values (at most 500 characters); at most 50 keys."
  })
)
export type Metadata = typeof Metadata.Type

export const empty: Metadata = {}

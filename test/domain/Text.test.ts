import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck, Schema } from "effect"
import * as Text from "../../src/domain/Text.js"

const decode = (schema: Schema.Schema<string>, s: string) => Schema.decodeUnknownEither(schema)(s)

describe("Text", () => {
  it.prop("characters counts code points, as the spread of a string does", [FastCheck.string({ unit: "binary", maxLength: 60 })], ([s]) => {
    assert.strictEqual(Text.characters(s), [...s].length)
  }, { fastCheck: { numRuns: 500 } })

  it.prop("a well-formed string is one that survives UTF-8", [FastCheck.string({ unit: "binary", maxLength: 30 })], ([s]) => {
    assert.strictEqual(Text.isWellFormed(s), new TextDecoder().decode(new TextEncoder().encode(s)) === s)
  }, { fastCheck: { numRuns: 500 } })

  it.prop(
    "shortened keeps text within its limit in characters, never half a pair, and marks a cut",
    [FastCheck.string({ unit: "grapheme", maxLength: 40 }), FastCheck.integer({ min: 1, max: 30 })],
    ([s, max]) => {
      const out = Text.shortened(s, max)
      assert.isTrue(Text.isWellFormed(out))
      if (Text.characters(s) <= max) return assert.strictEqual(out, s)
      assert.strictEqual(Text.characters(out), max)
      assert.isTrue(out.endsWith("…") && s.startsWith(out.slice(0, -1)))
    },
    { fastCheck: { numRuns: 500 } }
  )

  it("a limit of 200 counts emoji as one character each", () => {
    const name = Text.Text(1, 200)
    assert.isTrue(Either.isRight(decode(name, "😀".repeat(200))))
    assert.isTrue(Either.isLeft(decode(name, "😀".repeat(201))))
    assert.isTrue(Either.isRight(decode(name, "ا".repeat(200))))
    assert.isTrue(Either.isLeft(decode(name, "")))
  })

  it("lone surrogates and NUL are refused, not altered", () => {
    const any = Text.Text(0, 100)
    for (const s of ["\ud800", "a\udc00b", "\udbff\ud800", "x\u0000y"]) {
      assert.isTrue(Either.isLeft(decode(any, s)), JSON.stringify(s))
      assert.isTrue(Either.isLeft(decode(Text.Storable, s)), JSON.stringify(s))
    }
    assert.isTrue(Either.isRight(decode(any, "\ud83d\ude00 \ufffd")))
  })

  it("states limits in characters", () => {
    assert.strictEqual(Text.check("", 1, 200), "must be 1 to 200 characters")
    assert.strictEqual(Text.check("x".repeat(6), 0, 5), "must be at most 5 characters")
    assert.strictEqual(Text.check("\ud800", 0, 5), "must be valid Unicode text (it holds a lone surrogate)")
  })
})

/** Webhook endpoints (docs/webhooks.md "Endpoint URLs", docs/decisions.md §7): URL rules, defaults, event types. */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Either, FastCheck, Redacted, Schema } from "effect"
import { byNameOnly, type EventType, eventTypes } from "../../src/domain/Event.js"
import type { AccountId, WebhookId } from "../../src/domain/Ids.js"
import * as WebhookEndpoint from "../../src/domain/WebhookEndpoint.js"
import * as WebhookHealth from "../../src/domain/WebhookHealth.js"
import { assertHidden } from "../support/secrets.js"

const now = DateTime.unsafeMake("2026-11-21T10:00:00.000Z")
const signingSecret = Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
const ctx = (livemode: boolean) => ({
  id: `wh_${"a".repeat(32)}` as WebhookId,
  accountId: `acct_${"b".repeat(32)}` as AccountId,
  livemode,
  secret: signingSecret,
  now
})

const create = (input: WebhookEndpoint.WebhookCreate, livemode: boolean) => WebhookEndpoint.create(input, ctx(livemode))
const createOk = (input: WebhookEndpoint.WebhookCreate, livemode: boolean) => {
  const r = create(input, livemode)
  if (Either.isLeft(r)) assert.fail(`${input.url} (${livemode ? "live" : "test"}): ${r.left.message}`)
  return r.right
}
const refusal = (url: string, livemode: boolean): string => {
  const r = create({ url }, livemode)
  if (Either.isRight(r)) return assert.fail(`${url} (${livemode ? "live" : "test"}) was accepted as ${r.right.url}`)
  assert.strictEqual(r.left._tag, "InvalidRequest")
  assert.strictEqual(r.left.code, "INVALID_REQUEST")
  return r.left.message
}

const internalHttpsUrls = [
  "https://127.0.0.1/hooks",
  "https://127.0.0.1:8443/hooks",
  "https://10.0.0.1/",
  "https://172.16.5.4/",
  "https://192.168.1.10/",
  "https://169.254.169.254/latest/meta-data/",
  "https://100.64.0.1/",
  "https://224.0.0.1/",
  "https://0.0.0.0/",
  "https://[::1]/",
  "https://[fc00::1]/",
  "https://[fd00::1]:8443/",
  "https://[fe80::1]/",
  "https://[::ffff:10.0.0.1]/",
  "https://[::ffff:127.0.0.1]/",
  "https://[64:ff9b::a00:1]/",
  "https://localhost/",
  "https://localhost:3000/",
  "https://LOCALHOST./",
  "https://api.localhost/",
  "https://db.internal/",
  "https://metadata.google.internal/",
  "https://intranet/",
  // Other spellings of loopback that the URL parser normalizes to 127.0.0.1.
  "https://2130706433/",
  "https://0x7f.0.0.1/",
  "https://127.1/",
  "https://127.0.0.1./"
]

const garbage = ["", "not a url", "example.com/hooks", "/hooks", "//example.com/hooks", "https://", "https://exa mple.com/", "https://example.com:99999/"]

describe("create: URL rules", () => {
  it("live: https to a public host is accepted (normalized by the URL parser)", () => {
    for (const [url, normalized] of [
      ["https://example.com/hooks", "https://example.com/hooks"],
      ["https://Hooks.Example.COM/fils?x=1", "https://hooks.example.com/fils?x=1"],
      ["https://example.com", "https://example.com/"],
      ["https://example.com:8443/a/b", "https://example.com:8443/a/b"],
      ["https://8.8.8.8/hooks", "https://8.8.8.8/hooks"],
      ["https://[2606:4700::1]/hooks", "https://[2606:4700::1]/hooks"]
    ] as const) {
      assert.strictEqual(createOk({ url }, true).url, normalized)
    }
  })

  it("live: http is refused, even to a public host", () => {
    for (const url of ["http://example.com/hooks", "http://8.8.8.8/", "http://127.0.0.1:4343/"]) {
      assert.match(refusal(url, true), /https/, url)
    }
  })

  it("live: loopback, private, link-local and other internal hosts are refused", () => {
    for (const url of internalHttpsUrls) {
      assert.match(refusal(url, true), /public host|internal/, url)
    }
  })

  it("test: http and https are allowed, and loopback, but no other internal host", () => {
    for (const url of [
      "http://127.0.0.1:4343/hooks",
      "http://127.9.9.9/",
      "http://localhost:4343/",
      "http://hooks.localhost/",
      "http://[::1]:4343/",
      "http://[::ffff:127.0.0.1]/",
      "https://example.com/hooks",
      "http://example.com/hooks"
    ]) {
      const endpoint = createOk({ url }, false)
      assert.strictEqual(endpoint.url, new URL(url).toString())
    }
    const loopback = /^https:\/\/(127\.|\[::1\]|\[::ffff:127\.|([a-z0-9-]+\.)*localhost\b|2130706433|0x7f\.)/i
    for (const url of internalHttpsUrls.filter((u) => !loopback.test(u))) {
      assert.match(refusal(url, false), /internal/, url)
    }
    for (const url of ["http://10.0.0.1/", "http://169.254.169.254/", "http://[fe80::1]/", "http://db.internal/"]) {
      assert.match(refusal(url, false), /internal/, url)
    }
  })

  it("credentials in the URL are refused in both modes", () => {
    for (const livemode of [true, false]) {
      for (const url of ["https://user:secret@example.com/", "https://user@example.com/", "http://:pw@127.0.0.1/"]) {
        assert.match(refusal(url, livemode), /credentials/, url)
      }
    }
  })

  it("garbage and other schemes are refused in both modes", () => {
    for (const livemode of [true, false]) {
      for (const url of [...garbage, "ftp://example.com/", "javascript:alert(1)", "file:///etc/passwd", "mailto:a@example.com", "ws://example.com/"]) {
        refusal(url, livemode)
      }
    }
  })

  it.prop(
    "live: any https URL whose host is in 10/8, 127/8, 172.16/12 or 192.168/16 is refused; test allows only 127/8",
    [
      FastCheck.oneof(
        FastCheck.tuple(FastCheck.constant(10), FastCheck.nat(255), FastCheck.nat(255), FastCheck.nat(255)),
        FastCheck.tuple(FastCheck.constant(127), FastCheck.nat(255), FastCheck.nat(255), FastCheck.nat(255)),
        FastCheck.tuple(FastCheck.constant(172), FastCheck.integer({ min: 16, max: 31 }), FastCheck.nat(255), FastCheck.nat(255)),
        FastCheck.tuple(FastCheck.constant(192), FastCheck.constant(168), FastCheck.nat(255), FastCheck.nat(255))
      ),
      FastCheck.integer({ min: 1, max: 65535 })
    ],
    ([octets, port]) => {
      const url = `https://${octets.join(".")}:${port}/hooks`
      refusal(url, true)
      if (octets[0] === 127) createOk({ url }, false)
      else refusal(url, false)
    }
  )
})

describe("create: defaults", () => {
  it("description \"\", all seven event types, enabled; the given id, account, mode, secret and time", () => {
    const endpoint = createOk({ url: "https://example.com/hooks" }, true)
    assert.deepStrictEqual(endpoint, {
      object: "webhook",
      webhook_id: ctx(true).id,
      account_id: ctx(true).accountId,
      livemode: true,
      url: "https://example.com/hooks",
      description: "",
      event_types: [
        "payment.succeeded",
        "payment.failed",
        "refund.succeeded",
        "subscription.active",
        "subscription.renewed",
        "subscription.on_hold",
        "subscription.cancelled"
      ],
      disabled: false,
      secret: ctx(true).secret,
      created_at: now
    })
    assert.strictEqual(endpoint.event_types.length, 7)
    assert.isFalse(createOk({ url: "http://127.0.0.1/" }, false).livemode)
  })

  it("the signing secret is Redacted: printing the endpoint shows none; withSecret, the response that shows it, does", () => {
    const endpoint = createOk({ url: "https://example.com/hooks" }, true)
    assertHidden(endpoint, [Redacted.value(signingSecret)], "the endpoint")
    const shown = WebhookEndpoint.withSecret({ ...endpoint, health: WebhookHealth.toResource(WebhookHealth.none) })
    assert.strictEqual(shown.secret, Redacted.value(signingSecret))
    assert.deepStrictEqual(Schema.encodeSync(WebhookEndpoint.WebhookWithSecret)(shown), {
      object: "webhook",
      webhook_id: endpoint.webhook_id,
      url: "https://example.com/hooks",
      description: "",
      event_types: [...endpoint.event_types],
      disabled: false,
      livemode: true,
      created_at: "2026-11-21T10:00:00.000Z",
      health: { attempts_last_day: 0, failed_last_day: 0, failure_rate_last_day: null, failing_since: null, auto_disabled_at: null },
      secret: Redacted.value(signingSecret)
    })
  })

  it("given values are kept", () => {
    const endpoint = createOk({
      url: "https://example.com/hooks",
      description: "ERP sync",
      event_types: ["refund.succeeded"],
      disabled: true
    }, true)
    assert.strictEqual(endpoint.description, "ERP sync")
    assert.deepStrictEqual(endpoint.event_types, ["refund.succeeded"])
    assert.isTrue(endpoint.disabled)
  })

  it.prop(
    "event types are deduplicated (each type once, in the canonical order)",
    [FastCheck.array(FastCheck.constantFrom(...eventTypes), { minLength: 1, maxLength: 20 })],
    ([types]) => {
      const endpoint = createOk({ url: "https://example.com/", event_types: types }, true)
      assert.deepStrictEqual([...endpoint.event_types], eventTypes.filter((t) => types.includes(t)))
      assert.strictEqual(new Set(endpoint.event_types).size, endpoint.event_types.length)
    }
  )
})

describe("the create and update bodies", () => {
  const decodeCreate = Schema.decodeUnknownEither(WebhookEndpoint.WebhookCreate)
  const decodeUpdate = Schema.decodeUnknownEither(WebhookEndpoint.WebhookUpdate)

  it("url is required on create; event_types may not be empty nor name an unknown type", () => {
    assert.isTrue(Either.isRight(decodeCreate({ url: "https://example.com/" })))
    assert.isTrue(Either.isLeft(decodeCreate({})))
    assert.isTrue(Either.isLeft(decodeCreate({ url: "https://example.com/", event_types: [] })))
    assert.isTrue(Either.isLeft(decodeCreate({ url: "https://example.com/", event_types: ["payment.created"] })))
    assert.isTrue(Either.isLeft(decodeUpdate({ event_types: [] })))
    assert.isTrue(Either.isRight(decodeUpdate({})))
    assert.isTrue(Either.isLeft(decodeCreate({ url: `https://example.com/${"a".repeat(2048)}` })))
  })
})

describe("update", () => {
  const live = () => createOk({ url: "https://example.com/hooks", event_types: ["payment.succeeded"] }, true)
  const test = () => createOk({ url: "http://127.0.0.1:4343/" }, false)

  const updateOk = (endpoint: WebhookEndpoint.WebhookEndpoint, patch: WebhookEndpoint.WebhookUpdate) => {
    const r = WebhookEndpoint.update(endpoint, patch)
    if (Either.isLeft(r)) return assert.fail(r.left.message)
    return r.right
  }

  it("an empty patch changes nothing", () => {
    const endpoint = live()
    assert.deepStrictEqual(updateOk(endpoint, {}), endpoint)
  })

  it("changes only the given fields; id, account, mode, secret and created_at stay", () => {
    const endpoint = live()
    const next = updateOk(endpoint, {
      url: "https://other.example.com/x",
      description: "new",
      event_types: ["subscription.renewed", "payment.failed", "subscription.renewed"],
      disabled: true
    })
    assert.deepStrictEqual(next, {
      ...endpoint,
      url: "https://other.example.com/x",
      description: "new",
      event_types: ["payment.failed", "subscription.renewed"],
      disabled: true
    })
    assert.deepStrictEqual(updateOk(next, { disabled: false }), { ...next, disabled: false })
  })

  it("a live endpoint's new url follows the live rules", () => {
    const endpoint = live()
    for (const url of ["http://example.com/", "https://127.0.0.1/", "https://10.0.0.1/", "https://localhost/", "https://u:p@example.com/", "nope"]) {
      const r = WebhookEndpoint.update(endpoint, { url })
      assert.isTrue(Either.isLeft(r), url)
    }
  })

  it("a test endpoint's new url follows the test rules", () => {
    const endpoint = test()
    assert.strictEqual(updateOk(endpoint, { url: "http://localhost:9999/in" }).url, "http://localhost:9999/in")
    assert.strictEqual(updateOk(endpoint, { url: "https://example.com/" }).url, "https://example.com/")
    for (const url of ["ftp://example.com/", "https://u:p@example.com/", "", "nope"]) {
      assert.isTrue(Either.isLeft(WebhookEndpoint.update(endpoint, { url })), url)
    }
  })
})

describe("subscribes", () => {
  it.prop(
    "true exactly when enabled and the type is among the endpoint's event types",
    [
      FastCheck.array(FastCheck.constantFrom(...eventTypes), { minLength: 1, maxLength: 7 }),
      FastCheck.boolean(),
      FastCheck.constantFrom(...eventTypes)
    ],
    ([types, disabled, type]) => {
      const endpoint = createOk({ url: "https://example.com/", event_types: types, disabled }, true)
      assert.strictEqual(WebhookEndpoint.subscribes(endpoint, type), !disabled && types.includes(type))
    }
  )

  it("the default endpoint subscribes to the seven payment and subscription types, not to those named only; disabling stops all", () => {
    const endpoint = createOk({ url: "https://example.com/" }, true)
    for (const type of eventTypes) {
      assert.strictEqual(WebhookEndpoint.subscribes(endpoint, type), !byNameOnly.includes(type), type)
    }
    assert.strictEqual(eventTypes.filter((t) => WebhookEndpoint.subscribes(endpoint, t)).length, 7)
    const named = createOk({ url: "https://example.com/", event_types: ["invoice.issued", "credit_note.issued"] }, true)
    assert.deepStrictEqual(eventTypes.filter((t) => WebhookEndpoint.subscribes(named, t)), ["invoice.issued", "credit_note.issued"])
    const disabled = { ...endpoint, disabled: true }
    for (const type of eventTypes) assert.isFalse(WebhookEndpoint.subscribes(disabled, type), type)
    const only: ReadonlyArray<EventType> = ["refund.succeeded"]
    const narrow = { ...endpoint, event_types: only }
    assert.deepStrictEqual(eventTypes.filter((t) => WebhookEndpoint.subscribes(narrow, t)), ["refund.succeeded"])
  })
})

describe("url taken only as sent", () => {
  it("refuses surrounding spaces and control characters the URL parser would strip or remove", () => {
    for (const url of [" https://hooks.example.ae/", "https://hooks.example.ae/ ", "https://hooks.example.ae/a\tb", "https://hooks.example.ae/\r\n", "\u0000https://hooks.example.ae/"]) {
      const result = WebhookEndpoint.checkUrl(url, false)
      assert.isTrue(Either.isLeft(result), JSON.stringify(url))
      if (Either.isLeft(result)) assert.match(result.left.message, /^url must not contain spaces or control characters/)
    }
    assert.deepStrictEqual(WebhookEndpoint.checkUrl("HTTPS://Hooks.Example.AE:443/a/../in", true), Either.right("https://hooks.example.ae/in"))
  })
})

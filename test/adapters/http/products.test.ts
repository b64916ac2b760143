/** `/api/v1/products`: create, read and update over a real HTTP server, on both stores. */
import { DateTime, Effect } from "effect"
import { connect } from "node:net"
import { expect, it } from "vitest"
import { call, clientFor, type FilsClient, rawFor, type TestServer } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

const valid = { name: "Oud perfume", price: 34900, currency: "AED" }
const idPattern = /^pdt_[0-9a-f]{32}$/
const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * POSTs a product whose description is `size` bytes (at most 5000 is valid), as a chunked body (no Content-Length), over a raw socket so
 * that whatever the server sends before closing is seen even if it stops reading the upload. Returns the raw reply.
 */
const chunkedPost = (server: TestServer, key: string, size: number) =>
  new Promise<string>((resolve) => {
    const socket = connect(Number(new URL(server.origin).port), "127.0.0.1")
    let data = ""
    let timer: ReturnType<typeof setInterval> | undefined
    socket.on("data", (d) => (data += d.toString("utf8")))
    socket.on("error", () => {})
    socket.on("close", () => {
      if (timer !== undefined) clearInterval(timer)
      resolve(data)
    })
    const chunk = (text: string) => socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`)
    socket.write(
      "POST /api/v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
        `Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
    )
    chunk("{\"name\":\"chunked\",\"price\":1,\"currency\":\"AED\",\"metadata\":{\"pad\":\"\"},\"description\":\"")
    let sent = 0
    timer = setInterval(() => {
      if (socket.destroyed || socket.writableEnded) return
      if (sent < size) {
        const n = Math.min(64 * 1024, size - sent)
        sent += n
        chunk("x".repeat(n))
      } else {
        clearInterval(timer)
        chunk("\"}")
        socket.write("0\r\n\r\n")
      }
    }, 2)
    setTimeout(() => socket.destroy(), 10_000)
  })

describeStores("products over HTTP", (variant) => {
  const server = useServer(variant)
  let client: FilsClient
  const rawA = () => rawFor(server(), server().accountA.test.key)

  it("creates a product with the typed client and the documented defaults", async () => {
    client = await clientFor(server(), server().accountA.test.key)
    const product = await call(client.products.create({ payload: valid, headers: {} }))
    expect(product.product_id).toMatch(idPattern)
    expect(product).toMatchObject({
      object: "product",
      name: "Oud perfume",
      description: "",
      price: 34900,
      currency: "AED",
      billing: "one_time",
      billing_interval: null,
      interval_count: null,
      trial_period_days: 0,
      trial_amount: null,
      status: "active",
      metadata: {},
      livemode: false,
      updated_at: null
    })
    const read = await call(client.products.get({ path: { id: product.product_id } }))
    expect(read.product_id).toBe(product.product_id)
    expect(DateTime.toEpochMillis(read.created_at)).toBe(DateTime.toEpochMillis(product.created_at))
  })

  it("answers every documented field on the wire, timestamps in UTC with milliseconds", async () => {
    const res = await rawA().post("/products", { ...valid, description: "50 ml", metadata: { sku: "OUD-50" } })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    expect(Object.keys(res.json).sort()).toEqual([
      "billing",
      "billing_interval",
      "created_at",
      "currency",
      "description",
      "interval_count",
      "item_code",
      "item_type",
      "livemode",
      "metadata",
      "name",
      "object",
      "offered_in_portal",
      "plan_change_policy",
      "price",
      "product_id",
      "status",
      "tax_category",
      "tax_exemption_code",
      "trial_amount",
      "trial_period_days",
      "updated_at"
    ])
    // No trial unless the merchant gives one
    expect(res.json).toMatchObject({ trial_period_days: 0, trial_amount: null })
    // VAT at the standard rate, a service without a code, unless the merchant says otherwise
    expect(res.json).toMatchObject({ tax_category: "S", tax_exemption_code: null, item_type: "S", item_code: null })
    expect(res.json.created_at).toMatch(isoMillis)
    expect(res.json.updated_at).toBeNull()
    expect(res.json.description).toBe("50 ml")
    expect(res.json.metadata).toEqual({ sku: "OUD-50" })
    expect(Math.abs(Date.parse(res.json.created_at) - Date.now())).toBeLessThan(60_000)
  })

  it("creates a product with a live key in live mode", async () => {
    const live = await rawFor(server(), server().accountA.live.key).post("/products", valid)
    expect(live.status).toBe(200)
    expect(live.json.livemode).toBe(true)
  })

  it("applies the recurring rules: interval required, count defaults to 1, at most three years", async () => {
    const raw = rawA()
    const monthly = await raw.post("/products", { ...valid, billing: "recurring", billing_interval: "month" })
    expect(monthly.status).toBe(200)
    expect(monthly.json).toMatchObject({ billing: "recurring", billing_interval: "month", interval_count: 1 })

    const daily = await raw.post("/products", { ...valid, billing: "recurring", billing_interval: "day", interval_count: 365 })
    expect(daily.status).toBe(200)
    expect(daily.json.interval_count).toBe(365)

    for (const [interval, max] of [["year", 3], ["month", 36], ["week", 156], ["day", 365]] as const) {
      const ok = await raw.post("/products", { ...valid, billing: "recurring", billing_interval: interval, interval_count: max })
      expect(ok.status, `${interval} × ${max}`).toBe(200)
      const over = await raw.post("/products", {
        ...valid,
        billing: "recurring",
        billing_interval: interval,
        interval_count: max + 1
      })
      expectError(over, 400, "INVALID_REQUEST")
    }

    expectError(await raw.post("/products", { ...valid, billing: "recurring" }), 400, "INVALID_REQUEST")
    expectError(
      await raw.post("/products", { ...valid, billing: "recurring", billing_interval: "month", interval_count: 0 }),
      400,
      "INVALID_REQUEST"
    )
    expectError(
      await raw.post("/products", { ...valid, billing: "recurring", billing_interval: "fortnight" }),
      400,
      "INVALID_REQUEST"
    )
    // one-time products carry no schedule
    expectError(await raw.post("/products", { ...valid, billing_interval: "month" }), 400, "INVALID_REQUEST")
    expectError(await raw.post("/products", { ...valid, billing: "one_time", interval_count: 2 }), 400, "INVALID_REQUEST")
    const explicitNulls = await raw.post("/products", {
      ...valid,
      billing: "one_time",
      billing_interval: null,
      interval_count: null
    })
    expect(explicitNulls.status).toBe(200)
  })

  it("accepts the status and metadata fields", async () => {
    const draft = await rawA().post("/products", { ...valid, status: "draft", metadata: { a: "1", b: "" } })
    expect(draft.status).toBe(200)
    expect(draft.json).toMatchObject({ status: "draft", metadata: { a: "1", b: "" } })
  })

  it("refuses a currency other than AED with 400 CURRENCY_NOT_SUPPORTED", async () => {
    for (const currency of ["USD", "EUR", "aed", ""]) {
      const message = expectError(await rawA().post("/products", { ...valid, currency }), 400, "CURRENCY_NOT_SUPPORTED")
      expect(message).toContain("AED")
    }
    // a currency that is not a string is a type error, not an unsupported currency
    expectError(await rawA().post("/products", { ...valid, currency: 784 }), 400, "INVALID_REQUEST")
  })

  it("refuses an unknown field with 400 INVALID_REQUEST naming the field", async () => {
    const message = expectError(
      await rawA().post("/products", { ...valid, colour: "gold" }),
      400,
      "INVALID_REQUEST"
    )
    expect(message).toContain("colour")
    const nested = expectError(await rawA().post("/products", { ...valid, unit_amount: 5 }), 400, "INVALID_REQUEST")
    expect(nested).toContain("unit_amount")
  })

  it("refuses missing fields and wrong types with 400 INVALID_REQUEST", async () => {
    const raw = rawA()
    const missing = expectError(await raw.post("/products", { price: 1, currency: "AED" }), 400, "INVALID_REQUEST")
    expect(missing).toContain("name")
    const bodies: ReadonlyArray<unknown> = [
      { ...valid, price: "34900" },
      { ...valid, price: 1.5 },
      { ...valid, price: -1 },
      { ...valid, price: null },
      { ...valid, name: "" },
      { ...valid, name: "x".repeat(201) },
      { ...valid, name: 42 },
      { ...valid, description: "x".repeat(5001) },
      { ...valid, status: "deleted" },
      { ...valid, billing: "monthly" },
      { ...valid, metadata: { n: 1 } },
      { ...valid, metadata: { k: "x".repeat(501) } },
      { ...valid, metadata: { ["k".repeat(41)]: "v" } },
      { ...valid, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) },
      { ...valid, metadata: ["a"] },
      [valid],
      "a string",
      42,
      null
    ]
    for (const body of bodies) {
      const res = await raw.post("/products", JSON.stringify(body))
      expectError(res, 400, "INVALID_REQUEST")
    }
    // the boundaries themselves are accepted
    const edges = await raw.post("/products", {
      ...valid,
      name: "x".repeat(200),
      description: "d".repeat(5000),
      price: 0,
      metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "v".repeat(500)]))
    })
    expect(edges.status, edges.text).toBe(200)
  })

  it("refuses malformed JSON with 400 INVALID_REQUEST", async () => {
    for (const text of ["{not json", "{\"name\": \"x\",}", "", "{\"name\":"]) {
      expectError(await rawA().post("/products", text), 400, "INVALID_REQUEST")
    }
  })

  it("refuses a body that is not JSON by its content type with 400 INVALID_REQUEST", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const res = await rawA().post("/products", JSON.stringify(valid), { headers: { "content-type": type } })
      expectError(res, 400, "INVALID_REQUEST")
    }
    const form = await rawA().post("/products", "name=Oud&price=100&currency=AED", {
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expectError(form, 400, "INVALID_REQUEST")
  })

  it("refuses a body over 1 MiB with 413 PAYLOAD_TOO_LARGE (declared length)", async () => {
    const body = JSON.stringify({ ...valid, description: "x".repeat(1024 * 1024 + 10) })
    expectError(await rawA().post("/products", body), 413, "PAYLOAD_TOO_LARGE")
  })

  it("accepts a chunked body (no declared length) under the limit", async () => {
    const received = await chunkedPost(server(), server().accountA.test.key, 4000)
    expect(received.split("\r\n")[0]).toMatch(/^HTTP\/1\.1 200 /)
    expect(received).toContain("\"object\":\"product\"")
  })

  it("refuses a body over 1 MiB with 413 PAYLOAD_TOO_LARGE (chunked, no declared length)", async () => {
    const received = await chunkedPost(server(), server().accountA.test.key, 1.5 * 1024 * 1024)
    expect(received.split("\r\n")[0], `the server answered ${JSON.stringify(received.slice(0, 200))}`).toMatch(
      /^HTTP\/1\.1 413 /
    )
    expect(received).toContain("PAYLOAD_TOO_LARGE")
  })

  it("accepts a body of exactly 1 MiB and refuses one byte more", async () => {
    const body = JSON.stringify({ ...valid, metadata: { a: "b" } })
    const padded = (size: number) => body.replace("{", "{" + " ".repeat(size - body.length))
    const exact = padded(1024 * 1024)
    expect(Buffer.byteLength(exact)).toBe(1024 * 1024)
    const res = await rawA().post("/products", exact)
    expect(res.status, res.text).toBe(200)
    expect(res.json.metadata).toEqual({ a: "b" })
    expectError(await rawA().post("/products", padded(1024 * 1024 + 1)), 413, "PAYLOAD_TOO_LARGE")
  })

  it("gives the typed client the declared errors", async () => {
    const missing = await Effect.runPromise(
      Effect.flip(client.products.get({ path: { id: `pdt_${"0".repeat(32)}` } }))
    )
    expect(missing._tag).toBe("NotFound")
    expect((missing as { code?: string }).code).toBe("NOT_FOUND")
    const currency = await Effect.runPromise(
      Effect.flip(client.products.create({ payload: { ...valid, currency: "USD" }, headers: {} }))
    )
    expect(currency._tag).toBe("CurrencyNotSupported")
  })

  it("answers 404 NOT_FOUND for an unknown, malformed, other-account or other-mode id", async () => {
    const s = server()
    const own = await rawA().post("/products", valid)
    expect(own.status).toBe(200)
    const id = own.json.product_id as string
    const unknown = "pdt_" + "0".repeat(32)
    const paths = [
      `/products/${unknown}`,
      "/products/pdt_123",
      `/products/${id.toUpperCase()}`,
      `/products/${id.replace("pdt_", "cus_")}`,
      `/products/${id}x`,
      "/products/%20"
    ]
    for (const path of paths) {
      expectError(await rawA().get(path), 404, "NOT_FOUND")
      expectError(await rawA().patch(path, { name: "x" }), 404, "NOT_FOUND")
    }
    for (const key of [s.accountB.test.key, s.accountA.live.key, s.accountB.live.key]) {
      expectError(await rawFor(s, key).get(`/products/${id}`), 404, "NOT_FOUND")
      expectError(await rawFor(s, key).patch(`/products/${id}`, { name: "stolen" }), 404, "NOT_FOUND")
    }
    const after = await rawA().get(`/products/${id}`)
    expect(after.status).toBe(200)
    expect(after.json).toStrictEqual(own.json)
  })

  it("updates a product: fields change, updated_at is set, created_at stays", async () => {
    const created = await call(client.products.create({ payload: { ...valid, metadata: { a: "1", b: "2" } }, headers: {} }))
    const res = await rawA().patch(`/products/${created.product_id}`, {
      name: "Oud perfume 100 ml",
      price: 59900,
      description: "Bigger",
      status: "archived",
      metadata: { c: "3" }
    })
    expect(res.status, res.text).toBe(200)
    expect(res.json).toMatchObject({
      product_id: created.product_id,
      name: "Oud perfume 100 ml",
      price: 59900,
      description: "Bigger",
      status: "archived",
      metadata: { c: "3" } // replaced, not merged
    })
    expect(res.json.updated_at).toMatch(isoMillis)
    expect(Date.parse(res.json.updated_at)).toBeGreaterThanOrEqual(Date.parse(res.json.created_at))
    expect(Date.parse(res.json.created_at)).toBe(DateTime.toEpochMillis(created.created_at))
    const read = await rawA().get(`/products/${created.product_id}`)
    expect(read.json).toStrictEqual(res.json)

    const typed = await call(client.products.update({ path: { id: created.product_id }, payload: { status: "active" } }))
    expect(typed.status).toBe("active")
    expect(typed.name).toBe("Oud perfume 100 ml")
    expect(typed.updated_at).not.toBeNull()
  })

  it("applies the billing rules on update", async () => {
    const raw = rawA()
    const one = await raw.post("/products", valid)
    const id = one.json.product_id as string
    // an interval on a one-time product is refused, and nothing changes
    expectError(await raw.patch(`/products/${id}`, { billing_interval: "month" }), 400, "INVALID_REQUEST")
    // switching to recurring needs an interval
    expectError(await raw.patch(`/products/${id}`, { billing: "recurring" }), 400, "INVALID_REQUEST")
    const unchanged = await raw.get(`/products/${id}`)
    expect(unchanged.json).toStrictEqual(one.json)

    const recurring = await raw.patch(`/products/${id}`, { billing: "recurring", billing_interval: "year" })
    expect(recurring.status, recurring.text).toBe(200)
    expect(recurring.json).toMatchObject({ billing: "recurring", billing_interval: "year", interval_count: 1 })
    expectError(await raw.patch(`/products/${id}`, { interval_count: 4 }), 400, "INVALID_REQUEST")
    const count = await raw.patch(`/products/${id}`, { interval_count: 3 })
    expect(count.json).toMatchObject({ billing_interval: "year", interval_count: 3 })
    // a trial: its days, then a paid one; a paid trial needs its days, and a one-time product has none
    expectError(await raw.patch(`/products/${id}`, { trial_amount: 500 }), 400, "INVALID_REQUEST")
    expectError(await raw.patch(`/products/${id}`, { trial_period_days: 366 }), 400, "INVALID_REQUEST")
    const trial = await raw.patch(`/products/${id}`, { trial_period_days: 14, trial_amount: 500 })
    expect(trial.json).toMatchObject({ trial_period_days: 14, trial_amount: 500 })
    expect(expectError(await raw.patch(`/products/${id}`, { trial_period_days: 0 }), 400, "INVALID_REQUEST"))
      .toContain("trial_amount needs a trial")
    expect((await raw.get(`/products/${id}`)).json).toStrictEqual(trial.json)
    // back to one-time: the schedule, trial included, is cleared
    const back = await raw.patch(`/products/${id}`, { billing: "one_time" })
    expect(back.status, back.text).toBe(200)
    expect(back.json).toMatchObject({
      billing: "one_time",
      billing_interval: null,
      interval_count: null,
      trial_period_days: 0,
      trial_amount: null
    })
    expect(expectError(await raw.patch(`/products/${id}`, { trial_period_days: 7 }), 400, "INVALID_REQUEST"))
      .toContain("recurring")
  })

  it("refuses invalid updates with 400 INVALID_REQUEST and leaves the product as it was", async () => {
    const raw = rawA()
    const one = await raw.post("/products", valid)
    const id = one.json.product_id as string
    const bodies: ReadonlyArray<unknown> = [
      { name: "" },
      { price: -5 },
      { price: "1" },
      { status: "gone" },
      { currency: "AED" }, // not an updatable field
      { product_id: "pdt_" + "1".repeat(32) },
      { unknown_field: true },
      { metadata: { k: 1 } },
      [],
      null
    ]
    for (const body of bodies) {
      expectError(await raw.patch(`/products/${id}`, JSON.stringify(body)), 400, "INVALID_REQUEST")
    }
    const message = expectError(await raw.patch(`/products/${id}`, { nickname: "x" }), 400, "INVALID_REQUEST")
    expect(message).toContain("nickname")
    expectError(await raw.patch(`/products/${id}`, "{oops"), 400, "INVALID_REQUEST")
    const after = await raw.get(`/products/${id}`)
    expect(after.json).toStrictEqual(one.json)
  })

  it("takes the VAT fields; an exempt product needs its exemption reason, and a refused one is not created", async () => {
    const raw = rawA()
    const name = "Exempt without a reason"
    const refused = await raw.post("/products", { ...valid, name, tax_category: "E" })
    expect(expectError(refused, 400, "INVALID_REQUEST")).toBe("tax_exemption_code is required when tax_category is 'E' (exempt)")
    const reasonNotExempt = await raw.post("/products", { ...valid, name, tax_exemption_code: "DL8.46.1" })
    expect(expectError(reasonNotExempt, 400, "INVALID_REQUEST")).toMatch(/tax_exemption_code must be null unless tax_category is 'E'/)
    const all = await raw.get("/products?limit=100")
    expect(all.json.items.map((p: { name: string }) => p.name)).not.toContain(name)

    const exempt = await raw.post("/products", {
      ...valid,
      name: "Financial advice",
      tax_category: "E",
      tax_exemption_code: "DL8.46.1",
      item_type: "S",
      item_code: "997159"
    })
    expect(exempt.status, exempt.text).toBe(200)
    expect(exempt.json).toMatchObject({ tax_category: "E", tax_exemption_code: "DL8.46.1", item_type: "S", item_code: "997159" })
    // Standard-rated again: the exemption reason goes with the exemption.
    const standard = await raw.patch(`/products/${exempt.json.product_id}`, { tax_category: "S" })
    expect(standard.status, standard.text).toBe(200)
    expect(standard.json).toMatchObject({ tax_category: "S", tax_exemption_code: null })
  })

  it("takes a recurring product's plan change policy and portal flag; a one-time product refuses them", async () => {
    const raw = rawA()
    const policy = {
      upgrade: { proration_billing_mode: "prorated_immediately", effective_at: "immediately" },
      downgrade: { proration_billing_mode: "full_immediately", effective_at: "next_billing_date" }
    }
    const plan = await raw.post("/products", { ...valid, billing: "recurring", billing_interval: "month", plan_change_policy: policy, offered_in_portal: true })
    expect(plan.status, plan.text).toBe(200)
    expect(plan.json).toMatchObject({ plan_change_policy: policy, offered_in_portal: true })
    expect((await raw.get(`/products/${plan.json.product_id}`)).json).toMatchObject({ plan_change_policy: policy, offered_in_portal: true })
    const bad = await raw.post("/products", { ...valid, billing: "recurring", billing_interval: "month", plan_change_policy: { upgrade: policy.upgrade } })
    expect(expectError(bad, 400, "INVALID_REQUEST")).toContain("downgrade")
    const oneTime = await raw.post("/products", valid)
    expect(oneTime.json).toMatchObject({ plan_change_policy: null, offered_in_portal: false })
    expect(expectError(await raw.patch(`/products/${oneTime.json.product_id}`, { offered_in_portal: true }), 400, "INVALID_REQUEST"))
      .toBe("offered_in_portal must be false when billing is 'one_time'")
    // Made one-time, a plan drops them, as it drops its schedule.
    const switched = await raw.patch(`/products/${plan.json.product_id}`, { billing: "one_time" })
    expect(switched.json).toMatchObject({ billing_interval: null, plan_change_policy: null, offered_in_portal: false })
  })
})

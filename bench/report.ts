/** The benchmark's result shape, its table, and its targets with pass/fail. */

export interface LoadFigures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly requests: number
  readonly failed: number
  readonly cpuMsPerRequest: number
  /** PostgreSQL's CPU time per request, when it runs on the bench's machine (absent in older results). */
  readonly databaseCpuMsPerRequest?: number
  readonly peakRssMb: number
  /** A paced run's load generator's own event-loop delay, p99 and worst, ms (paced.ts; absent in older results). */
  readonly generatorDelayP99?: number
  readonly generatorDelayMax?: number
}

export interface Results {
  readonly at: string
  readonly machine: { readonly cpus: number; readonly cpu: string; readonly memoryGb: number }
  readonly settings: Record<string, unknown>
  /** Each side's better of two alternating runs; `runs`, the req/s of every run. */
  readonly load: Record<string, {
    name: string
    baseline: LoadFigures
    fils: LoadFigures
    ratio: number
    runs?: { readonly baseline: ReadonlyArray<number>; readonly fils: ReadonlyArray<number> }
  }>
  /** Each side's steadier of two alternating runs; `runs`, the p99 of every run. */
  readonly fixedRate: {
    readonly rate: number
    readonly baseline: LoadFigures
    readonly fils: LoadFigures
    readonly runs?: { readonly baseline: ReadonlyArray<number>; readonly fils: ReadonlyArray<number> }
  }
  readonly deliveries: {
    readonly events: number
    readonly endpoints: number
    readonly deliveries: number
    readonly succeeded: number
    readonly received: number
    readonly seedMs: number
    readonly drainMs: number
    readonly perSecond: number
  }
  readonly renewals: {
    readonly subscriptions: number
    readonly charged: number
    readonly commandMs: number
    readonly emptyCommandMs: number
    readonly perSecond: number
    readonly perSecondGross: number
    /** The renewals /s of each run (the better one's figures above). */
    readonly runs?: ReadonlyArray<number>
  }
  /**
   * The plan change's preview and the change (Fils only: the bare baseline has none), each the better of two runs;
   * their yardstick is the baseline's checkout sessions/s (`load.checkout_create`).
   */
  readonly planChanges?: Record<string, {
    readonly name: string
    readonly fils: LoadFigures
    readonly runs: ReadonlyArray<number>
  }>
  /**
   * The checkout that charges (a session paid on its hosted form), Fils only: the yardstick of a plan change, which
   * charges a saved card (a session's creation charges nothing).
   */
  readonly checkoutPaid?: {
    readonly name: string
    readonly fils: LoadFigures
    readonly runs: ReadonlyArray<number>
  }
  /**
   * `GET /payments/{id}` on new servers of the same age, one logging requests and one with request logs off
   * (`FILS_REQUEST_LOG_RETENTION_DAYS=0`): since 2026-11-28 (morning) a new pair for each of four rounds, `ratio` the
   * median of the rounds' on/off rates and `on`/`off` the lower middle round's figures; before, one pair alternating
   * and each side's best of three runs (two before 2026-11-28).
   */
  readonly requestLog?: {
    readonly on: LoadFigures
    readonly off: LoadFigures
    readonly ratio?: number
    readonly runs: { readonly on: ReadonlyArray<number>; readonly off: ReadonlyArray<number> }
  }
  readonly coldStart: { readonly ms: number; readonly runs: ReadonlyArray<number>; readonly on: string }
  readonly scaling: Array<{
    payments: number
    getRps: number
    getP99: number
    listRps: number
    listP99: number
    /** The dashboard's payments list and home page: median time of sequential requests, ms. */
    dashboardListMs: number
    dashboardHomeMs: number
  }>
  /** The most resident memory sampled (every 200 ms) while `fils serve` was under load. */
  readonly peakRssMb: number
  /** The load it was sampled under. */
  readonly peakRssPhase?: string
  /** VmHWM at the end: the peak over the server's whole life, seeding and background work included. */
  readonly lifetimePeakRssMb: number
}

export interface Target {
  readonly name: string
  readonly value: string
  readonly pass: boolean
}

const f0 = (n: number) => Math.round(n).toLocaleString("en-US")
const f2 = (n: number) => n.toFixed(2)

/** Each target of the benchmark, against this run. */
export const targets = (r: Results): Array<Target> => {
  const get = r.load["payment_get"]!
  const list = r.load["payment_list"]!
  const productCreate = r.load["product_create"]!
  const checkout = r.load["checkout_create"]!
  const base = r.scaling[0]!
  const out: Array<Target> = [
    { name: "GET /payments/{id} ≥ 0.6 × baseline", value: `${f2(get.ratio)} ×`, pass: get.ratio >= 0.6 },
    { name: "GET /payments?limit=20 ≥ 0.5 × baseline", value: `${f2(list.ratio)} ×`, pass: list.ratio >= 0.5 },
    { name: "POST /products ≥ 0.6 × baseline", value: `${f2(productCreate.ratio)} ×`, pass: productCreate.ratio >= 0.6 },
    {
      name: "POST /checkout_sessions ≥ 0.5 × baseline",
      value: `${f2(checkout.ratio)} ×`,
      pass: checkout.ratio >= 0.5
    },
    {
      name: "p99 ≤ 25 ms at 1,000 req/s (GET /payments/{id})",
      value: `${r.fixedRate.fils.p99} ms`,
      pass: r.fixedRate.fils.p99 <= 25
    },
    { name: "≥ 1,500 webhook deliveries/s", value: `${f0(r.deliveries.perSecond)} /s`, pass: r.deliveries.perSecond >= 1500 },
    { name: "≥ 1,000 renewals/s", value: `${f0(r.renewals.perSecond)} /s`, pass: r.renewals.perSecond >= 1000 },
    { name: "cold start ≤ 2 s", value: `${f0(r.coldStart.ms)} ms`, pass: r.coldStart.ms <= 2000 },
    { name: "RSS ≤ 250 MB under load", value: `${f0(r.peakRssMb)} MB`, pass: r.peakRssMb <= 250 }
  ]
  if (r.requestLog !== undefined) {
    const { off, on } = r.requestLog
    const cost = 1 - (r.requestLog.ratio ?? on.rps / off.rps)
    out.push({
      name: "request logging costs ≤ 5 % of the GET /payments/{id} rate",
      value: `${(cost * 100).toFixed(1)} % (CPU ${f2(on.cpuMsPerRequest)} vs ${f2(off.cpuMsPerRequest)} ms/req` +
        (on.databaseCpuMsPerRequest === undefined || off.databaseCpuMsPerRequest === undefined
          ? ")"
          : `; the database's ${f2(on.databaseCpuMsPerRequest)} vs ${f2(off.databaseCpuMsPerRequest)} ms/req)`),
      pass: cost <= 0.05
    })
  }
  for (const change of Object.values(r.planChanges ?? {})) {
    const paid = r.checkoutPaid
    if (paid === undefined) {
      // Runs from before the paid checkout was measured: the baseline's session creation.
      const ratio = change.fils.rps / checkout.baseline.rps
      out.push({
        name: `${change.name} ≥ 0.5 × baseline checkout, no failures`,
        value: `${f2(ratio)} ×, ${change.fils.failed} failed`,
        pass: ratio >= 0.5 && change.fils.failed === 0
      })
      continue
    }
    // Within a checkout's bounds: at least the rate of the checkout that charges, as a change charges.
    const ratio = change.fils.rps / paid.fils.rps
    out.push({
      name: `${change.name} ≥ a paid checkout's rate (${f0(paid.fils.rps)} /s), no failures`,
      value: `${f2(ratio)} ×, ${change.fils.failed} failed`,
      pass: ratio >= 1 && change.fils.failed === 0
    })
  }
  const largest = r.scaling.at(-1)!
  out.push({
    name: `dashboard payments list ≤ 100 ms at ${f0(largest.payments)} payments`,
    value: `${f0(largest.dashboardListMs)} ms`,
    pass: largest.dashboardListMs <= 100
  }, {
    name: `dashboard home ≤ 300 ms at ${f0(largest.payments)} payments`,
    value: `${f0(largest.dashboardHomeMs)} ms`,
    pass: largest.dashboardHomeMs <= 300
  })
  for (const row of r.scaling.slice(1)) {
    const get = row.getRps / base.getRps
    const list = row.listRps / base.listRps
    out.push({
      name: `GET /payments/{id} at ${f0(row.payments)} within 10 % of ${f0(base.payments)}`,
      value: `${f2(get)} ×`,
      pass: get >= 0.9
    }, {
      name: `GET /payments list at ${f0(row.payments)} within 10 % of ${f0(base.payments)}`,
      value: `${f2(list)} ×`,
      pass: list >= 0.9
    })
  }
  return out
}

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n")
}

/** The table as Markdown (docs/performance.md takes it as is). */
export const markdown = (r: Results): string => {
  const load = table(
    [
      "scenario",
      "Fils req/s",
      "baseline req/s",
      "Fils/baseline",
      "Fils p50 / p99 ms",
      "baseline p50 / p99 ms",
      "CPU ms/req Fils / baseline",
      "Fils peak RSS MB",
      "each run: baseline; Fils"
    ],
    [
      ...Object.values(r.load).map((s) => [
        s.name,
        f0(s.fils.rps),
        f0(s.baseline.rps),
        f2(s.ratio),
        `${s.fils.p50} / ${s.fils.p99}`,
        `${s.baseline.p50} / ${s.baseline.p99}`,
        `${f2(s.fils.cpuMsPerRequest)} / ${f2(s.baseline.cpuMsPerRequest)}`,
        f0(s.fils.peakRssMb),
        s.runs === undefined ? "" : `${s.runs.baseline.map(f0).join(", ")}; ${s.runs.fils.map(f0).join(", ")} req/s`
      ]),
      ...(r.checkoutPaid === undefined ? [] : [[
        r.checkoutPaid.name,
        f0(r.checkoutPaid.fils.rps),
        "",
        "",
        `${r.checkoutPaid.fils.p50} / ${r.checkoutPaid.fils.p99}`,
        "",
        f2(r.checkoutPaid.fils.cpuMsPerRequest),
        f0(r.checkoutPaid.fils.peakRssMb),
        `${r.checkoutPaid.runs.map(f0).join(", ")} req/s`
      ]]),
      ...Object.values(r.planChanges ?? {}).map((c) => [
        c.name,
        f0(c.fils.rps),
        `(checkout ${f0(r.load["checkout_create"]!.baseline.rps)})`,
        f2(c.fils.rps / r.load["checkout_create"]!.baseline.rps),
        `${c.fils.p50} / ${c.fils.p99}`,
        "",
        f2(c.fils.cpuMsPerRequest),
        f0(c.fils.peakRssMb),
        `${c.runs.map(f0).join(", ")} req/s`
      ]),
      ...(r.requestLog === undefined ? [] : [[
        "GET /payments/{id}, request logs on / off",
        f0(r.requestLog.on.rps),
        `(off ${f0(r.requestLog.off.rps)})`,
        f2(r.requestLog.ratio ?? r.requestLog.on.rps / r.requestLog.off.rps),
        `${r.requestLog.on.p50} / ${r.requestLog.on.p99}`,
        `(off ${r.requestLog.off.p50} / ${r.requestLog.off.p99})`,
        `${f2(r.requestLog.on.cpuMsPerRequest)} / ${f2(r.requestLog.off.cpuMsPerRequest)} (off)`,
        f0(r.requestLog.on.peakRssMb),
        r.requestLog.ratio === undefined
          ? `${r.requestLog.runs.off.map(f0).join(", ")} off; ${r.requestLog.runs.on.map(f0).join(", ")} on req/s`
          : `pairs (off / on): ${r.requestLog.runs.off.map((off, i) => `${f0(off)} / ${f0(r.requestLog!.runs.on[i]!)}`).join(", ")} req/s`
      ]]),
      [
        `GET /payments/{id} at ${f0(r.fixedRate.rate)} req/s`,
        f0(r.fixedRate.fils.rps),
        f0(r.fixedRate.baseline.rps),
        "",
        `${r.fixedRate.fils.p50} / ${r.fixedRate.fils.p99}`,
        `${r.fixedRate.baseline.p50} / ${r.fixedRate.baseline.p99}`,
        `${f2(r.fixedRate.fils.cpuMsPerRequest)} / ${f2(r.fixedRate.baseline.cpuMsPerRequest)}`,
        f0(r.fixedRate.fils.peakRssMb),
        r.fixedRate.runs === undefined
          ? ""
          : `${r.fixedRate.runs.baseline.join(", ")}; ${r.fixedRate.runs.fils.join(", ")} ms p99`
      ]
    ]
  )
  const background = table(["background work", "figure"], [
    [
      `webhook deliveries (${f0(r.deliveries.events)} events × ${r.deliveries.endpoints} endpoints)`,
      `${f0(r.deliveries.perSecond)} /s (${f0(r.deliveries.succeeded)} in ${f0(r.deliveries.drainMs)} ms)`
    ],
    [
      `renewals (${f0(r.renewals.subscriptions)} due, one \`billing run\`)`,
      `${f0(r.renewals.perSecond)} /s (${f0(r.renewals.perSecondGross)} /s counting the command's ${
        f0(r.renewals.emptyCommandMs)
      } ms start)${r.renewals.runs === undefined ? "" : `; runs ${r.renewals.runs.map(f0).join(", ")} /s`}`
    ],
    [`cold start to /ready (${r.coldStart.on})`, `${f0(r.coldStart.ms)} ms (median of ${r.coldStart.runs.join(", ")})`],
    ["peak RSS of `fils serve` under load (sampled)", `${f0(r.peakRssMb)} MB${r.peakRssPhase ? ` (${r.peakRssPhase})` : ""}`],
    ["peak RSS of `fils serve` over the run (VmHWM)", `${f0(r.lifetimePeakRssMb)} MB`]
  ])
  const scaling = table(
    ["stored payments", "GET /payments/{id} req/s", "p99 ms", "GET /payments?limit=20 req/s", "p99 ms", "dashboard list ms", "dashboard home ms"],
    r.scaling.map((s) => [
      f0(s.payments),
      f0(s.getRps),
      String(s.getP99),
      f0(s.listRps),
      String(s.listP99),
      f0(s.dashboardListMs),
      f0(s.dashboardHomeMs)
    ])
  )
  return [load, background, scaling].join("\n\n")
}

export const printReport = (r: Results) => {
  const out: Array<string> = []
  out.push(`Fils benchmark, ${r.at}: ${r.machine.cpus} × ${r.machine.cpu}, ${r.machine.memoryGb} GB`)
  out.push(`settings ${JSON.stringify(r.settings)}`)
  out.push("")
  out.push(markdown(r))
  out.push("")
  out.push("Targets")
  for (const t of targets(r)) out.push(`  ${t.pass ? "PASS" : "FAIL"}  ${t.name}: ${t.value}`)
  process.stdout.write(out.join("\n") + "\n")
}

/**
 * A real ASP for tests: the simulated provider (adapters/einvoice/SimulatedProvider.ts) served on 127.0.0.1 over
 * the HTTP protocol ProviderHttp speaks (docs/einvoicing.md), with switches for the faults a real one has: the next
 * requests answered 500, their connections dropped without an answer, or every answer delayed.
 *
 * Over HTTP only the e-invoice arrives, so the simulation reads from it the one thing its test TRNs need, the buyer's
 * TRN (`PartyTaxScheme/CompanyID` in `AccountingCustomerParty`); Fils' own rules are not run here.
 */
import { Effect } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { makeSimulation, type Simulation, type SimulationOptions } from "../../adapters/einvoice/SimulatedProvider.js"

export interface Faults {
  /** The next this many submits are answered 500 (before the simulation sees them). */
  serverErrors: number
  /** The next this many submits lose their connection without an answer, after the simulation answered. */
  drops: number
  /** Every answer waits this long first (a submit is in `submits` meanwhile). */
  delayMillis: number
}

export interface EInvoiceServer {
  readonly url: string
  readonly token: string
  readonly simulation: Simulation
  readonly faults: Faults
  /** The idempotency key of every submit received, in order (faulted ones included). */
  readonly submits: Array<string>
  /** The e-invoice of each of them. */
  readonly bodies: Array<string>
  readonly close: () => Promise<void>
}

/** The buyer's TRN in a PINT AE e-invoice, if it names one. */
export const buyerTrnOf = (xml: string): string | null => {
  const party = /<cac:AccountingCustomerParty>([\s\S]*?)<\/cac:AccountingCustomerParty>/.exec(xml)?.[1] ?? ""
  return /<cac:PartyTaxScheme>\s*<cbc:CompanyID>([0-9]{15})<\/cbc:CompanyID>/.exec(party)?.[1] ?? null
}

const body = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const json = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(value))
}

export const startEInvoiceServer = async (
  options: SimulationOptions & { readonly token?: string } = {}
): Promise<EInvoiceServer> => {
  const token = options.token ?? "asp_test_token"
  const simulation = await Effect.runPromise(makeSimulation(options))
  const faults: Faults = { serverErrors: 0, drops: 0, delayMillis: 0 }
  const submits: Array<string> = []
  const bodies: Array<string> = []
  const server = createServer((req, res) => {
    void (async () => {
      const text = await body(req)
      const delay = () => (faults.delayMillis > 0 ? new Promise((r) => setTimeout(r, faults.delayMillis)) : Promise.resolve())
      if (req.headers.authorization !== `Bearer ${token}`) return json(res, 401, { error: "unauthorized" })
      const url = new URL(req.url ?? "/", "http://asp")
      if (req.method === "GET" && url.pathname.startsWith("/documents/")) {
        await delay()
        return json(res, 200, simulation.status(decodeURIComponent(url.pathname.slice("/documents/".length))))
      }
      if (req.method !== "POST" || url.pathname !== "/documents") return json(res, 404, { error: "not found" })
      const key = req.headers["idempotency-key"]
      if (typeof key !== "string" || key === "") return json(res, 400, { error: "Idempotency-Key is required" })
      submits.push(key)
      bodies.push(text)
      await delay()
      if (faults.serverErrors > 0) {
        faults.serverErrors--
        return json(res, 500, { error: "internal error" })
      }
      const answer = await Effect.runPromise(Effect.either(
        simulation.answer({ document_id: key, xml: text, buyer_trn: buyerTrnOf(text), findings: [] })
      ))
      if (faults.drops > 0) {
        faults.drops--
        return req.socket.destroy()
      }
      if (answer._tag === "Left") return json(res, 503, { error: answer.left.message })
      const a = answer.right
      return a._tag === "Accepted" ? json(res, 201, { reference: a.reference }) : json(res, 422, { errors: a.errors })
    })().catch(() => res.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    simulation,
    faults,
    submits,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

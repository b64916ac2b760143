/**
 * An existing Express 5 app with its own routes, and Fils (the HTTP API, the hosted checkout page, the dashboard,
 * `/docs`) mounted
 * under `/fils` on the same server, through the Node listener `makeNodeHandler`.
 *
 *   node --import tsx examples/express/server.ts                       # memory store
 *   FILS_STORE=postgres node --import tsx examples/express/server.ts   # DATABASE_URL, or embedded in ./.fils
 *
 * `PORT` (default 3000) and `HOST` (default 127.0.0.1) choose the address; `FILS_PUBLIC_URL` (default
 * `http://HOST:PORT/fils`) is where customers reach the mount, and what `checkout_url` starts with. On an empty
 * store the example creates an account and prints its test key, and a one-time link where its owner sets a password
 * for the dashboard (`FILS_OWNER_EMAIL`, default owner@fils.local).
 */
import express from "express"
import { Effect, Option, Redacted } from "effect"
import { makeNodeHandler } from "../../adapters/http/WebHandler.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Users } from "../../src/application/Users.js"
import { EngineLive } from "../engine/engine.js"

const port = Number(process.env["PORT"] ?? 3000)
const host = process.env["HOST"] ?? "127.0.0.1"
const origin = `http://${host}:${port}`
const publicUrl = process.env["FILS_PUBLIC_URL"] || `${origin}/fils`

// Built before listening: a store that cannot be reached stops the app here, not on the first payment.
const fils = await makeNodeHandler({ engine: EngineLive, publicUrl, workers: true })

const app = express()
app.disable("x-powered-by")

// The host's own routes.
app.get("/", (_req, res) => {
  res.type("text/plain").send(`Dune Coffee Roasters. Payments: ${publicUrl}/api/v1\n`)
})
app.get("/health/host", (_req, res) => {
  res.json({ status: "ok", service: "express-host" })
})

// Fils under /fils. Express takes the prefix off `req.url`; mount it before any body parser on this path (Fils reads
// and limits the body itself), e.g. keep `express.json()` on the host's own routers.
app.use("/fils", fils.handler)

// Anything else is the host's: Express's own 404.

const server = app.listen(port, host, async (error?: Error) => {
  if (error !== undefined) {
    console.error(error)
    process.exit(1)
  }
  const created = await fils.run(Effect.flatMap(Accounts, (accounts) => accounts.ensureDefault()))
  const lines = [
    `Express is listening on ${origin}`,
    `  Host routes  ${origin}/  ${origin}/health/host`,
    `  Fils API     ${publicUrl}/api/v1`,
    `  Reference    ${publicUrl}/docs`,
    `  Checkout     ${publicUrl}/checkout/{session_id}`,
    `  Dashboard    ${publicUrl}/dashboard`
  ]
  if (Option.isSome(created)) {
    lines.push(`  Test key     ${Redacted.value(created.value.keys.test.secret)}`)
    const owner = await fils.run(Effect.flatMap(Users, (users) =>
      users.create(created.value.account.account_id, process.env["FILS_OWNER_EMAIL"] || "owner@fils.local", "owner")))
    lines.push(`  Sign in      ${publicUrl}/dashboard/sign-in/${Redacted.value(owner.token)}`)
  } else lines.push("  (the store already has accounts: use a key you have, or `npm run fils -- keys create`)")
  console.log(lines.join("\n"))
})

const stop = () => {
  server.close()
  server.closeAllConnections()
  fils.dispose().then(() => process.exit(0), () => process.exit(1))
}
process.once("SIGINT", stop)
process.once("SIGTERM", stop)

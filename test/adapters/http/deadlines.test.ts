/**
 * Request deadlines: a client that sends its headers or its body too slowly is answered with a JSON
 * `408 REQUEST_TIMEOUT` within seconds, not held for Node's default five minutes.
 */
import { connect } from "node:net"
import { expect, it } from "vitest"
import { memoryVariant } from "../../support/server.js"
import { useServer } from "../../support/httpSuite.js"

/** Writes `head` to the server and reads until it closes the connection; fails the test after `limitMillis`. */
const sendAndRead = (port: number, head: string, limitMillis: number) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let received = ""
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer within ${limitMillis} ms: ${JSON.stringify(received)}`))
    }, limitMillis)
    socket.on("data", (chunk) => (received += chunk.toString("latin1")))
    socket.on("close", () => {
      clearTimeout(timer)
      resolve(received)
    })
    socket.on("error", () => undefined)
    socket.write(head)
  })

const parse = (response: string) => {
  const [head, body] = response.split("\r\n\r\n")
  return { status: head!.split("\r\n")[0]!, headers: head!.toLowerCase(), body: JSON.parse(body!) }
}

const server = useServer(memoryVariant, { FILS_HEADERS_TIMEOUT_SECONDS: "1", FILS_REQUEST_TIMEOUT_SECONDS: "2" })
const port = () => Number(new URL(server().origin).port)

it("a half-sent body is answered 408 REQUEST_TIMEOUT in JSON", async () => {
  const key = server().accountA.test.key
  const response = await sendAndRead(
    port(),
    `POST /api/v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":",
    20_000
  )
  const { body, headers, status } = parse(response)
  expect(status).toBe("HTTP/1.1 408 Request Timeout")
  expect(headers).toContain("content-type: application/json")
  expect(body).toStrictEqual({ code: "REQUEST_TIMEOUT", message: "The request was not received in time" })
})

it("headers that never end are answered 408 REQUEST_TIMEOUT in JSON", async () => {
  const { body, status } = parse(await sendAndRead(port(), "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a", 20_000))
  expect(status).toBe("HTTP/1.1 408 Request Timeout")
  expect(body.code).toBe("REQUEST_TIMEOUT")
})

it("a request sent in time is served", async () => {
  const response = await sendAndRead(port(), "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 20_000)
  expect(response.split("\r\n")[0]).toBe("HTTP/1.1 200 OK")
})

/**
 * Requests Node's HTTP parser refuses before the app sees them (a header block over 16 KiB, a malformed request
 * line, an unknown method, a bad header value, a missing Host) would get Node's bare `400`/`431` with no body, and
 * a `CONNECT` would have its connection dropped. Fils answers those too with `{ code, message }` JSON.
 */
import { createServer as createNodeServer, type Server } from "node:http"
import type { Duplex } from "node:stream"

const reasons: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "The request headers are larger than the server accepts"
}
const timeouts = new Set(["ERR_HTTP_REQUEST_TIMEOUT", "HPE_HEADER_TIMEOUT"])

/** How long a client may take to send a request's headers, and the whole request (`FILS_*_TIMEOUT_SECONDS`). */
export interface Deadlines {
  readonly headersSeconds: number
  readonly requestSeconds: number
}
export const defaultDeadlines: Deadlines = { headersSeconds: 10, requestSeconds: 30 }

const reply = (socket: Duplex, status: string, code: string, message: string) => {
  const body = JSON.stringify({ code, message })
  socket.end(
    `HTTP/1.1 ${status}\r\n` +
      "content-type: application/json\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      "x-content-type-options: nosniff\r\n" +
      "cache-control: no-store\r\n" +
      "connection: close\r\n\r\n" +
      body
  )
  // The parser is gone, so nothing reads what the client still sends: its FIN would never be seen and the socket
  // would stay half-closed forever (holding shutdown). Drain and discard instead, and give up after a while.
  socket.resume()
  setTimeout(() => socket.destroy(), drainMillis).unref()
}

/** How long a refused connection may go on sending before it is cut. */
const drainMillis = 5_000

const answer = (error: NodeJS.ErrnoException, socket: Duplex) => {
  // Nothing to answer on a connection that is gone, or once another response has started on it.
  const inFlight = (socket as unknown as { readonly _httpMessage?: { readonly headersSent?: boolean } })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  if (timeouts.has(error.code ?? "")) {
    reply(socket, "408 Request Timeout", "REQUEST_TIMEOUT", "The request was not received in time")
    return
  }
  reply(socket, "400 Bad Request", "INVALID_REQUEST", reasons[error.code ?? ""] ?? "The request is not valid HTTP")
}

/**
 * `node:http`'s `createServer`, answering unparsable requests with a JSON `400 INVALID_REQUEST`, and a client too
 * slow to send its headers or its whole request within the deadlines with a JSON `408 REQUEST_TIMEOUT` (Node's
 * defaults hold a half-sent body for five minutes). The deadlines are checked every second.
 */
export const createServer = (deadlines: Deadlines = defaultDeadlines): Server =>
  createNodeServer({
    // Host is not needed to route, so a request without one reaches the app (and its JSON errors) too.
    requireHostHeader: false,
    headersTimeout: deadlines.headersSeconds * 1000,
    requestTimeout: deadlines.requestSeconds * 1000,
    connectionsCheckingInterval: 1000
  })
    .on("clientError", answer)
    .on("connect", (_request, socket: Duplex) => {
      socket.on("error", () => socket.destroy())
      reply(socket, "405 Method Not Allowed", "METHOD_NOT_ALLOWED", "CONNECT is not allowed")
    })

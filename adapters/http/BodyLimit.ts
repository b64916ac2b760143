/**
 * The request body's size limit and how an oversize body is refused. Its own module because the refusal is more
 * than an error: the client must be able to read the 413, so the rest of the body is drained (Node would drop the
 * connection) and the connection is closed after the answer (nothing more of that body is read).
 */
import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { PayloadTooLarge } from "./Errors.js"

export const maxBodyBytes = 1024 * 1024

/** The 413 for a body over `maxBodyBytes`, declared or found while reading. */
export const payloadTooLarge = () =>
  new PayloadTooLarge({ message: `The request body is larger than ${maxBodyBytes} bytes` })

/** Answers the current request with `connection: close`. */
export const closeConnection = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "connection", "close"))
)

/** The parts of a Node request (`IncomingMessage`) the drain needs. */
interface Drainable {
  resume: () => unknown
  destroy: (...args: ReadonlyArray<unknown>) => unknown
}

const isDrainable = (source: unknown): source is Drainable =>
  typeof source === "object" && source !== null && "resume" in source && typeof source.resume === "function" &&
  "destroy" in source && typeof source.destroy === "function"

/**
 * The framework's body reader destroys a request whose body passes the limit, and Node then drops the connection
 * before any answer. For a Node request, make that "destroy" drain the rest instead, so the client reads a 413.
 */
export const drainInsteadOfDestroy = (request: HttpServerRequest.HttpServerRequest): void => {
  const incoming = request.source
  if (!isDrainable(incoming)) return
  incoming.destroy = () => {
    incoming.resume()
    return incoming
  }
}

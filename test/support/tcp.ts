/** Loopback TCP stand-ins for a database that is unreachable, silent, or goes away mid-run. */
import { once } from "node:events"
import { connect, createServer, type Server, type Socket } from "node:net"

const listen = async (server: Server, port = 0): Promise<number> => {
  server.listen(port, "127.0.0.1")
  await once(server, "listening")
  const address = server.address()
  if (typeof address !== "object" || address === null) throw new Error("no port")
  return address.port
}

export interface Endpoint {
  readonly port: number
  /** Stops listening and cuts every open connection. */
  readonly close: () => Promise<void>
}

const closer = (server: Server, sockets: Set<Socket>) => async () => {
  for (const socket of sockets) socket.destroy()
  if (server.listening) {
    server.close()
    await once(server, "close")
  }
}

/** Accepts connections and never answers (a hung server, or a black hole after the TCP handshake). */
export const silentServer = async (): Promise<Endpoint> => {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on("error", () => {})
    socket.on("close", () => sockets.delete(socket))
  })
  return { port: await listen(server), close: closer(server, sockets) }
}

export interface Proxy extends Endpoint {
  /** Stops carrying bytes either way, connections left open: a network that went silent. */
  readonly pause: () => Promise<void>
}

/** Forwards to `target` until closed: then the database is gone, as if its host went down. */
export const tcpProxy = async (targetHost: string, targetPort: number, listenPort = 0): Promise<Proxy> => {
  let silent = false
  const sockets = new Set<Socket>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on("error", () => socket.destroy())
    socket.on("close", () => sockets.delete(socket))
  }
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost)
    track(client)
    track(upstream)
    client.on("data", (chunk) => silent || upstream.write(chunk))
    upstream.on("data", (chunk) => silent || client.write(chunk))
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
  })
  const pause = async () => {
    silent = true
  }
  return { port: await listen(server, listenPort), close: closer(server, sockets), pause }
}

/** A port nothing listens on (taken, then released). */
export const closedPort = async (): Promise<number> => {
  const server = createServer()
  const port = await listen(server)
  server.close()
  await once(server, "close")
  return port
}

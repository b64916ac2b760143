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

export interface CommitCutter extends Endpoint {
  /**
   * Arms the cutter: the first connection that then sends a statement containing `marker` is let through until
   * the server reports its transaction committed (a PostgreSQL ReadyForQuery that says idle, once the statement
   * has run: an autocommit statement's, or its transaction's COMMIT's); right after that acknowledgement is
   * forwarded, every connection is cut and new ones are refused, as if the database's host died. Resolves then.
   */
  readonly arm: (marker: string) => Promise<void>
  /**
   * Arms the cutter to cut every connection (and refuse new ones) as soon as a statement containing `marker` is
   * sent, before the server sees it: the database lost in the middle of a transaction, which never commits.
   */
  readonly armBefore: (marker: string) => Promise<void>
  /** Lets connections through again (the database is back). */
  readonly heal: () => void
}

/**
 * A `tcpProxy` to PostgreSQL (no TLS) that can cut every connection right after a given statement's commit is
 * acknowledged: what a crash between a commit and whatever the client meant to do next looks like.
 */
export const commitCutter = async (targetHost: string, targetPort: number): Promise<CommitCutter> => {
  const sockets = new Set<Socket>()
  let down = false
  let armed: { readonly marker: Buffer; readonly done: () => void } | undefined
  let armedBefore: { readonly marker: Buffer; readonly done: () => void } | undefined
  const cutAll = () => {
    down = true
    for (const socket of sockets) socket.destroy()
  }
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on("error", () => socket.destroy())
    socket.on("close", () => sockets.delete(socket))
  }
  const server = createServer((client) => {
    track(client)
    if (down) return client.destroy()
    const upstream = connect(targetPort, targetHost)
    track(upstream)
    let watching = false
    // The server's messages: a type byte and a length (which counts itself), so each ReadyForQuery can be found.
    let pending = Buffer.alloc(0)
    client.on("data", (chunk: Buffer) => {
      if (armedBefore !== undefined && chunk.includes(armedBefore.marker)) {
        const done = armedBefore.done
        armedBefore = undefined
        cutAll()
        return done()
      }
      if (armed !== undefined && !watching && chunk.includes(armed.marker)) watching = true
      upstream.write(chunk)
    })
    upstream.on("data", (chunk: Buffer) => {
      if (!watching) return void client.write(chunk)
      pending = Buffer.concat([pending, chunk])
      let at = 0
      while (pending.length - at >= 5) {
        const end = at + 1 + pending.readInt32BE(at + 1)
        if (end > pending.length) break
        const idle = pending[at] === 0x5a && pending[at + 5] === 0x49 // 'Z', transaction status 'I'
        at = end
        if (idle) {
          client.write(pending.subarray(0, at), () => {
            const done = armed?.done
            armed = undefined
            cutAll()
            done?.()
          })
          pending = Buffer.alloc(0)
          return
        }
      }
      client.write(pending.subarray(0, at))
      pending = pending.subarray(at)
    })
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
  })
  return {
    port: await listen(server),
    close: closer(server, sockets),
    arm: (marker) => new Promise<void>((resolve) => (armed = { marker: Buffer.from(marker), done: resolve })),
    armBefore: (marker) => new Promise<void>((resolve) => (armedBefore = { marker: Buffer.from(marker), done: resolve })),
    heal: () => {
      down = false
    }
  }
}

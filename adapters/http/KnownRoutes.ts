/**
 * The routes the server knows, as the error answers need them: which methods a path accepts (a wrong method is a
 * 405 with `Allow`, an unknown path a 404) and whether a request is for the API at all (only the API insists on
 * JSON bodies). Read from the contract (`Api.ts`) by reflection, plus the few routes outside it.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { FilsApi } from "./Api.js"

/** Routes outside the API contract (pages, health, documents), for telling 405 from 404. */
export const extraRoutes: Array<{ readonly method: string; readonly path: string }> = [
  { method: "GET", path: "/health" },
  { method: "GET", path: "/ready" },
  { method: "GET", path: "/metrics" },
  { method: "GET", path: "/favicon.ico" },
  { method: "GET", path: "/docs" },
  { method: "GET", path: "/api/v1/openapi.json" },
  { method: "GET", path: "/checkout/:id" },
  { method: "POST", path: "/checkout/:id" },
  { method: "POST", path: "/checkout/:id/discount" }
]

const toPattern = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[^/]+/g, "/[^/]+")}/?$`)

const routes: Array<{ readonly method: string; readonly pattern: RegExp }> = []
HttpApi.reflect(FilsApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, pattern: toPattern(endpoint.path) })
})

/** The methods a path accepts (empty when no route has that path). */
export const allowedMethods = (path: string): ReadonlyArray<string> => [
  ...new Set([
    ...routes.filter((r) => r.pattern.test(path)).map((r) => r.method),
    ...extraRoutes.filter((r) => toPattern(r.path).test(path)).map((r) => r.method)
  ])
]

/** A request target's path, without its query. */
export const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  // An absolute-form target (`GET http://host/api/v1/… HTTP/1.1`) is routed by its path.
  if (!path.startsWith("/")) {
    try {
      return new URL(path).pathname
    } catch {
      return path
    }
  }
  return path
}

/**
 * Whether the request is for the API, as the router would see it: it matches case-insensitively, after decoding
 * `%xx` and with repeated slashes collapsed (`//%61pi/v1/…` reaches the API too). A non-JSON body that slipped
 * past this check would make the framework wait forever for a multipart stream that was already read.
 */
export const isApiPath = (url: string) => {
  let path = pathOf(url)
  try {
    path = decodeURIComponent(path)
  } catch {
    // Malformed escapes: matched as written.
  }
  return /^\/+api\//i.test(path.replace(/\/{2,}/g, "/"))
}

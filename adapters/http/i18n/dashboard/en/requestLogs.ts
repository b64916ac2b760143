/** The dashboard's request logs in English: the list of API requests and a request's page. */
import type { DeliveryStatus } from "../../../../../src/domain/Delivery.js"

export const requestLogs = {
  list: {
    title: "Request logs",
    intro: (days: number) => `Every API request of this mode's keys, kept ${days} days. Bodies are never kept.`,
    /** The status filter's label, with an exact status and a class of them as examples. */
    status: (exact: string, range: string) => `Status (${exact}, or ${range})`,
    path: "Path starts with",
    key: "Key",
    from: "From (UTC)",
    until: "Until (UTC)",
    clear: "Clear",
    /** A request's time in UTC: its date and clock (`17:20:40`). */
    at: (date: string, clock: string) => `${date} ${clock} UTC`,
    time: "Time",
    statusColumn: "Status",
    request: "Request",
    duration: "Duration",
    none: "No requests.",
    older: "Older requests →"
  },
  request: {
    title: "API request",
    /** A request's time in UTC: its date and clock (`17:20:40.123`). */
    at: (date: string, clock: string) => `${date} ${clock} UTC`,
    back: "← Request logs",
    requestId: "Request id",
    time: "Time",
    request: "Request",
    status: "Status",
    errorCode: "Error code",
    duration: "Duration",
    key: "Key",
    none: "none",
    bodies: "Request and response bodies are never stored.",
    events: "Events it caused",
    event: "Event",
    type: "Type",
    deliveries: "Deliveries",
    noEvents: "No events."
  },
  milliseconds: (ms: string) => `${ms} ms`,
  /** A delivery's status, linking to its endpoint: the API's own word in English. */
  deliveryStatus: (status: DeliveryStatus): string => status
}

/** The dashboard's events pages in English: the list, and an event with its deliveries. */
import { html, type Raw } from "../../../html/Html.js"

export const events = {
  title: "Events",
  type: "Type",
  event: "Event",
  created: "Created",
  none: "No events.",
  /** An event's page, by its type's name (`payment.succeeded`, written as it is). */
  eventTitle: (type: string) => `Event ${type}`,
  /** The API request that caused it, as a link. */
  causedBy: (request: Raw): Raw => html`Caused by the API request ${request}.`,
  deliveries: "Deliveries",
  endpoint: "Endpoint",
  status: "Status",
  attempts: "Attempts",
  lastAnswer: "Last answer",
  noEndpoint: "No endpoint subscribed."
}

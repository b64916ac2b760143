/** The dashboard's developers pages in English: API keys, webhook endpoints and an endpoint's deliveries. */
import * as WebhookHealth from "../../../../../src/domain/WebhookHealth.js"
import { html, type Raw } from "../../../html/Html.js"

export const developers = {
  /** Who may not: `role` is the role's word (`viewer`). */
  forbidden: {
    createKeys: (role: string, live: boolean) => `A ${role} cannot create ${live ? "live" : "test"} keys.`,
    revokeKeys: (role: string) => `A ${role} cannot revoke keys.`,
    addEndpoints: (role: string) => `A ${role} cannot add endpoints.`,
    changeEndpoints: (role: string) => `A ${role} cannot change endpoints.`,
    sendTests: (role: string) => `A ${role} cannot send test events.`,
    resend: (role: string) => `A ${role} cannot resend deliveries.`
  },
  keys: {
    title: "Developers",
    newKey: "New key, shown once: copy it now.",
    heading: "API keys",
    key: "Key",
    created: "Created",
    lastUsed: "Last used",
    status: "Status",
    never: "never",
    revoke: "Revoke…",
    revokeLabel: (last4: string) => `Revoke the key ending in ${last4}`,
    create: (live: boolean) => `Create a ${live ? "live" : "test"} key`,
    logsHeading: "Request logs",
    logsLine: (href: string): Raw =>
      html`<a href="${href}">Request logs</a>: every API request of this mode, its status and the events it caused.`,
    endpointsHeading: "Webhook endpoints",
    url: "URL",
    events: "Events",
    endpointUrl: "Endpoint URL",
    addEndpoint: "Add endpoint",
    revoked: (last4: string) => `The key ending in ${last4} is revoked.`,
    revokedNow: (last4: string) => `Revoked the key ending in ${last4}.`
  },
  /** The confirmation of revoking a key; `name` is the key as shown (`sk_test_…4f2a`). */
  revoke: {
    title: "Revoke this API key?",
    stops: (name: string): Raw =>
      html`The key <code>${name}</code> stops working at once: every API request made with it is refused (401).`,
    /** `lastUsed` already written; none when never used. */
    integrations: (lastUsed: string | null) =>
      `Any integration, server or script that uses it will fail until you give it another key. ${
        lastUsed === null ? "It has never been used." : `It was last used ${lastUsed}.`
      }`,
    final: "A revoked key cannot be turned back on. Create the new key first if something still needs one.",
    button: (name: string) => `Revoke ${name}`
  },
  endpoint: {
    title: "Webhook endpoint",
    /** Fils disabled it (`at`), by its health rule; failing since `since` when known. */
    autoDisabled: (at: string, since: string | null) =>
      `Fils disabled this endpoint on ${at}: ${WebhookHealth.ruleText("had")}${
        since === null ? "" : `, failing since ${since}`
      }. Fix the receiver, enable the endpoint, then send again what it missed (Recover, below).`,
    noAttempts: "No attempts in the last day",
    failedShare: (failed: number, attempts: number, percent: number) =>
      `${failed} of ${attempts} attempts failed in the last day (${percent} %)`,
    failingSince: (since: string) => `; failing since ${since}`,
    url: "URL",
    id: "Id",
    events: "Events",
    status: "Status",
    health: "Health",
    signingSecret: "Signing secret",
    description: "Description",
    save: "Save endpoint",
    enable: "Enable",
    disable: "Disable",
    reveal: "Reveal the signing secret",
    rotate: "Rotate the signing secret",
    resendFailed: "Resend all failed",
    delete: "Delete the endpoint…",
    recover: "Recover",
    recoverButton: "Recover",
    testAndRecover: "Test and recover",
    /** The test event's marker: the JSON field and value. */
    testLabel: (field: string, value: string): Raw =>
      html`Send a signed test event (marked <code>"${field}": ${value}</code>)`,
    sendTest: "Send test event",
    /** `timeZone` (IANA) and `format` (`YYYY-MM-DD HH:MM`) of the time to type. */
    recoverLabel: (timeZone: string, format: string) =>
      `Send again what did not arrive (failed or cancelled) since this time, in ${timeZone} (${format})`,
    deliveries: "Deliveries",
    event: "Event",
    attempts: "Attempts",
    lastAnswer: "Last answer",
    latency: "Latency",
    nextAttempt: "Next attempt",
    test: " (test)",
    resend: "Resend",
    attemptsSent: "Attempts and what was sent",
    /** An attempt: its number, time, answer (`HTTP 500` or the error) and latency. */
    attempt: (n: number, at: string, answer: string, ms: number) => `Attempt ${n}, ${at}: ${answer}, ${ms} ms`,
    noAnswer: "no answer",
    answer: "Answer (first 4 KiB)",
    noBody: "(none)",
    headersSent: "Headers sent",
    bodySent: "Body sent (the same on every attempt)",
    noDeliveries: "No deliveries yet.",
    older: "Older deliveries →"
  },
  /** What the endpoint's buttons did, and what they refused. */
  done: {
    saved: "Saved.",
    disabled: "Disabled: it receives nothing new.",
    enabled: "Enabled.",
    rotated: "New signing secret: the old one keeps signing beside it for 24 hours.",
    resentFailed: (n: number) => `${n} failed ${n === 1 ? "delivery" : "deliveries"} queued again.`,
    /** `type` is the event type. */
    testQueued: (type: string) => `Test ${type} event queued: it shows below once sent.`,
    recovered: (n: number, since: string) => `${n} ${n === 1 ? "delivery" : "deliveries"} since ${since} queued again.`,
    resent: "Queued to be sent again now.",
    /** `types`: the endpoint's event types, listed. */
    chooseType: (types: string) => `Choose one of the endpoint's event types (${types})`,
    badSince: (format: string, timeZone: string, typed: string) => `Since must be a date and time (${format}, ${timeZone}); got '${typed}'`
  },
  /** The confirmation of deleting an endpoint. */
  delete: {
    title: "Delete this webhook endpoint?",
    stops: (url: string): Raw =>
      html`<code>${url}</code> stops receiving events at once, and deliveries still waiting to be sent to it are not sent.`,
    secretAndLog: "Its signing secret and its delivery log are deleted with it. Deleting cannot be undone: to stop it for a while, disable it instead.",
    eventsStay: "Events stay in the event log; add an endpoint again to receive new ones.",
    button: "Delete the endpoint"
  }
}

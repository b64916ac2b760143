/** The dashboard's tax documents in English: the invoices, credit notes and e-invoices lists, and a document's links. */
export const documents = {
  search: "Payment id or customer e-mail",
  searchButton: "Search",
  empty: "No documents.",
  older: "Older →",
  number: "Number",
  date: "Date",
  customer: "Customer",
  vat: "VAT",
  invoices: {
    title: "Invoices",
    toEInvoices: "E-invoices sent to the provider →",
    total: "Total",
    kind: "Kind",
    /** An invoice's kind (`TaxDocument.kind`). */
    kinds: { full: "full", simplified: "simplified" }
  },
  creditNotes: {
    title: "Credit notes",
    invoice: "Invoice",
    credited: "Credited"
  },
  /** The links under a document's printable page. */
  document: {
    backToInvoices: "← Invoices",
    backToCreditNotes: "← Credit notes",
    payment: "Payment",
    downloadXml: "Download PINT AE XML",
    /** The document's e-invoice: where it stands (`transmission.*`, already worded). */
    eInvoice: (standing: string) => `E-invoice ${standing}`,
    resend: "Resend after fixing the profile"
  },
  /** Where a business buyer's e-invoice stands: what the provider said (its own words), or why it waits. */
  transmission: {
    accepted: (reference: string | null) => `accepted by the provider (reference ${reference ?? "none"})`,
    /** The provider's errors, each its message and code. */
    rejected: (errors: ReadonlyArray<{ readonly message: string; readonly code: string }>) =>
      `rejected by the provider: ${errors.map((e) => `${e.message} (${e.code})`).join("; ")}`,
    /**
     * Not sent yet: the attempts made, the last one's error (the provider's or the network's words), and, when nothing
     * sends it, why (the engine's words: no provider serves the mode).
     */
    waiting: (attempts: number, lastError: string | null, waiting: string | null) =>
      `waiting to be sent${attempts > 0 ? ` (attempt ${attempts}${lastError ? `: ${lastError}` : ""})` : ""}${waiting ? `: ${waiting}` : ""}`
  },
  eInvoices: {
    title: "E-invoices",
    intro: "Tax documents of business buyers with a Peppol endpoint, as handed to the e-invoicing provider (newest first).",
    all: "All",
    document: "Document",
    status: "Status",
    attempts: "Attempts",
    provider: "Provider",
    empty: "No e-invoices.",
    notAllowed: (role: string) => `A ${role} cannot resend e-invoices.`,
    /** The engine's refusal, already in the page's language. */
    notResent: (reason: string) => `Not resent: ${reason}`,
    resent: (number: string) => `E-invoice ${number} will be sent again with the current tax profile and customer details.`
  }
}

/** The dashboard's audit log in English. */
export const audit = {
  title: "Audit log",
  when: "When",
  who: "Who",
  what: "What",
  object: "Object",
  from: "From",
  none: "Nothing yet.",
  forbidden: "Only owners and admins read the audit log."
}

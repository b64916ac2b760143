/** The dashboard's audit log in Arabic (see `en/audit.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const audit: DashboardCatalogue["audit"] = {
  title: "سجل التدقيق",
  when: "الوقت",
  who: "المستخدم",
  what: "الإجراء",
  object: "العنصر",
  from: "المصدر",
  none: "لا شيء بعد.",
  forbidden: "لا يطّلع على سجل التدقيق إلا المالكون والمسؤولون."
}

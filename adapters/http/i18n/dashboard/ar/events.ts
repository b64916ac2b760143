/** The dashboard's events pages in Arabic (see `en/events.ts`). */
import { html } from "../../../html/Html.js"
import type { DashboardCatalogue } from "../en/index.js"

export const events: DashboardCatalogue["events"] = {
  title: "الأحداث",
  type: "النوع",
  event: "الحدث",
  created: "تاريخ الإنشاء",
  none: "لا أحداث.",
  eventTitle: (type) => `الحدث \u2066${type}\u2069`,
  causedBy: (request) => html`نتج عن طلب API ${request}.`,
  deliveries: "عمليات التسليم",
  endpoint: "نقطة النهاية",
  status: "الحالة",
  attempts: "المحاولات",
  lastAnswer: "آخر رد",
  noEndpoint: "لا تشترك أي نقطة نهاية في هذا الحدث."
}

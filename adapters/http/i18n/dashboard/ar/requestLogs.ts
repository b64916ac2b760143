/** The dashboard's request logs in Arabic (see `en/requestLogs.ts`). */
import type { DashboardCatalogue } from "../en/index.js"
import { counted, dayForms } from "./counts.js"

export const requestLogs: DashboardCatalogue["requestLogs"] = {
  list: {
    title: "سجل الطلبات",
    intro: (days) => `كل طلب API بمفاتيح هذا الوضع، ويُحتفظ به ${counted(days, dayForms)}. لا يُحتفظ بمحتوى الطلبات أبدًا.`,
    status: (exact, range) => `الحالة (${exact}، أو ${range})`,
    path: "المسار يبدأ بـ",
    key: "المفتاح",
    from: "من (UTC)",
    until: "إلى (UTC)",
    clear: "مسح",
    at: (date, clock) => `${date}، الساعة ${clock} (UTC)`,
    time: "الوقت",
    statusColumn: "الحالة",
    request: "الطلب",
    duration: "المدة",
    none: "لا توجد طلبات.",
    older: "طلبات أقدم ←"
  },
  request: {
    title: "طلب API",
    at: (date, clock) => `${date}، الساعة ${clock} (UTC)`,
    back: "→ سجل الطلبات",
    requestId: "معرّف الطلب",
    time: "الوقت",
    request: "الطلب",
    status: "الحالة",
    errorCode: "رمز الخطأ",
    duration: "المدة",
    key: "المفتاح",
    none: "لا يوجد",
    bodies: "لا يُخزَّن محتوى الطلبات ولا الردود أبدًا.",
    events: "الأحداث التي تسبّب بها",
    event: "الحدث",
    type: "النوع",
    deliveries: "عمليات التسليم",
    noEvents: "لا توجد أحداث."
  },
  milliseconds: (ms) => `${ms} مللي ثانية`,
  deliveryStatus: (status) =>
    ({ pending: "قيد الانتظار", succeeded: "ناجح", failed: "فاشل", cancelled: "ملغى" })[status]
}

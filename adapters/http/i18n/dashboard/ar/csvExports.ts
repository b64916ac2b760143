/** The dashboard's CSV exports page in Arabic (see `en/csvExports.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const csvExports: DashboardCatalogue["csvExports"] = {
  title: "التصدير",
  intro: (live, timeZone) =>
    `ملف CSV ${live ? "بالبيانات الفعلية" : "ببيانات الاختبار"} التي أُنشئت من بداية اليوم الأول حتى نهاية اليوم الأخير، بحسب المنطقة الزمنية لحسابك (\u2068${timeZone}\u2069)؛ والأوقات في الملف بتلك المنطقة مع فارق التوقيت. الأحدث أولًا.`,
  what: "البيانات",
  kinds: { payments: "المدفوعات", refunds: "المبالغ المستردة", subscriptions: "الاشتراكات", customers: "العملاء" },
  from: (timeZone) => `من (تاريخ بتوقيت \u2068${timeZone}\u2069)`,
  to: (timeZone) => `إلى (تاريخ بتوقيت \u2068${timeZone}\u2069)`,
  download: "تنزيل ملف CSV",
  notAllowed: (role) => `لا يملك دور «${role}» صلاحية تصدير البيانات: لا ينزّل ملفات CSV إلا المالكون والمسؤولون.`,
  chooseKind: "اختر المدفوعات أو المبالغ المستردة أو الاشتراكات أو العملاء",
  enterDate: "أدخل تاريخًا بالأرقام: السنة-الشهر-اليوم، مثل \u20662026-01-31\u2069",
  lastBeforeFirst: "اليوم الأخير يسبق اليوم الأول",
  busy: (count) => `بلغ هذا الحساب الحد الأقصى من عمليات التصدير الجارية في آن واحد (${count}). انتظر حتى تنتهي إحداها، ثم حاول مرة أخرى.`
}

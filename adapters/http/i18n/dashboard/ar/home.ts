/** The dashboard's home page in Arabic (see `en/home.ts`). */
import type { DashboardCatalogue } from "../en/index.js"
import { counted } from "./counts.js"

export const home: DashboardCatalogue["home"] = {
  title: "الرئيسية",
  todaySoFar: "اليوم حتى الآن",
  mrr: "الإيراد الشهري المتكرر",
  paying: (n, count) =>
    n === 0
      ? "لا اشتراكات مدفوعة"
      : counted(n, ["اشتراك مدفوع واحد", "اشتراكان مدفوعان", "اشتراكات مدفوعة", "اشتراكًا مدفوعًا", "اشتراك مدفوع"], count),
  periods: "الفترة",
  lastDays: (n, count) => `آخر ${counted(n, ["يوم", "يومين", "أيام", "يومًا", "يوم"], count)}`,
  stats: {
    gross: "إجمالي المدفوعات",
    net: "صافي المدفوعات",
    refunds: "المبالغ المستردة",
    newSubscriptions: "الاشتراكات الجديدة",
    succeeded: "المدفوعات الناجحة",
    failed: "المدفوعات الفاشلة",
    fees: "الرسوم"
  },
  change: {
    previous: (days, count) => (days === 1 ? "اليوم السابق" : `الأيام الـ${count} السابقة`),
    same: (previous) => `بلا تغيير عن ${previous}`,
    upFromNone: (previous) => `ارتفاع من صفر في ${previous}`,
    up: (percent, previous) => `▲ ${percent}٪ مقارنةً ب${previous}`,
    down: (percent, previous) => `▼ ${percent}٪ مقارنةً ب${previous}`
  },
  mrrBefore: {
    same: (day) => `بلا تغيير منذ ${day}`,
    upFromNone: (day) => `ارتفاع من صفر في ${day}`,
    up: (percent, day) => `▲ ${percent}٪ منذ ${day}`,
    down: (percent, day) => `▼ ${percent}٪ منذ ${day}`,
    none: "لا يوجد رقم سابق للمقارنة بعد"
  },
  chart: {
    heading: "المدفوعات اليومية",
    title: (first, last, timeZone) => `إجمالي المدفوعات لكل يوم، من ${first} إلى ${last} (\u2068${timeZone}\u2069)`,
    noVolume: "لا مدفوعات في أي يوم.",
    description: (total, busiestDay, busiest) => `الإجمالي ${total}؛ وأنشط يوم ${busiestDay} بمبلغ ${busiest}.`
  },
  gettingStarted: {
    heading: "خطوات البدء",
    done: "تمّ",
    product: "أنشئ منتجًا",
    productWhy: "ما تبيعه، بسعره، لمرة واحدة أو متكرر.",
    payment: "نفّذ دفعة اختبار",
    paymentWhy: "أنشئ رابط دفع وادفعه ببطاقة الاختبار 4242 4242 4242 4242.",
    endpoint: "أضف نقطة نهاية ويب هوك",
    endpointWhy: "حيث يُبلغ فلس أنظمتك بنجاح الدفعة.",
    team: "ادعُ فريقك",
    teamWhy: "يسجّل كل عضو الدخول بحسابه، بالدور الذي يحتاجه."
  },
  attention: {
    heading: "يحتاج إلى مراجعة",
    onHold: (email, amount) => `${email === null ? "اشتراك" : `\u2068${email}\u2069`}: ${amount}`,
    renewalFailed: "فشلت دفعة التجديد",
    disabled: "عُطّلت بعد فشل عمليات التسليم",
    failingSince: (since) => `يفشل التسليم منذ ${since}`,
    eInvoice: (number) => `الفاتورة الإلكترونية \u2068${number}\u2069`,
    rejected: "رفضها المزوّد",
    nothing: "لا شيء يحتاج إلى مراجعة: لا اشتراكات معلّقة، ولا نقاط نهاية يفشل التسليم إليها، ولا فواتير إلكترونية مرفوضة."
  },
  recent: {
    heading: "أحدث المدفوعات",
    none: "لا مدفوعات بعد.",
    all: "كل المدفوعات ←"
  }
}

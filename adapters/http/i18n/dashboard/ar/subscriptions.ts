/** The dashboard's subscriptions pages in Arabic (see `en/subscriptions.ts`). */
import { html } from "../../../html/Html.js"
import { ar as customerPages } from "../../ar.js"
import type { DashboardCatalogue } from "../en/index.js"
import { counted, dayForms } from "./counts.js"

/** A name or e-mail of the merchant's inside an Arabic sentence, isolated so that Latin text keeps its place. */
const isolate = (text: string) => `\u2068${text}\u2069`

export const subscriptions: DashboardCatalogue["subscriptions"] = {
  schedule: (amount, interval, count) => `${amount} ${customerPages.every(interval, count)}`,
  forbidden: {
    cancel: (role) => `لا يملك دور «${role}» صلاحية إلغاء الاشتراكات.`,
    charge: (role) => `لا يملك دور «${role}» صلاحية تحصيل مبالغ من الاشتراكات.`
  },
  list: {
    title: "الاشتراكات",
    filters: "تصفية الاشتراكات",
    table: "الاشتراكات",
    status: "الحالة",
    amount: "المبلغ",
    customer: "العميل",
    nextBilling: "الفوترة التالية",
    started: "تاريخ البدء",
    none: "لا توجد اشتراكات."
  },
  page: {
    title: "الاشتراك",
    id: "المعرّف",
    status: "الحالة",
    customer: "العميل",
    amount: "المبلغ",
    trial: "الفترة التجريبية",
    trialText: (days, ended, at) => `${counted(days, dayForms)}، ${ended ? "انتهت في" : "تنتهي في"} ${at}`,
    trialPeriod: "الفترة التجريبية",
    currentPeriod: "الفترة الحالية",
    period: (from, to) => `من ${from} إلى ${to}`,
    discount: "الخصم",
    cancelNow: "إلغاء الآن…",
    keepRenewing: "مواصلة التجديد",
    cancelAtPeriodEnd: "الإلغاء في نهاية الفترة",
    chargeNow: "تحصيل مبلغ الآن",
    chargeHelp: (brand, last4) =>
      `يُحصِّل المبلغ مرة واحدة، الآن، من البطاقة التي يتجدد بها هذا الاشتراك (\u2066${brand} •••• ${last4}\u2069)، إلى جانب مواعيده المعتادة. تؤكّد ذلك في الصفحة التالية.`,
    chargeAmount: "المبلغ بالدرهم (AED)، مُسعَّرًا كما تُسعَّر منتجاتك: تُضاف ضريبة القيمة المضافة إذا كانت أسعارك لا تشملها",
    chargeDescription: "الوصف (اختياري؛ اسم الاشتراك إن تُرك فارغًا)",
    reviewCharge: "مراجعة التحصيل",
    payments: "المدفوعات",
    timeline: "السجل الزمني"
  },
  cancel: {
    title: "إلغاء هذا الاشتراك الآن؟",
    endsNow: (customer, schedule) =>
      html`ينتهي اشتراك ${customer === null ? "العميل" : `العميل ${isolate(customer)}`} (${schedule}) الآن، لا في نهاية فترته الحالية.`,
    onHold: "الاشتراك معلّق بعد دفعة فاشلة: تتوقف إعادة المحاولات، ولا يُحصَّل أي مبلغ آخر.",
    trialStops: (trialEnd) => `تتوقف فترته التجريبية الآن بدلًا من ${trialEnd}: لا يُحصَّل أي مبلغ.`,
    periodCut: (from, to) =>
      `تُقطع الفترة الحالية (من ${from} إلى ${to}) ولا يُحصَّل أي مبلغ آخر. ما دُفع عنها لا يُسترد: إن كان للعميل حق فيه، فاسترد آخر دفعة من صفحة تلك الدفعة.`,
    webhooks: (event) =>
      `تتلقى نقاط نهاية الويب هوك الحدث \u2066${event}\u2069. لا يمكن إعادة تشغيل اشتراك ملغى: على العميل أن يشترك من جديد.`,
    orAtPeriodEnd: "لتركه يستمر حتى نهاية الفترة بدلًا من ذلك، اختر الإلغاء في نهاية الفترة.",
    button: "إلغاء الاشتراك الآن",
    back: "رجوع: الإبقاء على الاشتراك"
  },
  done: {
    alreadyCancelled: "الاشتراك ملغى.",
    cancelled: "أُلغي الاشتراك.",
    keepsRenewing: "سيستمر الاشتراك في التجدد.",
    endsAtPeriodEnd: "سينتهي الاشتراك في نهاية الفترة الحالية."
  },
  charge: {
    enterAmount: "أدخل المبلغ المراد تحصيله بالدرهم (AED)، مثل 45.00",
    cancelled: "هذا الاشتراك ملغى: لا يمكن التحصيل من بطاقته.",
    outOfDate: "انتهت صلاحية هذا النموذج، لذلك لم يُحصَّل أي مبلغ. تحقق من المبلغ وأرسله مرة أخرى.",
    unavailable: "ربما بدأ التحصيل لكن تعذّر إكماله الآن. أكّد مرة أخرى بعد قليل لإكمال التحصيل نفسه: التأكيد مرة أخرى لا يُجري تحصيلًا ثانيًا.",
    confirmTitle: "تأكيد التحصيل",
    confirm: (p) =>
      html`تحصيل <strong>${p.amount}</strong> (${isolate(p.description)}) الآن من بطاقة ${`\u2066${p.brand} •••• ${p.last4}\u2069`} الخاصة بالعميل ${isolate(p.email)}؟`,
    confirmHelp: "تُضاف ضريبة القيمة المضافة إذا كانت أسعارك لا تشملها. لا تتغير فترة الاشتراك ولا حالته.",
    button: (amount) => `تحصيل ${amount} الآن`,
    charged: (amount) => `تم تحصيل ${amount}.`,
    declined: (code) => `رُفضت البطاقة (\u2066${code}\u2069): لم يُحصَّل أي مبلغ.`,
    processing: (amount) => `تحصيل ${amount} قيد المعالجة: لم يردّ معالج الدفع بعد.`
  }
}

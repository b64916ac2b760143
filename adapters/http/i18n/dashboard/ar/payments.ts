/** The dashboard's payments pages in Arabic (see `en/payments.ts`). */
import { html } from "../../../html/Html.js"
import type { DashboardCatalogue } from "../en/index.js"

/** What the refunds still pending hold, after a refusal. */
const held = (pending: string | null) => (pending === null ? "" : ` (إضافةً إلى ${pending} في عمليات استرداد لا تزال قيد الانتظار)`)

export const payments: DashboardCatalogue["payments"] = {
  list: {
    title: "المدفوعات",
    search: "بحث: المعرّف أو البريد الإلكتروني أو المبلغ أو آخر 4 أرقام من البطاقة",
    searchHint: "ابحث بمعرّف الدفعة أو البريد الإلكتروني للعميل أو المبلغ (مثل 349.00) أو آخر 4 أرقام من البطاقة",
    from: (timeZone) => `من (تاريخ بتوقيت \u2068${timeZone}\u2069)`,
    to: (timeZone) => `إلى (تاريخ بتوقيت \u2068${timeZone}\u2069)`,
    dayRefused: "اكتب التاريخ بالصيغة سنة-شهر-يوم، مثل \u20662026-11-27\u2069",
    none: "لا مدفوعات.",
    older: "مدفوعات أقدم ←"
  },
  columns: {
    amount: "المبلغ",
    status: "الحالة",
    customer: "العميل",
    description: "الوصف",
    date: "التاريخ"
  },
  payment: {
    title: (amount) => `دفعة ${amount}`,
    id: "المعرّف",
    status: "الحالة",
    amount: "المبلغ",
    fee: "الرسوم",
    refunded: "المسترد",
    net: "الصافي",
    customer: "العميل",
    card: "البطاقة",
    description: "الوصف",
    discount: "الخصم",
    created: "تاريخ الإنشاء",
    receipt: "الإيصال",
    printableReceipt: "إيصال للطباعة",
    taxInvoice: "الفاتورة الضريبية",
    creditNotes: "الإشعارات الدائنة",
    comma: "، ",
    backFromReceipt: "→ العودة إلى الدفعة"
  },
  refund: {
    heading: "استرداد",
    amount: (remaining) => `المبلغ بالدرهم (حتى ${remaining})`,
    reason: "السبب",
    chooseReason: "اختر سببًا",
    note: "ملاحظة (اختيارية؛ تُحفظ مع الاسترداد وتُكتب على إشعاره الدائن)",
    review: "مراجعة الاسترداد",
    confirmNext: "تؤكّد في الصفحة التالية، وهي توضّح ما سيحدث."
  },
  reasons: {
    requested_by_customer: "بطلب من العميل",
    duplicate: "دفعة مكررة",
    fraudulent: "دفعة احتيالية"
  },
  why: (reason, note) => `${reason}${note === null ? "" : `: \u2068${note}\u2069`}`,
  timeline: {
    heading: "السجل الزمني",
    refundOf: (amount) => `استرداد ${amount}`,
    noReason: "لم يُذكر سبب"
  },
  refused: {
    cannotRefund: (role) => `لا يسمح دور «${role}» باسترداد المدفوعات.`,
    amount: "أدخل المبلغ بالدرهم، مثل 12.50",
    reason: "اختر سبب الاسترداد: بطلب من العميل، أو دفعة مكررة، أو دفعة احتيالية",
    note: (problem) => `لم تُقبل الملاحظة. السبب كما يذكره النظام بالإنجليزية: \u2066${problem}\u2069`,
    upTo: (remaining, pending) => `يمكنك استرداد ${remaining} كحد أقصى${held(pending)}`,
    nothingLeft: (pending) => `لم يتبقَّ شيء للاسترداد${held(pending)}`,
    outOfDate: "هذا النموذج قديم، لذلك لم يُسترد شيء. تحقّق من المبلغ وأرسله مرة أخرى.",
    otherAmount: "سبق إرسال هذا النموذج بمبلغ آخر، لذلك لم يُسترد أي مبلغ إضافي. راجع الدفعة أدناه وأعد الاسترداد منها.",
    notNow: "ربما بدأ الاسترداد لكن تعذّر إكماله الآن. أكّد مرة أخرى بعد قليل لإكمال الاسترداد نفسه: التأكيد مرة أخرى لا يُجري استردادًا ثانيًا."
  },
  confirm: {
    title: (amount) => `استرداد ${amount}؟`,
    goesBack: (amount, customer, card) =>
      html`يُعاد <strong>${amount}</strong> إلى ${
        customer === null ? "العميل" : `\u2068${customer.name ?? customer.email}\u2069 (\u2068${customer.email}\u2069)`
      }${card === null ? "" : ` على بطاقته \u2068${card.brand}\u2069 المنتهية بـ ${card.last4}`}.`,
    allOfIt: "هذا كل ما تبقّى من الدفعة: ستصبح مستردة.",
    restLater: (rest) => `يبقى ${rest} من الدفعة متاحًا لك لاسترداده لاحقًا.`,
    final: "لا تُعاد رسوم المعالجة. لا يمكن التراجع عن الاسترداد، وقد يستغرق ظهوره في حساب العميل لدى بنكه بضعة أيام.",
    reason: (why) =>
      html`السبب: <strong>${why}</strong>. يُحفظ مع الاسترداد، ويظهر في السجل الزمني للدفعة، ويُكتب على إشعاره الدائن.`,
    webhooks: (event) =>
      `تتلقى نقاط نهاية الويب هوك لديك الحدث \u2066${event}\u2069، ويصدر إشعار دائن إذا كانت للدفعة فاتورة ضريبية.`,
    button: (amount) => `استرداد ${amount}`
  },
  done: {
    pending: (amount) => `استرداد ${amount} قيد الانتظار: لم يردّ معالج الدفع بعد.`,
    refunded: (amount) => `تمّ استرداد ${amount}.`
  }
}

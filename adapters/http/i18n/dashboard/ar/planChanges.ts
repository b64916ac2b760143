/** A subscription's plan changes in Arabic (see `en/planChanges.ts`). */
import { html } from "../../../html/Html.js"
import type { DashboardCatalogue } from "../en/index.js"
import { counted } from "./counts.js"

/** A plan or a product named in a sentence: the merchant's own words, isolated. */
const named = (name: string, quantity: number) => `\u2068${name}\u2069 × ${quantity}`

export const planChanges: DashboardCatalogue["planChanges"] = {
  cannotChange: (role) => `لا يملك دور «${role}» صلاحية تعديل الاشتراكات.`,
  plan: (name, quantity, amount, every) => `${named(name, quantity)}: ${amount} ${every}`,
  period: (from, to) => `من ${from} إلى ${to}`,
  subscription: "الاشتراك",
  customer: "العميل",
  currentPeriod: "الفترة الحالية",
  creditBalance: "الرصيد الدائن",
  scheduledChange: "تغيير مجدول",
  scheduledTo: (plan, on) => `إلى ${plan}، في ${on}`,
  backToSubscription: "العودة إلى الاشتراك",
  rows: {
    credit: (amount, positive) => `${amount}${positive ? " (تُخصم منه المبالغ المستحقة التالية قبل البطاقة)" : ""}`,
    cancelScheduled: "إلغاء التغيير المجدول",
    planChange: "تغيير الخطة",
    waiting: (plan) => `إلى ${plan}، بانتظار تحصيل مبلغه`,
    changePlan: "تغيير الخطة"
  },
  onFailure: {
    apply_change: "التغيير؛ ويصبح الاشتراك معلّقًا",
    prevent_change: "الإبقاء على الخطة الحالية"
  },
  onFailureFull: {
    apply_change: "التغيير رغم ذلك: يصبح الاشتراك معلّقًا وتُعاد محاولة تحصيل فترته الأولى كما في التجديد الفاشل",
    prevent_change: "الإبقاء على الخطة الحالية: لا يتغيّر شيء سوى الدفعة الفاشلة"
  },
  form: {
    title: "تغيير الخطة",
    planNow: "الخطة الحالية",
    chooseProduct: "اختر منتجًا",
    productOption: (name, price, every, current) => `\u2068${name}\u2069: ${price} ${every}${current ? " (منتجه الحالي)" : ""}`,
    newProduct: "المنتج الجديد",
    quantity: "الكمية (من 1 إلى 1000)",
    billingMode: "طريقة الفوترة",
    productPolicy: "سياسة المنتج الجديد",
    takesEffect: "موعد السريان",
    productPolicyElseNow: "سياسة المنتج الجديد (وإلا فالآن)",
    ifDeclined: "إذا رُفضت البطاقة",
    preview: "معاينة التغيير",
    help: "تعرض المعاينة ما سيُحصَّل الآن؛ ولا يتغيّر شيء حتى تؤكّده."
  },
  preview: {
    title: "معاينة تغيير الخطة",
    from: "من",
    to: "إلى",
    kind: "النوع",
    upgrade: "ترقية الخطة (تكلّف أكثر في اليوم)",
    downgrade: "تخفيض الخطة (لا يكلّف أكثر في اليوم)",
    chargedNow: "ما يُحصَّل الآن",
    nothingNowScheduled: (renewal) => `لا شيء الآن. التجديد في ${renewal} يغيّر الخطة ويُحتسب على الخطة الجديدة.`,
    nothingNow: "لا شيء الآن. تتغيّر الخطة فورًا؛ ويبقى تاريخ الفوترة كما هو، ويُحتسب التجديد التالي على الخطة الجديدة.",
    line: "البند",
    amount: "المبلغ",
    vat: "ضريبة القيمة المضافة",
    firstPeriod: (name, quantity) => `${named(name, quantity)}، فترتها الأولى`,
    discount: (code, beforeVat) => `الخصم \u2068${code}\u2069${beforeVat ? " (من السعر قبل ضريبة القيمة المضافة)" : ""}`,
    lessCredit: "مطروحًا منه الرصيد",
    chargedToCard: "ما يُحصَّل من البطاقة الآن",
    credit: "الرصيد",
    balanceNow: "الرصيد الآن",
    unused: (name, quantity, share) =>
      `عن ${named(name, quantity)}: ${share === null ? "سعرها" : `وقتها غير المستخدم (${share}٪ من الفترة)`}`,
    usedForCharge: "المستخدم في هذا التحصيل",
    leftOnSubscription: "المتبقي على الاشتراك",
    after: "الاشتراك بعد التغيير",
    plan: "الخطة",
    confirmCharge: (amount) => `تأكيد: تحصيل ${amount} الآن`,
    confirmSchedule: "تأكيد: جدولة التغيير",
    confirm: "تأكيد التغيير",
    holds: (minutes) =>
      `تبقى هذه المعاينة صالحة لمدة ${counted(minutes, ["دقيقة واحدة", "دقيقتين", "دقائق", "دقيقة", "دقيقة"])}: إذا أُكّدت بعد ذلك، أو بعد أن يتغيّر الاشتراك أو المنتج، تُعرض من جديد بالأرقام الجديدة ولا يُحصَّل شيء.`,
    changeChoices: "تعديل الاختيارات"
  },
  refusals: {
    outOfDate: "هذا النموذج قديم، لذلك لم يتغيّر شيء. راجع المعاينة أدناه وأكّدها مرة أخرى.",
    alreadySent: "أُرسل هذا النموذج من قبل باختيارات أخرى، لذلك لم يتغيّر شيء آخر. راجع الاشتراك وغيّره مرة أخرى من صفحته.",
    notNow: "ربما بدأ التغيير لكن تعذّر إكماله الآن. افتح الاشتراك بعد قليل لترى إن كان قد تمّ قبل تغييره مرة أخرى."
  },
  done: {
    scheduled: (name, quantity, on) => `جُدول التغيير إلى ${named(name, quantity)} في ${on}.`,
    changedNothingCharged: (name, quantity, renewal) =>
      `تغيّرت الخطة إلى ${named(name, quantity)}؛ ولم يُحصَّل شيء الآن. التجديد في ${renewal} يُحتسب على الخطة الجديدة.`,
    declined: (code, name, quantity) =>
      `رُفضت البطاقة (\u2066${code}\u2069): تغيّرت الخطة إلى ${named(name, quantity)} وأصبح الاشتراك معلّقًا حتى تُدفع فترته الأولى (تُعاد المحاولة كما في التجديد الفاشل).`,
    processing: (amount) => `تحصيل ${amount} قيد المعالجة: تتغيّر الخطة عندما يردّ معالج الدفع.`,
    changedCharged: (name, quantity, amount) => `تغيّرت الخطة إلى ${named(name, quantity)}؛ وحُصِّل ${amount}.`
  },
  cancel: {
    noneTitle: "لا يوجد تغيير مجدول",
    none: "لا يوجد لهذا الاشتراك تغيير خطة مجدول.",
    title: "إلغاء التغيير المجدول",
    willNotBeMade: (plan, on) => html`لن يُجرى تغيير الخطة المجدول في ${on} إلى <strong>${plan}</strong>.`,
    stays: (plan, renewal, amount, credit) =>
      `يبقى الاشتراك على ${plan}: يُحصِّل تجديده في ${renewal} مبلغ ${amount}${credit === null ? "" : ` (بعد خصم ${credit} من رصيده)`}. لا يُحصَّل شيء الآن.`,
    button: "إلغاء التغيير المجدول",
    keep: "الإبقاء عليه",
    cancelled: (renewal) => `أُلغي التغيير المجدول: يبقى التجديد في ${renewal} على الخطة الحالية.`
  }
}

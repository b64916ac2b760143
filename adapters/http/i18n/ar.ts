/**
 * Every string of the customer's pages in Arabic: Modern Standard Arabic as a business in the UAE writes it. Typed
 * as the English catalogue (`en.ts`): a key missing here fails the typecheck.
 */
import type { BillingInterval } from "../../../src/domain/Product.js"
import { html, type Raw } from "../html/Html.js"
import type { Catalogue } from "./en.js"

/** A counted noun's forms: one, two (genitive), three to ten, eleven and more. */
const counted = (n: number, forms: readonly [string, string, string, string]) =>
  n === 1 ? forms[0] : n === 2 ? forms[1] : n >= 3 && n <= 10 ? `${n} ${forms[2]}` : `${n} ${forms[3]}`

const intervals: Record<BillingInterval, readonly [string, string, string, string]> = {
  day: ["يوم", "يومين", "أيام", "يومًا"],
  week: ["أسبوع", "أسبوعين", "أسابيع", "أسبوعًا"],
  month: ["شهر", "شهرين", "أشهر", "شهرًا"],
  year: ["سنة", "سنتين", "سنوات", "سنة"]
}

/** `n` days, after a preposition: يوم واحد، يومين، 3 أيام، 14 يومًا. */
const days = (n: number) => (n === 1 ? "يوم واحد" : counted(n, intervals.day))

const payments = (cycles: number | null, trial: boolean) =>
  (cycles === null
    ? "كل دفعة"
    : cycles === 1
    ? trial ? "الدفعة الأولى" : "هذه الدفعة"
    : `أول ${counted(cycles, ["دفعة", "دفعتين", "دفعات", "دفعة"])}`) +
  (trial ? " بعد الفترة التجريبية" : "")

export const ar: Catalogue = {
  languageName: "العربية",
  testMode: "وضع الاختبار",
  switchLanguage: "اللغة",
  every: (interval, n) => `كل ${counted(n, intervals[interval])}`,

  checkout: {
    payTitle: (merchant) => `الدفع إلى ${merchant}`,
    orderSummary: "ملخص الطلب",
    paymentDetails: "بيانات الدفع",
    backTo: (merchant) => `العودة إلى ${merchant}`,
    returnTo: (merchant) => `العودة إلى ${merchant}`,
    trialLine: (n, free) => `فترة تجريبية ${free ? "مجانية " : ""}لمدة ${days(n)}`,
    discount: (code) => `خصم ${code}`,
    discountPayments: payments,
    includesVat: "شامل ضريبة القيمة المضافة",
    subtotal: "المجموع الفرعي",
    vat: "ضريبة القيمة المضافة",
    total: "الإجمالي",
    totalToday: "الإجمالي المستحق اليوم",
    nothingToday: "لن يُحصَّل أي مبلغ اليوم.",
    chargedToday: (amount) => `يُحصَّل اليوم مبلغ ${amount}.`,
    trialThen: (p): Raw =>
      html`ثم ${p.amount}${p.vatIncluded ? " (شاملًا ضريبة القيمة المضافة)" : ""}${p.schedule === null ? "" : ` ${p.schedule}`}${
        p.discounted ? "، مطروحًا منه الخصم أدناه" : ""
      }، ويُحصَّل أول مرة في ${p.firstCharge} (عند انتهاء الفترة التجريبية ومدتها ${
        days(p.days)
      }). إذا ألغيت قبل ذلك فلن يُحصَّل أي مبلغ آخر.`,
    startTrial: "ابدأ الفترة التجريبية المجانية",
    pay: (amount) => `ادفع ${amount}`,
    business: "تشتري لصالح شركة؟ احصل على فاتورة ضريبية كاملة",
    businessName: "اسم الشركة (اختياري)",
    businessTrn: "رقم التسجيل الضريبي (اختياري، 15 رقمًا)",
    name: "الاسم على البطاقة",
    email: "البريد الإلكتروني",
    phone: "رقم الهاتف (اختياري، مثل \u2066+971501234567\u2069)",
    cardNumber: "رقم البطاقة",
    expiry: "تاريخ الانتهاء (الشهر / السنة)",
    cvc: "رمز الأمان",
    discountCode: "رمز الخصم",
    apply: "تطبيق",
    remove: "إزالة",
    secure: "تتم معالجة المدفوعات بأمان، ولا يُحفظ رقم بطاقتك أبدًا.",
    correct: "يرجى تصحيح الحقول المشار إليها.",
    discountNotRedeemable: "لم يُحصَّل أي مبلغ: أزِل رمز الخصم لتدفع من دونه.",
    crossSite: "لم تُرسَل هذه الدفعة من صفحة الدفع هذه، لذلك لم يُحصَّل أي مبلغ. أعد تحميل صفحة الدفع وحاول مرة أخرى.",
    notSentTitle: "لم تُرسَل الدفعة",
    notFoundTitle: "صفحة الدفع غير موجودة",
    notFound: "رابط الدفع هذا غير صالح. اطلب من التاجر رابطًا جديدًا.",
    checkoutName: "الدفع",
    expiredTitle: "انتهت صلاحية صفحة الدفع",
    expired: "انتهت صلاحية صفحة الدفع هذه. عُد إلى التاجر لتبدأ من جديد.",
    unavailableTitle: "غير متاح مؤقتًا",
    unavailable: "تعذّر الوصول إلى صفحة الدفع الآن. يرجى المحاولة بعد قليل.",
    unknownTitle: "حالة الدفعة غير معروفة بعد",
    unknown: "لم نتمكن من التأكد من إتمام دفعتك. يرجى عدم الدفع مرة أخرى الآن: أعد تحميل هذه الصفحة بعد قليل لمعرفة حالتها.",
    reload: "إعادة تحميل حالة الدفعة",
    paidTitle: "تم استلام الدفعة",
    paid: "شكرًا لك! تمت عملية الدفع بنجاح.",
    processingTitle: "الدفعة قيد المعالجة",
    processing: "دفعتك قيد المعالجة، وسيُبلغك التاجر عند اكتمالها.",
    trialStartedTitle: "بدأت الفترة التجريبية",
    trialStarted: (p) =>
      `بدأت فترتك التجريبية لمدة ${days(p.days)}. سيُحصَّل من بطاقتك أول مرة مبلغ ${p.amount} في ${p.on}، وإذا ألغيت قبل ذلك فلن يُحصَّل أي مبلغ آخر.`,
    complete: "اكتملت عملية الدفع هذه. شكرًا لك!",
    receipt: "الإيصال",
    amountPaid: "المبلغ المدفوع",
    paymentId: "رقم الدفعة",
    subscriptionId: "رقم الاشتراك",
    date: "التاريخ",
    items: "المشتريات",
    taxInvoice: "عرض الفاتورة الضريبية"
  },

  fieldErrors: {
    name: "أدخل الاسم كما يظهر على البطاقة.",
    emailSpaces: "احذف المسافات قبل عنوان البريد الإلكتروني أو بعده.",
    email: "أدخل عنوان بريد إلكتروني صحيحًا.",
    phone: "أدخل رقم الهاتف مع رمز الدولة، مثل \u2066+971501234567\u2069.",
    trn: "أدخل رقم التسجيل الضريبي للشركة: 15 رقمًا.",
    businessName: "أدخل اسم الشركة، بحد أقصى 200 حرف.",
    trnName: "أدخل اسم الشركة التي يعود إليها رقم التسجيل الضريبي.",
    cardNumber: "أدخل رقم بطاقة صحيحًا.",
    expMonth: "أدخل شهر الانتهاء، من 01 إلى 12.",
    expYear: "أدخل سنة الانتهاء، مثل 2030.",
    exp: "أدخل تاريخ الانتهاء بصيغة الشهر / السنة، مثل \u206608 / 29\u2069.",
    expTwice: "أدخل تاريخ الانتهاء مرة واحدة: بصيغة الشهر / السنة، أو شهرًا وسنة.",
    expired: "انتهت صلاحية هذه البطاقة.",
    cvc: "أدخل رمز الأمان المكوّن من 3 أو 4 أرقام."
  },

  declines: {
    card_declined: "رُفضت بطاقتك. جرّب بطاقة أخرى.",
    insufficient_funds: "الرصيد في بطاقتك غير كافٍ. جرّب بطاقة أخرى.",
    expired_card: "انتهت صلاحية بطاقتك. جرّب بطاقة أخرى.",
    processing_error: "تعذّرت معالجة بطاقتك. يرجى المحاولة مرة أخرى."
  },

  discountRefusals: {
    unknown: "هذا الرمز غير صالح. تحقّق منه وحاول مرة أخرى.",
    expired: "انتهت صلاحية هذا الرمز.",
    used_up: "استُنفد هذا الرمز.",
    not_applicable: "لا ينطبق هذا الرمز على أي منتج في طلبك."
  },

  formNotUtf8: "لم يُرسَل النموذج بترميز نصي صالح، لذلك لم يتغيّر شيء. أعد تحميل الصفحة وأرسله مرة أخرى من متصفحك."
}

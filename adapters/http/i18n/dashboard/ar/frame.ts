/** The dashboard's frame in Arabic (see `en/frame.ts`). */
import type { DashboardCatalogue } from "../en/index.js"
import { ar } from "../../ar.js"
import { counted } from "./counts.js"

/** A number of characters: «حرف واحد»، «حرفين»، «5 أحرف»، «50 حرفًا»، «200 حرف». */
const letters = (n: number) => counted(n, ["حرف واحد", "حرفين", "أحرف", "حرفًا", "حرف"])

export const frame: DashboardCatalogue["frame"] = {
  languageName: "العربية",
  titleSuffix: "لوحة تحكم فلس",
  defaultBusinessName: "تاجر فلس",
  skipToContent: "انتقل إلى المحتوى",
  liveMode: "الوضع الفعلي",
  testMode: "وضع الاختبار",
  switchTo: (live) => (live ? "التبديل إلى البيانات الفعلية" : "التبديل إلى بيانات الاختبار"),
  who: (email, role) => `\u2068${email}\u2069 (${role})`,
  roles: { owner: "مالك", admin: "مسؤول", developer: "مطوّر", viewer: "مُشاهد" },
  signOut: "تسجيل الخروج",
  navigation: "لوحة التحكم",
  nav: {
    home: "الرئيسية",
    payments: "المدفوعات",
    subscriptions: "الاشتراكات",
    customers: "العملاء",
    invoices: "الفواتير",
    creditNotes: "الإشعارات الدائنة",
    products: "المنتجات",
    discounts: "الخصومات",
    checkout: "جلسات الدفع",
    developers: "المطوّرون",
    events: "الأحداث",
    exports: "التصدير",
    audit: "سجل التدقيق",
    settings: "الإعدادات"
  },
  signIn: {
    title: "تسجيل الدخول",
    heading: "تسجيل الدخول إلى فلس",
    email: "البريد الإلكتروني",
    password: "كلمة المرور",
    submit: "تسجيل الدخول",
    noPasswordYet:
      "ليست لديك كلمة مرور بعد؟ افتح رابط تسجيل الدخول الخاص بك: الرابط الذي طبعه فلس عند تشغيله أول مرة، أو الدعوة التي أرسلها إليك مالك الحساب.",
    notFromHere: "لم يُرسل هذا النموذج من هذا الموقع.",
    linkNotValid: "الرابط غير صالح",
    linkGone: "رابط تسجيل الدخول هذا استُخدم أو انتهت صلاحيته. اطلب رابطًا جديدًا من مالك الحساب.",
    notSent: "لم يُرسل",
    codeTitle: "تسجيل الدخول بخطوتين",
    codeHeading: "أدخل الرمز",
    codeHelp:
      "افتح تطبيق المصادقة واكتب الرمز المكوّن من 6 أرقام الذي يعرضه لفلس. فقدت هاتفك؟ اكتب أحد رموز الاستعادة بدلًا منه.",
    code: "الرمز",
    startAgain: "ابدأ من جديد",
    setPasswordTitle: "عيّن كلمة المرور",
    setPasswordFor: "للحساب",
    setPasswordRule: "12 حرفًا على الأقل.",
    newPassword: "كلمة المرور الجديدة",
    setPasswordSubmit: "عيّن كلمة المرور وسجّل الدخول"
  },
  pages: {
    unavailable: "الخدمة غير متاحة",
    tryAgain: "حاول مرة أخرى بعد قليل.",
    notFound: "غير موجود",
    nothingHere: "لا يوجد شيء هنا.",
    notAllowed: "غير مسموح",
    notFromDashboard: "لم يُرسل هذا النموذج من لوحة التحكم هذه، لذلك لم يتغيّر شيء. أعد تحميل الصفحة وحاول مرة أخرى.",
    outOfDate: "انتهت صلاحية هذا النموذج",
    outOfDateText:
      "فُتح قبل أكثر من 23 ساعة، لذلك لم يُنفَّذ به شيء. ربما نفّذ إرسالٌ سابق له ما يطلبه: انظر في الصفحة أولًا، ثم استخدم نموذجًا جديدًا.",
    backToPage: "العودة إلى الصفحة"
  },
  spentForm: "أُرسل هذا النموذج من قبل، وما أنشأه حُذف بعد ذلك: لم يُنشأ شيء الآن. أرسله مرة أخرى لإنشاء غيره.",
  confirm: {
    goBack: "رجوع: لا تغيّر شيئًا",
    notYet: "لم يُنفَّذ شيء بعد: اقرأ ما سيحدث، ثم أكّد أدناه."
  },
  // The customer pages' words for the same refusals.
  formRefused: { notUtf8: ar.formNotUtf8, repeated: ar.formRepeated },
  refused: (message) => `تعذّر ذلك، ولم يتغيّر شيء. السبب كما يذكره النظام بالإنجليزية: \u2066${message}\u2069`,
  cannot: (message) => `لا يمكن ذلك الآن. السبب كما يذكره النظام بالإنجليزية: \u2066${message}\u2069`,
  fieldRefused: (message) => `قيمة غير مقبولة: \u2066${message}\u2069`,
  engine: {
    wrongCredentials: "البريد الإلكتروني وكلمة المرور لا يطابقان أي حساب.",
    emailUnavailable: "لا يمكن استخدام هذا البريد الإلكتروني هنا: اختر عنوانًا آخر.",
    changedMeanwhile: "تغيّرت بيانات تسجيل الدخول في أثناء ذلك (في علامة تبويب أخرى أو برابط تسجيل دخول): أعد تحميل الصفحة وحاول مرة أخرى.",
    emailTaken:
      "هذا البريد الإلكتروني مستخدم بالفعل لتسجيل الدخول إلى لوحة تحكم، ولا يُستخدم العنوان الواحد إلا لحساب واحد: اطلب من المالك الذي دعاك أن يدعو عنوانًا آخر.",
    linkGone: "رابط تسجيل الدخول هذا لم يعد صالحًا؛ اطلب رابطًا جديدًا من مالك الحساب.",
    userGone: "هذا المستخدم لم يعد موجودًا.",
    wrongPassword: "هذه ليست كلمة مرورك الحالية.",
    wrongCode: "هذا الرمز غير صحيح: اكتب الرمز الذي يعرضه تطبيقك الآن، أو أحد رموز الاستعادة.",
    signInExpired: "انتهت مهلة إدخال الرمز: سجّل الدخول مرة أخرى.",
    tooManyCodes: "رموز خاطئة كثيرة جدًا: سجّل الدخول مرة أخرى.",
    setUpCodeWrong: "هذا الرمز غير صحيح: تأكّد من أن ساعة هاتفك تُضبط تلقائيًا، واكتب الرمز الذي يعرضه الآن.",
    required: "هذا الحقل مطلوب.",
    chooseOne: "اختر أحد الخيارات."
  },
  rateLimited: (seconds) =>
    `محاولات كثيرة جدًا. حاول مرة أخرى بعد ${counted(seconds, ["ثانية واحدة", "ثانيتين", "ثوانٍ", "ثانية", "ثانية"])}.`,
  status: {
    succeeded: "تمّ بنجاح",
    processing: "قيد المعالجة",
    failed: "فشل",
    partially_refunded: "مستردة جزئيًا",
    refunded: "مستردة",
    active: "نشط",
    trialing: "فترة تجريبية",
    ending: "ينتهي في نهاية الفترة",
    on_hold: "معلّق",
    cancelled: "ملغى",
    open: "مفتوحة",
    complete: "مكتملة",
    expired: "منتهية",
    draft: "مسودة",
    archived: "مؤرشف",
    pending: "قيد الانتظار",
    refused: "رُفض",
    accepted: "مقبولة",
    rejected: "رُفض",
    enabled: "مفعّل",
    disabled: "معطّل",
    revoked: "مُبطَل"
  },
  common: {
    any: "الكل",
    filter: "تصفية",
    none: "لا شيء",
    yes: "نعم",
    no: "لا",
    save: "حفظ",
    cancel: "إلغاء",
    live: "فعلي",
    test: "اختبار",
    noCustomer: "بلا عميل",
    notAnOption: (value) => `«⁨${value}⁩» ليس من خيارات هذه القائمة: اختر واحدًا منها`,
    length: (min, max) =>
      min === 0
        ? `${letters(max)} على الأكثر`
        : min === max
        ? `${letters(min)} بالضبط`
        : `من ${min} إلى ${letters(max)}`,
    appliedDiscount: (code, off) =>
      off === null ? `⁨${code}⁩: استُخدم للدفعات بعد الفترة التجريبية` : `⁨${code}⁩: −${off}`
  }
}

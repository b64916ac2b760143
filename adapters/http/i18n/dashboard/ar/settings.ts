/** The dashboard's settings pages in Arabic (see `en/settings.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

/** A merchant's own text (an e-mail, a zone's name) kept whole inside an Arabic sentence. */
const own = (text: string) => `\u2068${text}\u2069`

export const settings: DashboardCatalogue["settings"] = {
  title: "الإعدادات",
  save: "حفظ",
  notAllowed: (role) => `لا يملك دور «${role}» صلاحية تغيير الإعدادات.`,
  prompt: {
    heading: "إلى أين يكتب عملاؤك لطلب المساعدة؟",
    help: "تعرض بوابة العملاء والإيصالات بريد الدعم الإلكتروني الخاص بك. يمكنك تغييره لاحقًا من الإعدادات.",
    supportEmail: "بريد الدعم الإلكتروني",
    skip: "تخطَّ حاليًا",
    empty: "أدخل بريد الدعم الإلكتروني، أو تخطَّ ذلك حاليًا.",
    notSaved: (reason, typed) => `لم يُحفظ بريد الدعم الإلكتروني (كتبت: ${own(typed)}). ${reason}`,
    saved: (email) => `حُفظ: سيُطلب من عملائك الكتابة إلى ${own(email)}.`
  },
  business: {
    heading: "النشاط التجاري",
    name: "اسم النشاط التجاري",
    supportEmail: "بريد الدعم الإلكتروني",
    saved: "حُفظت التغييرات."
  },
  timeZone: {
    heading: "المنطقة الزمنية",
    label: "التواريخ والأوقات في لوحة التحكم، والأيام التي تُحتسب فيها مجاميعها، بحسب المنطقة الزمنية",
    apiInUtc: "تجيب واجهة API دائمًا بتوقيت UTC.",
    save: "حفظ المنطقة الزمنية",
    changed: (zone) => `تُعرض الأوقات الآن بحسب المنطقة الزمنية ${own(zone)}.`
  },
  taxProfile: {
    heading: "الملف الضريبي",
    none: "لا يوجد: لا تُحتسب ضريبة القيمة المضافة ولا تصدر مستندات ضريبية.",
    notSaved: "لم يُحفظ الملف الضريبي: صحّح الحقول المشار إليها أدناه.",
    save: "حفظ الملف الضريبي",
    remove: "إزالة الملف الضريبي",
    saved: "حُفظ الملف الضريبي.",
    removed: "أُزيل الملف الضريبي: لن تُحتسب ضريبة القيمة المضافة ولن تصدر مستندات ضريبية من الآن."
  },
  team: {
    heading: "الفريق",
    onlyOwners: "لا يدير الفريق إلا المالكون.",
    roleOf: (email) => `دور ${own(email)}`,
    changeRole: "تغيير الدور",
    invited: "مدعو",
    active: "نشط",
    remove: "إزالة…",
    removeWho: (email) => `إزالة ${own(email)}`,
    inviteEmail: "دعوة بالبريد الإلكتروني",
    role: "الدور",
    invite: "دعوة",
    chooseRole: "اختر دورًا",
    inviteLink: "أرسل إليه رابط تسجيل الدخول هذا (يعمل مرة واحدة، خلال 24 ساعة):",
    roleChanged: (email, role) => `أصبح ${own(email)} الآن بدور «${role}».`,
    removed: (email) => `أُزيل ${own(email)}.`
  },
  remove: {
    titleYourself: "إزالة نفسك من الفريق؟",
    title: (email) => `إزالة ${own(email)}؟`,
    whatYourself: (email, role) =>
      `ستفقد أنت (${own(email)}، ${role}) الوصول إلى هذا الحساب فورًا: يُسجَّل خروجك من كل مكان، الآن.`,
    what: (email, role) =>
      `سيفقد ${own(email)} (${role}) الوصول إلى هذا الحساب فورًا: يُسجَّل خروجه من كل جلسة، ويتوقف عن العمل أي رابط تسجيل دخول أُرسل إليه.`,
    auditStays: "يبقى ما فعله في سجل التدقيق. للسماح له بالعودة، ادعه مرة أخرى.",
    keepsOwner: "يبقى للحساب مالك دائمًا: لا يمكن إزالة آخر مالك.",
    buttonYourself: "إزالة نفسي",
    button: (email) => `إزالة ${own(email)}`
  },
  you: {
    heading: "تسجيل دخولك",
    email: "البريد الإلكتروني",
    emailLabel: "البريد الإلكتروني الذي تسجّل الدخول به",
    yourPassword: "كلمة مرورك",
    changeEmail: "تغيير البريد الإلكتروني",
    emailChanged: (email) => `أصبحت تسجّل الدخول الآن بالبريد ${own(email)}.`,
    password: "كلمة المرور",
    currentPassword: "كلمة المرور الحالية",
    newPassword: "كلمة المرور الجديدة (12 حرفًا على الأقل)",
    changePassword: "تغيير كلمة المرور",
    passwordChanged: "تغيّرت كلمة المرور. سُجّل الخروج من جلساتك الأخرى.",
    twoFactor: "تسجيل الدخول بخطوتين",
    twoFactorOn: "مفعّل: يطلب تسجيل الدخول رمزًا من تطبيقك.",
    twoFactorOff: "معطّل: كلمة مرورك وحدها تكفي لتسجيل دخولك.",
    manageTwoFactor: "إدارة تسجيل الدخول بخطوتين",
    setUpTwoFactor: "إعداد تسجيل الدخول بخطوتين",
    requireTwoFactor: "اشترط تسجيل الدخول بخطوتين على كل من في هذا الحساب (من لم يُعدّه يُعدّه عند تسجيل دخوله التالي)",
    requiredHere: "هذا الحساب يشترطه.",
    tickOrEmpty: "حدّد المربع، أو اتركه فارغًا.",
    twoFactorRequired: "أصبح تسجيل الدخول بخطوتين مشترطًا: يُطلب ممن لم يُعدّه إعداده عند فتح صفحته التالية.",
    twoFactorChoice: "أصبح تسجيل الدخول بخطوتين اختيار كل مستخدم."
  },
  sessions: {
    heading: "الجلسات",
    signedIn: "وقت تسجيل الدخول",
    lastSeen: "آخر نشاط",
    thisBrowser: "هذا المتصفح",
    signOut: "تسجيل الخروج",
    signOutLabel: (when) => `تسجيل الخروج من الجلسة التي بدأت في ${when}`,
    signOutOthers: "تسجيل الخروج من كل الجلسات الأخرى",
    signOutEverywhere: "تسجيل الخروج من كل مكان، وهذا المتصفح أيضًا",
    signedOut: "سُجّل الخروج من تلك الجلسة.",
    othersSignedOut: "سُجّل الخروج من كل الجلسات الأخرى."
  }
}

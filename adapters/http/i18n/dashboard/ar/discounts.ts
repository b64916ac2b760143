/** The dashboard's discounts page in Arabic (see `en/discounts.ts`). */
import type { DashboardCatalogue } from "../en/index.js"
import { counted } from "./counts.js"

const times = (n: number) => counted(n, ["مرة واحدة", "مرتين", "مرات", "مرة", "مرة"])

export const discounts: DashboardCatalogue["discounts"] = {
  cannotCreate: (role) => `لا يملك دور «${role}» صلاحية إنشاء الخصومات.`,
  cannotChange: (role) => `لا يملك دور «${role}» صلاحية تعديل الخصومات.`,
  title: "الخصومات",
  code: "الرمز",
  takesOff: "قيمة الخصم",
  use: "الاستخدام",
  percent: (n) => `${n}٪`,
  allProducts: "كل المنتجات",
  cycles: (n) => counted(n, ["دورة فوترة واحدة", "دورتا فوترة", "دورات فوترة", "دورة فوترة", "دورة فوترة"]),
  used: (n, limit) => (limit !== null ? `استُخدم ${n} من ${limit}` : n === 0 ? "لم يُستخدم بعد" : `استُخدم ${times(n)}`),
  neverEnds: "لا ينتهي",
  ends: (at) => `ينتهي في ${at}`,
  status: { expired: "معطّل أو منتهٍ", usedUp: "استُنفد", active: "نشط" },
  enable: "تفعيل",
  disable: "تعطيل",
  delete: "حذف",
  none: "لا توجد خصومات بعد.",
  older: "خصومات أقدم ←",
  form: {
    heading: "خصم جديد",
    code:
      "الرمز (من 3 إلى 16 حرفًا لاتينيًا أو رقمًا أو - أو _؛ يمكن للعملاء كتابته بأحرف كبيرة أو صغيرة؛ إذا تُرك فارغًا يُنشأ رمز تلقائيًا)",
    name: (limit) => `الاسم (اختياري، ${limit})`,
    type: "النوع",
    percentage: "نسبة مئوية",
    flat: "مبلغ بالدرهم (AED)",
    amount: "النسبة (مثل 10 أو 12.5) أو المبلغ بالدرهم (AED) (مثل 25.00)",
    usageLimit: "حد الاستخدام (اختياري: عدد الدفعات التي يمكن أن تستخدمه)",
    cycles: "دورات الاشتراك (اختياري: عدد دفعات الاشتراك التي يُخصم منها، بما فيها الأولى؛ فارغ: كلها)",
    lastDay: (timeZone) => `آخر يوم (اختياري، بالصيغة سنة-شهر-يوم: يعمل الرمز حتى نهاية ذلك اليوم، بتوقيت \u2066${timeZone}\u2069)`,
    appliesTo: "ينطبق على (إن لم تحدّد شيئًا: كل المنتجات)",
    noProducts: "لا توجد منتجات نشطة.",
    create: "إنشاء الخصم"
  },
  refusals: {
    flat: "أدخل مبلغ الخصم بالدرهم (AED)، مثل 25.00",
    percent: "أدخل نسبة الخصم، من 0.01 إلى 100 (مثل 10 أو 12.5)",
    usageLimit: "أدخل حد الاستخدام عددًا صحيحًا، أو اتركه فارغًا بلا حد",
    cycles: "أدخل دورات الاشتراك عددًا صحيحًا، أو اتركه فارغًا لكل الدورات",
    lastDay: "أدخل آخر يوم بالصيغة سنة-شهر-يوم، مثل 2026-12-31، أو اتركه فارغًا"
  },
  done: {
    created: (code) => `أُنشئ الخصم \u2068${code}\u2069.`,
    deleted: "حُذف.",
    disabled: (code) => `عُطّل \u2068${code}\u2069: لم يعد ممكنًا استخدامه.`,
    enabled: (code) => `يمكن استخدام \u2068${code}\u2069 مجددًا.`
  },
  onSubscription: (terms, remaining) =>
    remaining === null
      ? `خصم ${terms} من كل تجديد`
      : remaining === 0
      ? `خصم ${terms}، ولم يبقَ له تجديد (استُنفدت دوراته)`
      : remaining === 1
      ? `خصم ${terms} من التجديد التالي`
      : remaining === 2
      ? `خصم ${terms} من التجديدين التاليين`
      : `خصم ${terms} من التجديدات الـ${remaining} التالية`
}

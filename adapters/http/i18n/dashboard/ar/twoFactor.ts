/** The dashboard's two-factor sign-in page in Arabic (see `en/twoFactor.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const twoFactor: DashboardCatalogue["twoFactor"] = {
  title: "تسجيل الدخول بخطوتين",
  required: "يشترط حسابك تسجيل الدخول بخطوتين: أعدّه للمتابعة.",
  intro: "بعد كلمة المرور، يطلب تسجيل الدخول رمزًا من تطبيق على هاتفك، فلا تفتح كلمة مرور مسروقة وحدها شيئًا.",
  passwordToSetUp: "كلمة مرورك، لإعداده",
  setUp: "إعداد تسجيل الدخول بخطوتين",
  addToApp: "1. أضف فلس إلى تطبيق المصادقة",
  qrLabel: "رمز QR للمفتاح، لمسحه بتطبيق المصادقة",
  addKey: "امسح الرمز بتطبيق المصادقة لديك، أو أضف فيه حسابًا بهذا المفتاح، على أساس الوقت:",
  onThisPhone: "على هذا الهاتف،",
  openInApp: "افتحه في تطبيقك",
  instead: "بدلًا من ذلك.",
  typeCode: "2. اكتب الرمز الذي يعرضه",
  sixDigitCode: "الرمز المكوّن من 6 أرقام",
  turnOn: "تفعيل",
  startAgain: "البدء من جديد بمفتاح جديد",
  nowOn: "تسجيل الدخول بخطوتين مفعّل",
  keepCodes: "احفظ رموز الاستعادة هذه في مكان آمن بعيدًا عن هاتفك: كل رمز منها يسجّل دخولك مرة واحدة إذا فقدت هاتفك.",
  shownOnce: "لن تُعرض إلا الآن.",
  continue: "المتابعة إلى لوحة التحكم",
  on: "مفعّل",
  since: (when) => `منذ ${when}.`,
  codesLeft: "رموز الاستعادة المتبقية:",
  ofTotal: (total) => `من ${total}.`,
  passwordToTurnOff: "كلمة مرورك، لإيقافه",
  codeToTurnOff: "رمز من تطبيقك، أو رمز استعادة",
  turnOff: "إيقاف تسجيل الدخول بخطوتين",
  turnedOff: (when) => `أُوقف تسجيل الدخول بخطوتين منذ ${when}.`
}

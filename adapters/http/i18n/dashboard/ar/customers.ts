/** The dashboard's customers pages in Arabic (see `en/customers.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const customers: DashboardCatalogue["customers"] = {
  list: {
    title: "العملاء",
    searchLabel: "البحث بالبريد الإلكتروني",
    search: "بحث",
    customer: "العميل",
    phone: "الهاتف",
    created: "تاريخ الإنشاء",
    none: "لا عملاء.",
    newCustomer: "عميل جديد",
    create: "إنشاء العميل"
  },
  form: {
    name: (limit) => `الاسم (اختياري، ${limit})`,
    email: "البريد الإلكتروني",
    phone: "الهاتف (بصيغة E.164، اختياري)",
    save: "حفظ العميل"
  },
  customer: {
    id: "المعرّف",
    email: "البريد الإلكتروني",
    phone: "الهاتف",
    created: "تاريخ الإنشاء",
    invoices: "فواتيره الضريبية",
    creditNotes: "إشعاراته الدائنة",
    payments: "المدفوعات",
    subscriptions: "الاشتراكات"
  },
  portal: {
    heading: "بوابة العملاء",
    help: (email) =>
      `رابط إلى البوابة، حيث يطّلع \u2068${email}\u2069 على إيصالاته وفواتيره، ويغيّر بطاقته، ويدير اشتراكاته. يُفتح مرة واحدة خلال ساعة.`,
    made: (email, until) =>
      `أرسل هذا الرابط إلى \u2068${email}\u2069 (بالبريد الإلكتروني أو في محادثة): يفتح بوابته مرة واحدة، حتى ${until}. لا يُعرض إلا الآن.`,
    make: "إنشاء رابط البوابة",
    another: "إنشاء رابط آخر"
  },
  clock: {
    heading: "ساعة الاختبار",
    clock: "الساعة",
    time: "الوقت",
    status: "الحالة",
    advancingTo: (to) => `إلى ${to}`,
    advanceTo: (format) => `تقديم الساعة إلى (بصيغة \u2066${format}\u2069، مثلًا بعد شهر من الآن)`,
    help: "تُنفَّذ الآن، بالترتيب، عمليات التجديد وإعادة المحاولة وانتهاء الصلاحية المستحقة على الساعة حتى ذلك الوقت.",
    advance: "تقديم الساعة",
    refused: (format, example) =>
      `لم تُقدَّم الساعة: اكتب الوقت بصيغة \u2066${format}\u2069 في الأعوام من 2000 إلى 2099، مثل \u2066${example}\u2069.`,
    advanced: (to) => `قُدّمت ساعة الاختبار إلى \u2066${to}\u2069.`
  },
  businessRefused: "لم يُحفظ العميل: صحّح بيانات النشاط التجاري المحددة أدناه.",
  created: "أُنشئ العميل.",
  saved: "حُفظت التغييرات.",
  cannot: {
    create: (role) => `لا يسمح دور «${role}» بإنشاء العملاء.`,
    change: (role) => `لا يسمح دور «${role}» بتعديل العملاء.`,
    portal: (role) => `لا يسمح دور «${role}» بإنشاء روابط البوابة.`,
    clock: (role) => `لا يسمح دور «${role}» بتقديم ساعات الاختبار.`
  }
}

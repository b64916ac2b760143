/** The dashboard's products pages in Arabic (see `en/products.ts`). */
import type { DashboardCatalogue } from "../en/index.js"
import { ar as customerPages } from "../../ar.js"
import { counted, dayForms } from "./counts.js"

const days = (n: number) => counted(n, dayForms)

export const products: DashboardCatalogue["products"] = {
  cannotCreate: (role) => `لا يملك دور «${role}» صلاحية إنشاء المنتجات.`,
  cannotChange: (role) => `لا يملك دور «${role}» صلاحية تعديل المنتجات.`,
  cannotMakeLinks: (role) => `لا يملك دور «${role}» صلاحية إنشاء روابط الدفع.`,
  list: {
    title: "المنتجات",
    product: "المنتج",
    price: "السعر",
    billing: "الفوترة",
    status: "الحالة",
    every: customerPages.every,
    withTrial: (every, n) => `${every}، ${customerPages.checkout.trialLine(n, false)}`,
    oneTime: "مرة واحدة",
    makeCheckoutLink: "إنشاء رابط دفع",
    makeActive: "تفعيل",
    archive: "أرشفة…",
    archiveLabel: (name) => `أرشفة \u2068${name}\u2069`,
    newProduct: "منتج جديد",
    create: "إنشاء المنتج",
    created: (name) => `أُنشئ المنتج \u2068${name}\u2069.`,
    notCreated: "لم يُنشأ المنتج: صحّح الحقول المشار إليها أدناه."
  },
  form: {
    name: (limit) => `الاسم (${limit})`,
    description: (limit) => `الوصف (${limit})`,
    priceInAed: "السعر بالدرهم الإماراتي (AED)",
    billing: "الفوترة",
    billings: { one_time: "مرة واحدة", month: "شهريًا", year: "سنويًا", week: "أسبوعيًا", day: "يوميًا" },
    trialLegend: "الفترة التجريبية (للمنتجات المتكررة)",
    trialDays: (max) => `أيام الفترة التجريبية (من 0 إلى ${max}؛ 0 لعدم وجودها)`,
    trialAmount: "رسوم الفترة التجريبية المدفوعة لكل وحدة بالدرهم (AED) (اتركه فارغًا لفترة تجريبية مجانية)",
    vatLegend: "ضريبة القيمة المضافة",
    taxCategory: "الفئة الضريبية",
    categoryOption: (code, name, standard) => `${name}${standard ? " 5٪" : ""} (${code})`,
    exemptionReason: "سبب الإعفاء (للمنتجات المعفاة فقط)",
    notExempt: "لا يوجد (غير معفى)",
    exemptionReasons: {
      "DL8.46.1": "خدمات مالية معيّنة",
      "DL8.46.2": "توريد الوحدات السكنية (بيعًا أو إيجارًا)",
      "DL8.46.3": "الأراضي الفضاء",
      "DL8.46.4": "النقل المحلي للركاب"
    },
    itemType: "نوع البند",
    services: "خدمات",
    goods: "سلع",
    itemCode: "رمز البند (اختياري: رمز محاسبي للخدمة أو رمز النظام المنسّق للسلع)",
    save: "حفظ المنتج",
    saved: "حُفظت التغييرات.",
    notSaved: "لم يُحفظ المنتج: صحّح الحقول المشار إليها أدناه."
  },
  refusals: {
    price: "أدخل السعر بالدرهم (AED)، مثل 65.00",
    trialPrice: "أدخل سعر الفترة التجريبية بالدرهم (AED)، مثل 10.00، أو اتركه فارغًا لفترة تجريبية مجانية",
    exemptNeedsReason: "المنتج المعفى يحتاج إلى سبب إعفائه",
    onlyExemptHasReason: "سبب الإعفاء للمنتج المعفى فقط: اختر «لا يوجد»، أو الفئة «معفى»"
  },
  page: {
    id: "المعرّف",
    price: "السعر",
    status: "الحالة",
    description: "الوصف",
    vat: "ضريبة القيمة المضافة",
    item: "البند",
    itemCode: "، الرمز",
    trial: "الفترة التجريبية",
    noTrial: "لا توجد",
    trialText: (n, amount) => `${days(n)}، ${amount === null ? "مجانًا" : `${amount} لكل وحدة`}`,
    planChanges: "تغييرات الخطة",
    customerPortal: "بوابة العملاء",
    offered: "معروض خطةً يمكن التغيير إليها",
    notOffered: "غير معروض"
  },
  archive: {
    title: (name) => `أرشفة \u2068${name}\u2069؟`,
    noNewCheckout: "لا يمكن بدء دفع جديد له: ترفض واجهة API ولوحة التحكم إنشاء جلسات دفع وروابط دفع جديدة لمنتج مؤرشف.",
    linksStillPaid: "روابط الدفع التي أُنشئت له من قبل تبقى قابلة للدفع حتى تنتهي صلاحيتها (بعد 24 ساعة من إنشائها).",
    subscriptionsKeep: "الاشتراكات القائمة عليه تستمر في التجديد بسعرها؛ ولا يعود بإمكان العملاء التحويل إليه في البوابة.",
    historyStays: "تبقى مدفوعاته وفواتيره وسجله. ويمكنك تفعيله مجددًا في أي وقت.",
    button: "أرشفة المنتج",
    archived: "أُرشف.",
    activeAgain: "أصبح نشطًا مجددًا."
  },
  checkoutLinkMade: "أُنشئ رابط الدفع: انسخ عنوان URL الخاص به أدناه.",
  sessions: {
    title: "جلسات الدفع",
    session: "الجلسة",
    status: "الحالة",
    total: "الإجمالي",
    created: "تاريخ الإنشاء",
    none: "لا توجد جلسات دفع.",
    older: "جلسات أقدم ←"
  },
  session: {
    title: "جلسة الدفع",
    id: "المعرّف",
    status: "الحالة",
    checkoutUrl: "عنوان URL للدفع",
    total: "الإجمالي",
    discount: "الخصم",
    expires: "تنتهي صلاحيتها",
    payment: "الدفعة"
  }
}

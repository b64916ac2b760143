/** Plan changes' billing modes and timing in Arabic (see `en/planPolicy.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const planPolicy: DashboardCatalogue["planPolicy"] = {
  modes: {
    prorated_immediately: "الخطة الجديدة الآن، مطروحًا منها الوقت غير المستخدم من الخطة القديمة",
    full_immediately: "الخطة الجديدة الآن، كاملةً",
    difference_immediately: "الخطة الجديدة الآن، مطروحًا منها سعر الخطة القديمة",
    do_not_bill: "لا شيء الآن؛ ويبقى تاريخ الفوترة كما هو"
  },
  when: {
    immediately: "الآن",
    next_billing_date: "في تاريخ الفوترة التالي (يُحتسب التجديد حينها على الخطة الجديدة)"
  },
  // The words first, the API's code after them in parentheses, isolated so that it reads left to right.
  coded: (code, words) => `${words} (\u2066${code}\u2069)`,
  noPolicy: "لا توجد: كل تغيير يحدّد طريقة فوترته",
  policy: (upgrade, downgrade) => `ترقيات الخطة: \u2066${upgrade}\u2069؛ تخفيضات الخطة: \u2066${downgrade}\u2069`,
  form: {
    legend: "تغييرات الخطة (للمنتجات المتكررة)",
    help:
      "كيف يُحتسب تغيير اشتراك إلى هذا المنتج إذا لم يحدّد التغيير ذلك: ترقية الخطة تكلّف في اليوم أكثر من الخطة التي تحلّ محلها، وتخفيض الخطة لا يكلّف أكثر. لا توجد: كل تغيير يحدّد طريقة فوترته.",
    upgradeCharges: "ما تُحصّله الترقية إليه",
    upgradeWhen: "موعد سريان ترقية الخطة",
    downgradeCharges: "ما يُحصّله تخفيض الخطة إليه",
    downgradeWhen: "موعد سريان تخفيض الخطة",
    none: "لا توجد (بلا سياسة)",
    offeredInPortal: "يُعرض في بوابة العملاء خطةً يمكن التغيير إليها"
  },
  refusals: {
    policyNeedsRecurring: "سياسة تغيير الخطة للمنتج المتكرر فقط: اختر فترة فوترة، أو «لا توجد»",
    portalNeedsRecurring: "لا يُعرض في البوابة إلا المنتج المتكرر: اختر فترة فوترة، أو ألغِ تحديد هذا الخيار"
  }
}

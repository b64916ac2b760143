/** The tax forms in Arabic (see `en/tax.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const tax: DashboardCatalogue["tax"] = {
  tickOrEmpty: "حدّد المربع أو اتركه فارغًا",
  licenceNeedsNumber: "الرخصة التجارية تحتاج إلى رقمها",
  licenceNeedsAuthority: "الرخصة التجارية تحتاج إلى الجهة التي أصدرتها",
  none: "لا يوجد",
  licence: (number, authority) => `\u2068${number}\u2069، صادرة عن \u2068${authority}\u2069`,
  profile: {
    legalName: "الاسم القانوني (بالإنجليزية)",
    legalNameAr: "الاسم القانوني (بالعربية، اختياري)",
    trn: "رقم التسجيل الضريبي (15 رقمًا؛ مطلوب عند التسجيل في ضريبة القيمة المضافة)",
    line1: "سطر العنوان 1",
    line2: "سطر العنوان 2 (اختياري)",
    city: "المدينة",
    emirate: "الإمارة",
    chooseEmirate: "اختر…",
    licenceNumber: "رقم الرخصة التجارية (اختياري)",
    licenceAuthority: "جهة الترخيص (اختياري)",
    vatRegistered: "مسجّل في ضريبة القيمة المضافة: تُحتسب الضريبة وتصدر فواتير ضريبية",
    pricesIncludeVat: "الأسعار شاملة ضريبة القيمة المضافة"
  },
  summary: {
    label: "الملف الضريبي",
    legalName: "الاسم القانوني",
    trn: "رقم التسجيل الضريبي",
    address: "العنوان",
    tradeLicence: "الرخصة التجارية",
    vat: "ضريبة القيمة المضافة",
    registered: "مسجّل: تصدر الفواتير الضريبية والإشعارات الدائنة",
    notRegistered: "غير مسجّل: لا تُحتسب ضريبة القيمة المضافة",
    prices: "الأسعار",
    includeVat: "شاملة ضريبة القيمة المضافة",
    excludeVat: "غير شاملة ضريبة القيمة المضافة (تضيفها صفحة الدفع)"
  },
  buyer: {
    legend: "بيانات النشاط التجاري للفواتير الضريبية (اختياري)",
    businessName: "اسم النشاط التجاري",
    trn: "رقم التسجيل الضريبي (15 رقمًا: فواتيره فواتير ضريبية كاملة)",
    line1: "سطر العنوان 1",
    line2: "سطر العنوان 2",
    city: "المدينة",
    emirate: "الإمارة",
    noEmirate: "لا شيء",
    peppolId: "معرّف نقطة Peppol (المخطط 0235: أول 10 أرقام من رقم التسجيل الضريبي)",
    licenceNumber: "رقم الرخصة التجارية",
    licenceAuthority: "جهة الترخيص",
    business: "النشاط التجاري",
    businessAddress: "عنوان النشاط التجاري",
    peppolEndpoint: "نقطة Peppol",
    tradeLicence: "الرخصة التجارية"
  }
}

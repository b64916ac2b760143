/** The dashboard's tax documents in Arabic (see `en/documents.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

/** Words from outside (a provider's error, a reference, a number) kept whole, left to right, in an Arabic sentence. */
const quoted = (text: string) => `\u2066${text}\u2069`

export const documents: DashboardCatalogue["documents"] = {
  search: "معرّف الدفعة أو البريد الإلكتروني للعميل",
  searchButton: "بحث",
  empty: "لا توجد مستندات.",
  older: "الأقدم ←",
  number: "الرقم",
  date: "التاريخ",
  customer: "العميل",
  vat: "ضريبة القيمة المضافة",
  invoices: {
    title: "الفواتير",
    toEInvoices: "الفواتير الإلكترونية المرسلة إلى المزوّد ←",
    total: "الإجمالي",
    kind: "النوع",
    kinds: { full: "كاملة", simplified: "مبسّطة" }
  },
  creditNotes: {
    title: "الإشعارات الدائنة",
    invoice: "الفاتورة",
    credited: "المبلغ الدائن"
  },
  document: {
    backToInvoices: "→ الفواتير",
    backToCreditNotes: "→ الإشعارات الدائنة",
    payment: "الدفعة",
    downloadXml: "تنزيل ملف XML بصيغة PINT AE",
    eInvoice: (standing) => `الفاتورة الإلكترونية ${standing}`,
    resend: "إعادة الإرسال بعد تصحيح الملف الضريبي"
  },
  transmission: {
    accepted: (reference) => reference === null ? "قبلها المزوّد (بلا مرجع)" : `قبلها المزوّد (المرجع ${quoted(reference)})`,
    rejected: (errors) =>
      `رفضها المزوّد، والأسباب كما يذكرها بالإنجليزية: ${errors.map((e) => quoted(`${e.message} (${e.code})`)).join("؛ ")}`,
    waiting: (attempts, lastError, waiting) =>
      `في انتظار الإرسال${attempts > 0 ? ` (المحاولة ${attempts}${lastError ? `: ${quoted(lastError)}` : ""})` : ""}${
        waiting ? ": لا يوجد مزوّد فواتير إلكترونية مضبوط لهذا الوضع، وتنتظر حتى يُضبط" : ""
      }`
  },
  eInvoices: {
    title: "الفواتير الإلكترونية",
    intro: "المستندات الضريبية للشركات المشترية التي لديها نقطة Peppol، كما سُلّمت إلى مزوّد الفواتير الإلكترونية (الأحدث أولًا).",
    all: "الكل",
    document: "المستند",
    status: "الحالة",
    attempts: "المحاولات",
    provider: "المزوّد",
    empty: "لا توجد فواتير إلكترونية.",
    notAllowed: (role) => `لا يملك دور «${role}» صلاحية إعادة إرسال الفواتير الإلكترونية.`,
    notResent: (reason) => `لم يُعَد الإرسال. ${reason}`,
    resent: (number) => `ستُرسل الفاتورة الإلكترونية ${quoted(number)} مرة أخرى بالملف الضريبي وبيانات العميل الحالية.`
  }
}

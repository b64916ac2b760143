/** The dashboard's developers pages in Arabic (see `en/developers.ts`). */
import { Duration } from "effect"
import * as WebhookHealth from "../../../../../src/domain/WebhookHealth.js"
import { html } from "../../../html/Html.js"
import type { DashboardCatalogue } from "../en/index.js"
import { type CountForms, counted, dayForms } from "./counts.js"

const attemptForms: CountForms = ["محاولة واحدة", "محاولتان", "محاولات", "محاولة", "محاولة"]
const deliveryForms: CountForms = ["عملية تسليم واحدة", "عمليتا تسليم", "عمليات تسليم", "عملية تسليم", "عملية تسليم"]
const failedDeliveryForms: CountForms = ["عملية تسليم فاشلة واحدة", "عمليتا تسليم فاشلتان", "عمليات تسليم فاشلة", "عملية تسليم فاشلة", "عملية تسليم فاشلة"]

/** Latin text (a key, a code, a time zone) inside an Arabic sentence, kept left to right in its place. */
const ltr = (text: string) => `\u2066${text}\u2069`

/** The health rule in words: "every attempt had failed for 3 days (at least 9 failed attempts)". */
const rule = `فشلت كل محاولة طوال ${counted(Math.round(Duration.toHours(WebhookHealth.disableAfter) / 24), dayForms)} (${
  counted(WebhookHealth.minFailures, attemptForms)
} فاشلة على الأقل)`

export const developers: DashboardCatalogue["developers"] = {
  forbidden: {
    createKeys: (role, live) => `لا يملك دور «${role}» صلاحية إنشاء مفاتيح ${live ? "للوضع الفعلي" : "لوضع الاختبار"}.`,
    revokeKeys: (role) => `لا يملك دور «${role}» صلاحية إبطال المفاتيح.`,
    addEndpoints: (role) => `لا يملك دور «${role}» صلاحية إضافة نقاط نهاية.`,
    changeEndpoints: (role) => `لا يملك دور «${role}» صلاحية تغيير نقاط النهاية.`,
    sendTests: (role) => `لا يملك دور «${role}» صلاحية إرسال أحداث اختبار.`,
    resend: (role) => `لا يملك دور «${role}» صلاحية إعادة إرسال عمليات التسليم.`
  },
  keys: {
    title: "المطوّرون",
    newKey: "مفتاح جديد يُعرض مرة واحدة فقط: انسخه الآن.",
    heading: "مفاتيح API",
    key: "المفتاح",
    created: "تاريخ الإنشاء",
    lastUsed: "آخر استخدام",
    status: "الحالة",
    never: "لم يُستخدم",
    revoke: "إبطال…",
    revokeLabel: (last4) => `إبطال المفتاح المنتهي بـ ${last4}`,
    create: (live) => (live ? "إنشاء مفتاح للوضع الفعلي" : "إنشاء مفتاح لوضع الاختبار"),
    logsHeading: "سجل الطلبات",
    logsLine: (href) => html`<a href="${href}">سجل الطلبات</a>: كل طلب API في هذا الوضع، وحالته، والأحداث التي تسبّب بها.`,
    endpointsHeading: "نقاط نهاية الويب هوك",
    url: "عنوان URL",
    events: "الأحداث",
    endpointUrl: "عنوان URL لنقطة النهاية",
    addEndpoint: "إضافة نقطة نهاية",
    revoked: (last4) => `أُبطل المفتاح المنتهي بـ ${last4}.`,
    revokedNow: (last4) => `أُلغي المفتاح المنتهي بـ ${last4}.`
  },
  revoke: {
    title: "إبطال مفتاح API هذا؟",
    stops: (name) => html`يتوقف المفتاح <code dir="ltr">${name}</code> عن العمل فورًا: يُرفض كل طلب API يُرسَل به (401).`,
    integrations: (lastUsed) =>
      `ستفشل أي عملية تكامل أو خادم أو برنامج نصي يستخدمه إلى أن تعطيه مفتاحًا آخر. ${
        lastUsed === null ? "لم يُستخدم قط." : `آخر استخدام له: ${lastUsed}.`
      }`,
    final: "لا يمكن إعادة تفعيل مفتاح مُبطَل. أنشئ المفتاح الجديد أولًا إن كان شيء ما لا يزال يحتاج إلى مفتاح.",
    button: (name) => `إبطال ${ltr(name)}`
  },
  endpoint: {
    title: "نقطة نهاية الويب هوك",
    autoDisabled: (at, since) =>
      `عطّل فلس نقطة النهاية هذه في ${at}: ${rule}${
        since === null ? "" : `، وهي تفشل منذ ${since}`
      }. أصلح الخادم المستقبِل، وفعّل نقطة النهاية، ثم أعد إرسال ما فاتها («الاستعادة» أدناه).`,
    noAttempts: "لم تُجرَ أي محاولة في آخر يوم",
    failedShare: (failed, attempts, percent) => `المحاولات الفاشلة في آخر يوم: ${failed} من ${attempts} (${percent}٪)`,
    failingSince: (since) => `؛ تفشل منذ ${since}`,
    url: "عنوان URL",
    id: "المعرّف",
    events: "الأحداث",
    status: "الحالة",
    health: "سلامة التسليم",
    signingSecret: "سر التوقيع",
    description: "الوصف",
    save: "حفظ نقطة النهاية",
    enable: "تفعيل",
    disable: "تعطيل",
    reveal: "إظهار سر التوقيع",
    rotate: "تجديد سر التوقيع",
    resendFailed: "إعادة إرسال كل عمليات التسليم الفاشلة",
    delete: "حذف نقطة النهاية…",
    recover: "الاستعادة",
    recoverButton: "استعادة",
    testAndRecover: "الاختبار والاستعادة",
    testLabel: (field, value) => html`أرسل حدث اختبار موقّعًا (يحمل <code dir="ltr">"${field}": ${value}</code>)`,
    sendTest: "إرسال حدث اختبار",
    recoverLabel: (timeZone, format) =>
      `أعد إرسال ما لم يصل (الفاشل أو الملغى) منذ هذا الوقت، بتوقيت ${ltr(timeZone)} (${ltr(format)})`,
    deliveries: "عمليات التسليم",
    event: "الحدث",
    attempts: "المحاولات",
    lastAnswer: "آخر رد",
    latency: "زمن الاستجابة",
    nextAttempt: "المحاولة التالية",
    test: " (اختبار)",
    resend: "إعادة الإرسال",
    attemptsSent: "المحاولات وما أُرسل",
    attempt: (n, at, answer, ms) => `المحاولة ${n}، ${at}: ${ltr(answer)}، ${ms} مللي ثانية`,
    noAnswer: "لا رد",
    answer: "الرد (أول 4096 بايت)",
    noBody: "(لا شيء)",
    headersSent: "الترويسات المرسلة",
    bodySent: "متن الطلب المرسل (نفسه في كل محاولة)",
    noDeliveries: "لا توجد عمليات تسليم بعد.",
    older: "عمليات تسليم أقدم ←"
  },
  done: {
    saved: "حُفظت التغييرات.",
    disabled: "عُطّلت نقطة النهاية: لن تتلقى شيئًا جديدًا.",
    enabled: "فُعّلت نقطة النهاية.",
    rotated: "سر توقيع جديد: يواصل السر القديم التوقيع إلى جانبه مدة 24 ساعة.",
    resentFailed: (n) =>
      n === 0 ? "لا توجد عمليات تسليم فاشلة لإعادة إرسالها." : `أُعيدت ${counted(n, failedDeliveryForms)} إلى قائمة الإرسال.`,
    testQueued: (type) => `أُدرج حدث الاختبار ${ltr(type)} للإرسال: يظهر أدناه بعد إرساله.`,
    recovered: (n, since) =>
      n === 0 ? `لا توجد عمليات تسليم منذ ${since} لإعادة إرسالها.` : `أُعيدت ${counted(n, deliveryForms)} منذ ${since} إلى قائمة الإرسال.`,
    resent: "أُدرجت لإعادة الإرسال الآن.",
    chooseType: (types) => `اختر أحد أنواع الأحداث التي تتلقاها نقطة النهاية (${ltr(types)})`,
    badSince: (format, timeZone, typed) =>
      `يجب أن يكون وقت البدء تاريخًا ووقتًا (${ltr(format)}، ${ltr(timeZone)})؛ المُدخل: «\u2068${typed}\u2069»`
  },
  delete: {
    title: "حذف نقطة نهاية الويب هوك هذه؟",
    stops: (url) =>
      html`تتوقف نقطة النهاية <code dir="ltr">${url}</code> عن تلقي الأحداث فورًا، ولن تُرسَل إليها عمليات التسليم التي لا تزال بانتظار الإرسال.`,
    secretAndLog: "يُحذف معها سر التوقيع وسجل عمليات التسليم. لا يمكن التراجع عن الحذف: لإيقافها مؤقتًا، عطّلها بدلًا من ذلك.",
    eventsStay: "تبقى الأحداث في سجل الأحداث؛ أضف نقطة نهاية من جديد لتلقي الأحداث الجديدة.",
    button: "حذف نقطة النهاية"
  }
}

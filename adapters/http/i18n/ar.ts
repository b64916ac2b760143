/**
 * Every string of the customer's pages in Arabic: Modern Standard Arabic as a business in the UAE writes it. Typed
 * as the English catalogue (`en.ts`): a key missing here fails the typecheck.
 */
import type { BillingInterval } from "../../../src/domain/Product.js"
import { html, type Raw } from "../html/Html.js"
import type { Catalogue } from "./en.js"

/** A counted noun's forms: one, two (genitive), three to ten, eleven and more. */
const counted = (n: number, forms: readonly [string, string, string, string]) =>
  n === 1 ? forms[0] : n === 2 ? forms[1] : n >= 3 && n <= 10 ? `${n} ${forms[2]}` : `${n} ${forms[3]}`

const intervals: Record<BillingInterval, readonly [string, string, string, string]> = {
  day: ["يوم", "يومين", "أيام", "يومًا"],
  week: ["أسبوع", "أسبوعين", "أسابيع", "أسبوعًا"],
  month: ["شهر", "شهرين", "أشهر", "شهرًا"],
  year: ["سنة", "سنتين", "سنوات", "سنة"]
}

/** `n` days, after a preposition: يوم واحد، يومين، 3 أيام، 14 يومًا. */
const days = (n: number) => (n === 1 ? "يوم واحد" : counted(n, intervals.day))

const payments = (cycles: number | null, trial: boolean) =>
  (cycles === null
    ? "كل دفعة"
    : cycles === 1
    ? trial ? "الدفعة الأولى" : "هذه الدفعة"
    : `أول ${counted(cycles, ["دفعة", "دفعتين", "دفعات", "دفعة"])}`) +
  (trial ? " بعد الفترة التجريبية" : "")

export const ar: Catalogue = {
  languageName: "العربية",
  testMode: "وضع الاختبار",
  switchLanguage: "اللغة",
  comma: "، ",
  every: (interval, n) => `كل ${counted(n, intervals[interval])}`,

  checkout: {
    payTitle: (merchant) => `الدفع إلى ${merchant}`,
    orderSummary: "ملخص الطلب",
    paymentDetails: "بيانات الدفع",
    backTo: (merchant) => `العودة إلى ${merchant}`,
    returnTo: (merchant) => `العودة إلى ${merchant}`,
    trialLine: (n, free) => `فترة تجريبية ${free ? "مجانية " : ""}لمدة ${days(n)}`,
    discount: (code) => `خصم ${code}`,
    discountPayments: payments,
    includesVat: "شامل ضريبة القيمة المضافة",
    subtotal: "المجموع الفرعي",
    vat: "ضريبة القيمة المضافة",
    total: "الإجمالي",
    totalToday: "الإجمالي المستحق اليوم",
    nothingToday: "لن يُحصَّل أي مبلغ اليوم.",
    chargedToday: (amount) => `يُحصَّل اليوم مبلغ ${amount}.`,
    trialThen: (p): Raw =>
      html`ثم ${p.amount}${p.vatIncluded ? " (شاملًا ضريبة القيمة المضافة)" : ""}${p.schedule === null ? "" : ` ${p.schedule}`}${
        p.discounted ? "، مطروحًا منه الخصم أدناه" : ""
      }، ويُحصَّل أول مرة في ${p.firstCharge} (عند انتهاء الفترة التجريبية ومدتها ${
        days(p.days)
      }). إذا ألغيت قبل ذلك فلن يُحصَّل أي مبلغ آخر.`,
    startTrial: "ابدأ الفترة التجريبية المجانية",
    pay: (amount) => `ادفع ${amount}`,
    business: "تشتري لصالح شركة؟ احصل على فاتورة ضريبية كاملة",
    businessName: "اسم الشركة (اختياري)",
    businessTrn: "رقم التسجيل الضريبي (اختياري، 15 رقمًا)",
    name: "الاسم على البطاقة",
    email: "البريد الإلكتروني",
    phone: "رقم الهاتف (اختياري، مثل \u2066+971501234567\u2069)",
    cardNumber: "رقم البطاقة",
    expiry: "تاريخ الانتهاء (الشهر / السنة)",
    cvc: "رمز الأمان",
    discountCode: "رمز الخصم",
    apply: "تطبيق",
    remove: "إزالة",
    secure: "تتم معالجة المدفوعات بأمان، ولا يُحفظ رقم بطاقتك أبدًا.",
    correct: "يرجى تصحيح الحقول المشار إليها.",
    discountNotRedeemable: "لم يُحصَّل أي مبلغ: أزِل رمز الخصم لتدفع من دونه.",
    crossSite: "لم تُرسَل هذه الدفعة من صفحة الدفع هذه، لذلك لم يُحصَّل أي مبلغ. أعد تحميل صفحة الدفع وحاول مرة أخرى.",
    notSentTitle: "لم تُرسَل الدفعة",
    notFoundTitle: "صفحة الدفع غير موجودة",
    notFound: "رابط الدفع هذا غير صالح. اطلب من التاجر رابطًا جديدًا.",
    checkoutName: "الدفع",
    expiredTitle: "انتهت صلاحية صفحة الدفع",
    expired: "انتهت صلاحية صفحة الدفع هذه. عُد إلى التاجر لتبدأ من جديد.",
    unavailableTitle: "غير متاح مؤقتًا",
    unavailable: "تعذّر الوصول إلى صفحة الدفع الآن. يرجى المحاولة بعد قليل.",
    unknownTitle: "حالة الدفعة غير معروفة بعد",
    unknown: "لم نتمكن من التأكد من إتمام دفعتك. يرجى عدم الدفع مرة أخرى الآن: أعد تحميل هذه الصفحة بعد قليل لمعرفة حالتها.",
    reload: "إعادة تحميل حالة الدفعة",
    paidTitle: "تم استلام الدفعة",
    paid: "شكرًا لك! تمت عملية الدفع بنجاح.",
    processingTitle: "الدفعة قيد المعالجة",
    processing: "دفعتك قيد المعالجة، وسيُبلغك التاجر عند اكتمالها.",
    trialStartedTitle: "بدأت الفترة التجريبية",
    trialStarted: (p) =>
      `بدأت فترتك التجريبية لمدة ${days(p.days)}. سيُحصَّل من بطاقتك أول مرة مبلغ ${p.amount} في ${p.on}، وإذا ألغيت قبل ذلك فلن يُحصَّل أي مبلغ آخر.`,
    complete: "اكتملت عملية الدفع هذه. شكرًا لك!",
    receiptPayerOnly: "لا يظهر إيصالها إلا في المتصفح الذي تم الدفع منه.",
    receipt: "الإيصال",
    amountPaid: "المبلغ المدفوع",
    paymentId: "رقم الدفعة",
    subscriptionId: "رقم الاشتراك",
    date: "التاريخ",
    items: "المشتريات",
    taxInvoice: "عرض الفاتورة الضريبية",
    staleForm: "هذا النموذج قديم؛ أعد تحميل الصفحة وحاول مرة أخرى.",
    notPayableNow: () => "لا يمكن إتمام الدفع الآن: قد تكون دفعة لعملية الدفع هذه قيد المعالجة بالفعل. لم يُخصم أي مبلغ آخر؛ أعد تحميل الصفحة بعد قليل."
  },

  portal: {
    title: (merchant) => `${merchant}: حسابك`,
    yourMerchant: "التاجر",
    questions: (email): Raw => html`لديك سؤال؟ راسلنا على ${email}`,
    signedInAs: (who): Raw => html`تم تسجيل الدخول باسم ${who}`,
    subscriptions: "الاشتراكات",
    noSubscriptions: "ليس لديك أي اشتراكات.",
    payments: "المدفوعات",
    noPayments: "ليس لديك أي مدفوعات بعد.",
    documents: "الفواتير الضريبية والإشعارات الدائنة",
    date: "التاريخ",
    description: "الوصف",
    amount: "المبلغ",
    status: "الحالة",
    receipt: "الإيصال",
    document: "المستند",
    refunded: (amount) => `تم استرداد ${amount}`,
    taxInvoice: "فاتورة ضريبية",
    creditNote: (invoice) => `إشعار دائن (الفاتورة ${invoice})`,
    returnTo: (merchant) => `العودة إلى ${merchant}`,
    signOut: "تسجيل الخروج",
    statuses: {
      active: "نشط",
      on_hold: "دفعة متأخرة",
      cancelled: "ملغى",
      succeeded: "مدفوع",
      partially_refunded: "مسترد جزئيًا",
      refunded: "مسترد",
      failed: "فشل",
      processing: "قيد المعالجة"
    },
    card: (p) => `\u2066${p.brand} •••• ${p.last4}\u2069، تنتهي في \u2066${p.expiry}\u2069`,
    cardLine: (card) => `البطاقة: ${card}`,
    cancelledOn: (date) => `أُلغي في ${date}.`,
    overdue: (p) =>
      `رُفضت الدفعة المستحقة في ${p.due}.${p.retry === null ? "" : ` سنحاول مرة أخرى في ${p.retry}.`} حدّث بطاقتك لدفعها الآن.`,
    endsOn: (date) => `ينتهي في ${date}، ولن يُحصَّل منك أي مبلغ آخر.`,
    endsBadge: (date) => `ينتهي في ${date}`,
    nextPayment: (amount, date) => `الدفعة التالية بمبلغ ${amount} في ${date}.`,
    updateCardAndPay: "حدّث البطاقة وادفع",
    updateCard: "تحديث البطاقة",
    changePlan: "تغيير الخطة",
    keepPlan: (name) => `الإبقاء على ${name}`,
    keepSubscription: "الإبقاء على الاشتراك",
    cancelAtPeriodEnd: "الإلغاء في نهاية الفترة",
    changesTo: (name, date) => `تتغير إلى ${name} في ${date}.`,
    credit: (amount) => `رصيد دائن: ${amount}، يُستخدم في دفعاتك القادمة.`,
    confirmCancelTitle: "الإلغاء في نهاية الفترة؟",
    confirmCancel: (name, date) =>
      `سينتهي ${name} في ${date}، في نهاية الفترة التي دفعت مقابلها، ولن يُحصَّل منك أي مبلغ آخر. لن يتغيّر شيء حتى ذلك الحين، ويمكنك الإبقاء عليه في أي وقت قبل هذا التاريخ.`,
    confirmCancelButton: "نعم، ألغِ في نهاية الفترة",
    keepIt: "لا، أبقِ على اشتراكي",
    cardTitle: (merchant) => `تحديث بطاقتك: ${merchant}`,
    cardHeading: (name) => `تحديث بطاقة الدفع لاشتراك ${name}`,
    cardNow: (card) => `البطاقة الحالية: ${card}.`,
    overdueCharged: (amount) => ` ستُحصَّل الدفعة المتأخرة بمبلغ ${amount} من البطاقة الجديدة فورًا.`,
    fromNextPayment: " ستُستخدم البطاقة الجديدة بدءًا من الدفعة التالية.",
    saveCardAndPay: (amount) => `احفظ البطاقة وادفع ${amount}`,
    saveCard: "حفظ البطاقة",
    neverStored: "لا يُحفظ رقم بطاقتك أبدًا.",
    back: "العودة إلى حسابك",
    openTitle: "فتح حسابك",
    openText: "أدر اشتراكاتك وبطاقاتك وإيصالاتك. يعمل هذا الرابط مرة واحدة فقط: يفتحه الزر أدناه على هذا الجهاز.",
    openButton: "افتح حسابي",
    unavailableTitle: "غير متاح مؤقتًا",
    unavailable: "يرجى المحاولة بعد قليل.",
    endedTitle: "انتهت جلستك",
    ended: "حفاظًا على أمانك، تستمر جلسة البوابة ساعة واحدة. عُد إلى موقع التاجر أو إلى بريدك الإلكتروني وافتح رابطًا جديدًا.",
    notFoundTitle: "غير موجود",
    notFound: "لا يوجد شيء هنا.",
    notSentTitle: "لم يُرسَل",
    notSent: "لم يُرسَل هذا النموذج من هذه الصفحة، لذلك لم يتغيّر شيء. أعد تحميل الصفحة وحاول مرة أخرى.",
    linkUnknownTitle: "الرابط غير صالح",
    linkUnknown: "هذا الرابط ليس رابط حساب صالحًا. اطلب من التاجر رابطًا جديدًا.",
    linkUsedTitle: "الرابط مستخدم من قبل",
    linkUsed: "سبق استخدام هذا الرابط، وهو يعمل مرة واحدة فقط. اطلب من التاجر رابطًا جديدًا لإدارة حسابك.",
    linkExpiredTitle: "انتهت صلاحية الرابط",
    linkExpired: "انتهت صلاحية هذا الرابط: تعمل الروابط لمدة ساعة بعد إرسالها. اطلب من التاجر رابطًا جديدًا.",
    askSupport: (email): Raw => html`للحصول على رابط جديد، راسل ${email}.`,
    notOpenedTitle: "لم يُفتح الرابط",
    notOpened: "لم يُفتح هذا الرابط من صفحته. افتح الرابط من بريدك الإلكتروني مرة أخرى.",
    signedOutTitle: "تم تسجيل الخروج",
    nothingChangedTitle: "لم يتغيّر شيء",
    chooseEnd: "اختر ما إذا كان الاشتراك سينتهي في نهاية الفترة.",
    cancelledTitle: "الاشتراك ملغى",
    cancelledCard: "هذا الاشتراك ملغى، ولا يمكن تغيير بطاقته.",
    cardOutOfDate: "هذا النموذج قديم، لذلك لم يتغيّر شيء. يرجى إدخال بطاقتك مرة أخرى.",
    savedButDeclined: (decline) => `حُفظت بطاقتك الجديدة، لكن الدفعة المتأخرة رُفضت: ${decline}`,
    processorDown: "تعذّر الوصول إلى معالج البطاقات، لذلك لم يتغيّر شيء. يرجى المحاولة بعد قليل.",
    notices: {
      cancel_scheduled: "سينتهي اشتراكك في نهاية الفترة الحالية، ولن يُحصَّل منك أي مبلغ آخر.",
      cancel_undone: "سيستمر اشتراكك، ولم يتغيّر أي شيء آخر.",
      card_saved: "حُفظت بطاقتك الجديدة، وستُستخدم في دفعتك التالية.",
      card_paid: "حُفظت بطاقتك الجديدة وتمت الدفعة المتأخرة. اشتراكك نشط من جديد.",
      card_processing: "حُفظت بطاقتك الجديدة. الدفعة المتأخرة قيد المعالجة، وستظهر في هذه الصفحة عند اكتمالها.",
      plan_changed: "تم تغيير خطتك. تظهر دفعتك أدناه إن وُجدت.",
      plan_scheduled: "ستتغير خطتك عند دفعتك التالية، ولن يتغيّر شيء حتى ذلك الحين.",
      plan_kept: "ستبقى على خطتك الحالية: أُلغي التغيير المجدول.",
      plan_processing: "دفعتك قيد المعالجة، وستتغير خطتك عند اكتمالها.",
      signed_out: "تم تسجيل خروجك."
    },
    print: "اطبع هذه الصفحة للاحتفاظ بنسخة منها أو لحفظها ملفًا.",
    receiptTitle: (id, merchant) => `الإيصال ${id}: ${merchant}`,
    paymentLabel: "رقم الدفعة",
    billedTo: "صادر باسم",
    cardLabel: "البطاقة",
    lines: "البنود",
    item: "البند",
    qty: "الكمية",
    unitPrice: "سعر الوحدة",
    refundedOn: (date) => `مسترد في ${date}`,
    refundInProgress: (date) => `استرداد قيد المعالجة (${date})`,
    netAfterRefunds: "الصافي بعد المبالغ المستردة",
    planTitle: (merchant) => `تغيير خطتك: ${merchant}`,
    changeYourPlan: "تغيير خطتك",
    planNow: (plan): Raw => html`الخطة الحالية: ${plan}.`,
    refusalScheduled: (name, date) => `ستتغير خطتك بالفعل إلى ${name} في ${date}. لاختيار خطة أخرى، أبقِ على خطتك الحالية أولًا.`,
    refusalPending: "تغيير خطتك بانتظار دفعته. يرجى المحاولة بعد قليل.",
    refusalOnHold: "دفعتك الأخيرة متأخرة: حدّث بطاقتك لدفعها، ثم يمكنك تغيير خطتك.",
    refusalEnded: "انتهى هذا الاشتراك، لذلك لا يمكن تغيير خطته.",
    noPlans: "لا تتوفر خطط أخرى هنا. يرجى التواصل معنا لتغيير خطتك.",
    plans: "الخطط",
    yourPlanNow: "(خطتك الحالية)",
    quantity: "الكمية",
    review: "مراجعة التغيير",
    seeFirst: "سترى ما ستدفعه قبل أن يتغيّر أي شيء.",
    choosePlan: "اختر خطة.",
    quantityRange: "أدخل عددًا صحيحًا من 1 إلى 1000.",
    reviewTitle: (merchant) => `مراجعة خطتك الجديدة: ${merchant}`,
    reviewHeading: "مراجعة خطتك الجديدة",
    yourPlan: "خطتك الحالية",
    newPlan: "خطتك الجديدة",
    when: "موعد التغيير",
    atNextPayment: (date) => `في ${date}، عند دفعتك التالية`,
    today: "اليوم",
    chargedToday: "المبلغ المحصَّل اليوم",
    nothingCharged: (amount) => `لا شيء: ${amount}`,
    firstPeriod: (interval) =>
      `، ${interval === null ? "فترتها الأولى" : { day: "يومها الأول", week: "أسبوعها الأول", month: "شهرها الأول", year: "سنتها الأولى" }[interval]}`,
    offBeforeVat: " (من السعر قبل الضريبة)",
    creditFor: (p) =>
      `رصيد${p.of === null ? "" : ` مقابل ${p.of === "price" ? "سعر" : "الجزء غير المستخدم من"} ${p.name}`}${p.balance ? " ورصيدك الدائن" : ""}`,
    totalToday: "الإجمالي اليوم",
    includingVat: (amount) => `(شاملًا ضريبة القيمة المضافة ${amount})`,
    fromThen: "بعد ذلك",
    fromThenValue: (amount, every, date) => `${amount} ${every}، بدءًا من ${date}`,
    nextPaymentLabel: "الدفعة التالية",
    nextPaymentThen: (amount, date, every) => `${amount} في ${date}، ثم ${every}`,
    nextPaymentLessCredit: (p) => `${p.amount} في ${p.date} (بعد خصم رصيدك)، ثم ${p.recurring} ${p.every}`,
    creditLeft: "الرصيد المتبقي",
    creditLeftValue: (amount) => `${amount}، يُستخدم في دفعاتك القادمة`,
    confirmPay: (amount) => `تأكيد ودفع ${amount}`,
    confirmChange: "تأكيد التغيير",
    declinedNoChange: "إذا رُفضت بطاقتك، فلن تتغير خطتك.",
    chooseAnother: "اختيار خطة أخرى",
    // The engine's reason is in English: the Arabic page says the change cannot be made, without it.
    cannotChange: () => "لا يمكن إجراء هذا التغيير على خطتك. اختر خطة أخرى أو تواصل معنا.",
    planDeclined: (decline) => `${decline} لم تتغير خطتك.`,
    planUnavailable: "تعذّر إجراء التغيير الآن، لذلك لم يتغيّر شيء. يرجى المحاولة بعد قليل.",
    planStale: "تغيّر شيء منذ عرض هذه الصفحة، لذلك لم يُحصَّل أي مبلغ. يرجى مراجعة الأرقام أدناه والتأكيد مرة أخرى.",
    planOutOfDate: "كانت هذه الصفحة قديمة، لذلك لم يتغيّر شيء. يرجى مراجعة الأرقام أدناه والتأكيد مرة أخرى."
  },

  fieldErrors: {
    name: "أدخل الاسم كما يظهر على البطاقة.",
    emailSpaces: "احذف المسافات قبل عنوان البريد الإلكتروني أو بعده.",
    email: "أدخل عنوان بريد إلكتروني صحيحًا.",
    phone: "أدخل رقم الهاتف مع رمز الدولة، مثل \u2066+971501234567\u2069.",
    trn: "أدخل رقم التسجيل الضريبي للشركة: 15 رقمًا.",
    businessName: "أدخل اسم الشركة، بحد أقصى 200 حرف.",
    trnName: "أدخل اسم الشركة التي يعود إليها رقم التسجيل الضريبي.",
    cardNumber: "أدخل رقم بطاقة صحيحًا.",
    expMonth: "أدخل شهر الانتهاء، من 01 إلى 12.",
    expYear: "أدخل سنة الانتهاء، مثل 2030.",
    exp: "أدخل تاريخ الانتهاء بصيغة الشهر / السنة، مثل \u206608 / 29\u2069.",
    expTwice: "أدخل تاريخ الانتهاء مرة واحدة: بصيغة الشهر / السنة، أو شهرًا وسنة.",
    expired: "انتهت صلاحية هذه البطاقة.",
    cvc: "أدخل رمز الأمان المكوّن من 3 أو 4 أرقام."
  },

  declines: {
    card_declined: "رُفضت بطاقتك. جرّب بطاقة أخرى.",
    insufficient_funds: "الرصيد في بطاقتك غير كافٍ. جرّب بطاقة أخرى.",
    expired_card: "انتهت صلاحية بطاقتك. جرّب بطاقة أخرى.",
    processing_error: "تعذّرت معالجة بطاقتك. يرجى المحاولة مرة أخرى."
  },

  discountRefusals: {
    unknown: "هذا الرمز غير صالح. تحقّق منه وحاول مرة أخرى.",
    expired: "انتهت صلاحية هذا الرمز.",
    used_up: "استُنفد هذا الرمز.",
    not_applicable: "لا ينطبق هذا الرمز على أي منتج في طلبك."
  },

  formNotUtf8: "لم يُرسَل النموذج بترميز نصي صالح، لذلك لم يتغيّر شيء. أعد تحميل الصفحة وأرسله مرة أخرى من متصفحك.",
  formRepeated: (field) => `أرسل النموذج الحقل ⁨${field}⁩ أكثر من مرة، لذلك لم يتغيّر شيء. أرسل كل حقل مرة واحدة.`,

  refusals: {
    notChangeable: (p) =>
      p.status === "cancelled"
        ? "هذا الاشتراك ملغى، لذلك لا يمكن إجراء هذا التغيير."
        : "لا يمكن إجراء هذا التغيير على الاشتراك في حالته الحالية.",
    renewalInProgress: () => "ما زالت دفعة لهذا الاشتراك قيد المعالجة، لذلك لم يتغيّر شيء. حاول مرة أخرى بعد بضع ثوانٍ.",
    rateLimited: (p) => `محاولات كثيرة جدًا. حاول مرة أخرى بعد ${p.seconds} ثانية.`,
    notNow: () => "لا يمكن إجراء ذلك الآن، لذلك لم يتغيّر شيء. أعد تحميل الصفحة وحاول مرة أخرى.",
    invalid: () => "لم يتغيّر شيء: تعذّر قبول هذا الطلب. أعد تحميل الصفحة وحاول مرة أخرى."
  }
}

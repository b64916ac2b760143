/**
 * The dashboard's catalogues by language. Which one a page speaks: the dashboard's own `?lang=` switch (remembered in
 * its own cookie, so that trying the checkout in Arabic does not turn the dashboard), else that cookie, else the
 * browser's `Accept-Language`, else English (docs/languages.md).
 */
import type { Locale } from "../Locale.js"
import { ar } from "./ar/index.js"
import { type DashboardCatalogue, en } from "./en/index.js"

export type { DashboardCatalogue }

export const dashboardCatalogues: Readonly<Record<Locale, DashboardCatalogue>> = { en, ar }

/** The cookie that remembers the dashboard's language. */
export const dashboardLanguageCookie = "fils_dashboard_lang"

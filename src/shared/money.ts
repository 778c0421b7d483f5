/**
 * Money, one way everywhere: "$1,234.50". The service does not say its currency, so it is USD. The
 * screens pass the rep's locale; the core's messages (draft checks, quote changes) and the CLI keep
 * the default, en-US, so a message reads the same on every laptop. No amount ('—') for null, undefined
 * or anything not finite, so a screen never shows "NaN". Each format is made on first use: building
 * one loads ICU's currency data, which a CLI command that prints no price should not wait for.
 */
const formats = new Map<string, Intl.NumberFormat>()

export function formatMoney(amount: number | null | undefined, locale = 'en-US', currency = 'USD'): string {
  if (amount === null || amount === undefined || !Number.isFinite(amount)) return '—'
  const key = `${locale}\u0000${currency}`
  let format = formats.get(key)
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency })
    formats.set(key, format)
  }
  return format.format(amount)
}

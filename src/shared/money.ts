/**
 * Money in the core's messages (draft checks, quote changes, the CLI): "$1,234.50". The service does
 * not say its currency, so it is USD, as the screens assume; en-US so a message reads the same on
 * every laptop, whatever its locale, and matches what the screens show beside it.
 * Made on first use: building the format loads ICU's currency data, 30 ms of a CLI command's start
 * that never prints a price.
 */
let usd: Intl.NumberFormat | null = null

export function formatMoney(amount: number): string {
  usd ??= new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })
  return usd.format(amount)
}

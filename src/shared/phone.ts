/**
 * A customer search that reads as a phone number: no letters, and at least 4 digits (fewer would
 * match half the customers). Its digits, whatever the punctuation ("(503) 555-0142", "+1 503.555.0142"),
 * are matched against the digits of each customer's phone; null when the text is not a phone.
 */
export function phoneSearchDigits(text: string): string | null {
  if (/\p{L}/u.test(text)) return null
  const digits = text.replace(/\D/g, '')
  return digits.length >= 4 ? digits : null
}

import type { MadeHere } from '../../shared/synced'

/**
 * Where a customer made on this laptop is, in the rep's words, as its row in the Customers list and
 * its page say it: one tag, and the tone of it.
 */
export function madeHereTag(made: MadeHere): { words: string; tone: string } {
  if (made.state === 'refused') return { words: 'Refused by the supplier', tone: 'tag-bad' }
  if (made.state === 'needsAttention') return { words: 'Needs attention', tone: 'tag-bad' }
  if (made.state === 'sent') return { words: 'Sent to the supplier', tone: 'tag-ok' }
  return { words: 'Waiting to send', tone: 'tag-info' }
}

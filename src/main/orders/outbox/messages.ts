import type { OutboxState } from '../../../shared/orders'

/** The rep's words for why an entry cannot be edited or discarded. */
export const mayAlreadyHave =
  'The supplier may already have this order (an earlier attempt’s answer was lost); checking with the supplier. It can be edited or discarded once the supplier shows it does not have it.'

export function describeState(state: OutboxState): string {
  switch (state) {
    case 'queued':
      return 'waiting to be sent'
    case 'sending':
      return 'being sent right now'
    case 'retrying':
      return 'waiting to retry'
    case 'needsAttention':
      return 'rejected by the supplier'
    case 'sent':
      return 'already sent'
    case 'conflict':
      return 'waiting for you to choose between your change and the supplier’s'
    case 'refused':
      return 'refused by the supplier'
  }
}

export function mayHaveReached(state: OutboxState): string {
  return `This order is ${describeState(state)} and may already be with the supplier, so it cannot be edited or discarded.`
}

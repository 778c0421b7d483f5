import { defineStore } from 'pinia'
import { computed } from 'vue'
import type { OutboxEntry } from '../../../shared/orders'
import type { Fulfilment, OrderChanges } from '../../../shared/writes'
import { api, unwrap } from '../api'
import { useConnectionStore } from './connection'
import { useOutboxStore } from './outbox'

/** A write after Send waiting for an order, as the order page and the Orders list say it. */
export interface PendingChange {
  apiGuid: string
  words: string
  tone: 'info' | 'warn' | 'bad'
}

const waiting = new Set(['queued', 'sending', 'retrying'])

/** One entry's words: each thing it asks "— waiting to send", or that it needs the rep, or was refused. */
function wordsOf(entry: OutboxEntry): PendingChange[] {
  if (entry.state === 'conflict') return [{ apiGuid: entry.apiGuid, words: 'Change needs your choice', tone: 'warn' }]
  if (entry.state === 'refused') return [{ apiGuid: entry.apiGuid, words: 'Change refused', tone: 'bad' }]
  if (!waiting.has(entry.state)) return []
  const asks = entry.asks?.length ? entry.asks : [entry.kind === 'submit' ? 'Submit' : 'Change']
  return asks.map((ask) => ({ apiGuid: entry.apiGuid, words: `${ask} — waiting to send`, tone: 'info' }))
}

/**
 * The rep's writes to a sent order (submit an order in review, change one) and what of them is still
 * in the outbox for each order. Only a user session may make them: with an API key alone the screens
 * say to sign in as a user instead of offering them.
 */
export const useSentWritesStore = defineStore('sentWrites', () => {
  const connection = useConnectionStore()
  const outbox = useOutboxStore()

  const signedInAsUser = computed(() => connection.connection?.auth.kind === 'session')

  /** The outbox's writes waiting for or stuck on each order, by the order's guid and by its number. */
  const pendingByOrder = computed(() => {
    const found = new Map<string, PendingChange[]>()
    for (const entry of outbox.entries) {
      if (entry.kind !== 'submit' && entry.kind !== 'orderChange') continue
      const words = wordsOf(entry)
      if (words.length === 0) continue
      for (const key of [entry.orderGuid, entry.orderName]) {
        if (key) found.set(key, [...(found.get(key) ?? []), ...words])
      }
    }
    return found
  })

  function pendingFor(guid: string, name: string | null): PendingChange[] {
    return pendingByOrder.value.get(guid) ?? (name ? pendingByOrder.value.get(name) : undefined) ?? []
  }

  /**
   * Writes the supplier has taken since the order was last fetched (`since`): the page's figures
   * still show the order before them, so it says they went and show after the next sync.
   */
  function sentSince(guid: string, name: string | null, since: string | null): PendingChange[] {
    return outbox.entries
      .filter(
        (entry) =>
          (entry.kind === 'submit' || entry.kind === 'orderChange') &&
          entry.state === 'sent' &&
          entry.sentAt !== null &&
          (since === null || entry.sentAt > since) &&
          (entry.orderGuid === guid || (name !== null && entry.orderName === name)),
      )
      .flatMap((entry) =>
        (entry.asks ?? ['Change']).map((ask) => ({
          apiGuid: entry.apiGuid,
          words: `${ask} — sent; shows here after the next sync`,
          tone: 'info' as const,
        })),
      )
  }

  /** What the service said of this order's writes once done (a submit's lines filled from stock), newest first. */
  function outcomesFor(guid: string, name: string | null): OutboxEntry[] {
    return outbox.entries
      .filter(
        (entry) =>
          (entry.kind === 'submit' || entry.kind === 'orderChange') &&
          entry.state === 'sent' &&
          entry.outcome &&
          (entry.orderGuid === guid || (name !== null && entry.orderName === name)),
      )
      .sort((a, b) => (b.sentAt ?? '').localeCompare(a.sentAt ?? ''))
  }

  async function submit(order: string, fulfilment: Fulfilment): Promise<OutboxEntry> {
    const entry = await unwrap(api.submitSentOrder({ order, fulfilment }))
    await outbox.loadEntries()
    return entry
  }

  async function change(order: string, changes: OrderChanges): Promise<OutboxEntry> {
    const entry = await unwrap(api.changeSentOrder({ order, changes }))
    await outbox.loadEntries()
    return entry
  }

  /**
   * The header fields a change may touch, as last known (synced, or answered to a change sent since)
   * with the changes still waiting applied (the core's rule): what the Change dialog starts from, so a
   * hold waiting is shown ticked.
   */
  async function headerAsAsked(order: string): Promise<Record<string, unknown>> {
    return (await unwrap(api.getSentOrderHeader({ order }))).record
  }

  return { signedInAsUser, pendingFor, sentSince, outcomesFor, submit, change, headerAsAsked }
})

import { defineStore } from 'pinia'
import type { MethodInput } from '../../../shared/contract'
import type { OutboxEntry } from '../../../shared/orders'
import { api, unwrap } from '../api'
import { useOutboxStore } from './outbox'

/**
 * Customers the rep makes or changes on this laptop. A customer made here is an outbox entry until
 * the service has it: the core lists it among the customers from there at once ("Made on this
 * laptop", "Waiting to send"), with a page of its own, and an order for it is drafted by its key, so
 * nothing waits for the network.
 */
export const useCustomerWritesStore = defineStore('customerWrites', () => {
  const outbox = useOutboxStore()

  /** Changes to this customer still in the outbox (queued, in conflict or refused). */
  function pendingFor(guid: string): OutboxEntry[] {
    return outbox.entries.filter(
      (entry) => entry.kind === 'customerChange' && entry.customerGuid === guid && entry.state !== 'sent',
    )
  }

  async function add(input: MethodInput<'addCustomer'>): Promise<OutboxEntry> {
    const entry = await unwrap(api.addCustomer(input))
    await outbox.loadEntries()
    return entry
  }

  async function change(guid: string, changes: MethodInput<'changeCustomer'>['changes']): Promise<OutboxEntry> {
    const entry = await unwrap(api.changeCustomer({ guid, changes }))
    await outbox.loadEntries()
    return entry
  }

  return { pendingFor, add, change }
})

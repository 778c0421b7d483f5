/**
 * Finds the order a write after Send is for, by its number or guid (or, for an order sent from this
 * laptop and not yet synced, its api_guid): the header as last known, which a change is made against,
 * and the outbox entry it must wait for while the order itself has not been sent.
 */
import { CoreError } from '../errors'
import type { LocalData } from '../local/data'
import type { Outbox } from '../orders/outbox/outbox'
import { withLastAnswer, type OrderTarget } from './order-writes'
import { numberOrNull, objectOf } from './status'

export function orderTargets(local: LocalData, outbox: Outbox): (given: string) => OrderTarget | null {
  const history = local.orderHistory
  const details = local.orderDetails
  return (given) => {
    const wanted = given.trim()
    const row = history.byGuid(wanted) ?? history.byName(wanted)
    if (row) {
      // The full copy when there is one: it is the supplier's latest header this laptop saw.
      // Or the supplier's answer to a change sent since that copy.
      const copy = objectOf(JSON.parse(details.detail(row.guid)?.json ?? row.json))
      const header = withLastAnswer(copy, outbox.writes.lastChangeResult(row.guid))
      return {
        orderGuid: row.guid,
        orderName: row.name,
        customerGuid: row.customer_guid,
        customerName: row.customer_name ?? 'the customer',
        stateId: numberOrNull(header.order_state_id) ?? row.order_state_id,
        header,
        dependsOn: null,
      }
    }
    const lower = wanted.toLowerCase()
    const entry = outbox
      .list()
      .find(
        (each) =>
          (each.kind ?? 'order') === 'order' &&
          (each.apiGuid.toLowerCase() === lower ||
            each.orderGuid === wanted ||
            each.orderName?.toLowerCase() === lower),
      )
    if (!entry) return null
    const draft = outbox.read.printable(entry.apiGuid)?.draft
    const asSent = { po_no: draft?.poNo ?? null, note: draft?.note ?? null }
    const header = entry.orderGuid ? withLastAnswer(asSent, outbox.writes.lastChangeResult(entry.orderGuid)) : asSent
    const base = { customerGuid: entry.customerGuid, customerName: entry.customerName, header }
    if (entry.state === 'sent')
      return {
        ...base,
        orderGuid: entry.orderGuid,
        orderName: entry.orderName,
        stateId: entry.orderStateId,
        dependsOn: null,
      }
    if (entry.state === 'needsAttention')
      throw new CoreError('CONFLICT', 'The supplier has not accepted this order; fix it in the outbox first.')
    // Still to be sent: the write waits for it, and goes once the supplier holds the order.
    return {
      ...base,
      orderGuid: null,
      orderName: null,
      stateId: draft?.remainInPreliminary ? 1 : null,
      dependsOn: outbox.writes.entry(entry.apiGuid)?.id ?? null,
    }
  }
}

/**
 * Orders after Send as the rep follows them: each full copy kept (or refused, with why), its status
 * and timeline, what changed since the rep last opened it, and a customer's open orders. Read offline
 * by the order screen, the customer page and `satchel orders`; written by the detail fetch of a sync.
 */
import type { OrderChange, OrderTracking } from '../../shared/order-tracking'
import type { LocalData } from '../local/data'
import type { OrderDetailRows, ChangeRow, DetailCandidate } from '../local/order-details'
import { compareWithSent, type SentLine } from './as-sent'
import { impossibleFigures } from './figures'
import {
  arrayOf,
  isOpen,
  linesOf,
  numberOrNull,
  objectOf,
  stateOf,
  statusKey,
  statusSummary,
  textOrNull,
  type Json,
} from './status'

export class TrackedOrders {
  private readonly rows: OrderDetailRows

  constructor(local: LocalData) {
    this.rows = local.orderDetails
  }

  /**
   * The orders to fetch in full, at most `limit`: synced orders placed in the last `windowDays`
   * days and the orders sent from this laptop (by api_guid), whose copy is missing or whose history
   * row's updated_at moved past the copy's.
   */
  candidates(options: { now: number; windowDays: number; sentApiGuids: readonly string[]; limit: number }): {
    next: DetailCandidate[]
    waiting: number
  } {
    return this.rows.candidates(options)
  }

  /**
   * Keeps the full order and its related orders; a new status is a sighting on the order's timeline.
   * A copy with impossible figures is refused (the last good copy stays, marked): answers why, or null.
   */
  record(order: Json, related: Json[], fetchedAt: string): string | null {
    const guid = textOrNull(order.guid)
    if (!guid) return null
    const impossible = impossibleFigures(order)
    if (impossible.length > 0) {
      const reason = `impossible figures: ${impossible.slice(0, 5).join('; ')}${impossible.length > 5 ? ` and ${impossible.length - 5} more` : ''}`
      this.rows.refuse(guid, textOrNull(order.updated_at), fetchedAt, reason)
      return reason
    }
    // The copy's updated_at is the order's as the service answered it, so the next delta's row matches.
    this.rows.store({
      guid,
      updatedAt: textOrNull(order.updated_at),
      fetchedAt,
      json: JSON.stringify(order),
      related: JSON.stringify(related),
      key: statusKey(order),
      state: stateOf(order),
      summary: statusSummary(order),
    })
    return null
  }

  /** See OrderDetailRows.refuse. */
  refuse(guid: string, updatedAt: string | null, at: string, reason: string): void {
    this.rows.refuse(guid, updatedAt, at, reason)
  }

  /** The order's version last refused, or undefined when its latest copy was kept. */
  refusedVersion(guid: string): string | null | undefined {
    return this.rows.refusal(guid)?.order_updated_at
  }

  /**
   * The order as last fetched, for the order screen and `satchel orders show`; null before its first
   * fetch. `sentLinesOf` answers the lines this laptop sent under an api_guid (null: not sent from here).
   */
  tracking(
    guid: string,
    sentLinesOf: (apiGuid: string) => readonly SentLine[] | null = () => null,
  ): OrderTracking | null {
    const row = this.rows.detail(guid)
    if (!row) return null
    const refused = this.rows.refusal(guid)
    const order = objectOf(JSON.parse(row.json))
    const related = arrayOf(JSON.parse(row.related_json))
    const serviceSteps = arrayOf(order.Order_State_Logs).map((log) => ({
      at: textOrNull(log.created_at) ?? '',
      source: 'service' as const,
      state: textOrNull(objectOf(log.Order_State).name) ?? 'Unknown',
      who: textOrNull(objectOf(log.User).name),
      summary: null,
    }))
    const seen = this.rows.sightings(guid).map((sighting) => ({
      at: sighting.seen_at,
      source: 'seen' as const,
      state: sighting.state_name ?? 'Unknown',
      who: null,
      summary: sighting.summary,
    }))
    const parentId = numberOrNull(order.parent_order_id)
    const apiGuid = textOrNull(order.api_guid)
    const asSent = compareWithSent(arrayOf(order.Order_Items), apiGuid ? sentLinesOf(apiGuid) : null)
    const totals = {
      subTotal: numberOrNull(order.sub_total),
      tax: numberOrNull(order.tax),
      shipping: numberOrNull(order.shipping),
      discount: numberOrNull(order.discount_total) ?? numberOrNull(order.discount),
      grandTotal: numberOrNull(order.grand_total),
    }
    return {
      guid,
      name: textOrNull(order.name),
      fetchedAt: row.fetched_at,
      state: stateOf(order),
      onHold: order.is_on_hold === true,
      cancelled: order.is_cancelled === true,
      shipped: order.is_shipped === true,
      partiallyShipped: order.partially_shipped === true,
      shipDate: textOrNull(order.ship_date),
      deliveryDate: textOrNull(order.delivery_date),
      totals,
      lines: linesOf(order).map((line, index) => ({ ...line, notAsSent: asSent.notAsSent[index] ?? null })),
      sentMissing: asSent.sentMissing,
      timeline: [...serviceSteps, ...seen].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)),
      related: relatedOthers(order, guid, related).map((other) => ({
        guid: other.guid,
        name: textOrNull(other.name),
        relation:
          parentId !== null && numberOrNull(other.id) === parentId ? ('parent' as const) : ('backorder' as const),
        state: stateOf(other).name,
        held: this.rows.inHistory(other.guid),
      })),
      summary: statusSummary(order),
      changed: row.status_key !== row.opened_status_key,
      openedAt: row.opened_at,
      latestUnreadable: refused ? { at: refused.refused_at, reason: refused.reason } : null,
    }
  }

  /** The rep opened the order: what it shows now is what they have seen. Returns how many stay marked. */
  opened(guid: string, at: string): number {
    this.rows.opened(guid, at)
    return this.rows.changedCount()
  }

  changedCount(): number {
    return this.rows.changedCount()
  }

  changed(customerGuid: string | null = null): OrderChange[] {
    return this.rows.changedRows(customerGuid).map(toChange)
  }

  /** A customer's orders neither shipped nor cancelled, from their full copies. */
  openOrders(customerGuid: string): OrderChange[] {
    return this.rows
      .customerRows(customerGuid)
      .filter((row) => isOpen(objectOf(JSON.parse(row.json))))
      .map(toChange)
  }
}

/**
 * The service's related orders without the order itself (an order that names itself its parent comes
 * back as its own parent and its own backorder) and each once, as the copies stored before say too.
 */
function relatedOthers(order: Json, guid: string, related: Json[]): (Json & { guid: string })[] {
  const ownId = numberOrNull(order.id)
  const seen = new Set([guid])
  return related.filter((other): other is Json & { guid: string } => {
    if (typeof other.guid !== 'string' || seen.has(other.guid) || (ownId !== null && numberOrNull(other.id) === ownId))
      return false
    seen.add(other.guid)
    return true
  })
}

function toChange(row: ChangeRow): OrderChange {
  const order = objectOf(JSON.parse(row.json))
  return {
    guid: row.guid,
    name: row.name,
    customerGuid: row.customer_guid,
    customerName: row.customer_name,
    state: stateOf(order),
    summary: statusSummary(order),
    createdAt: row.created_at,
    changed: row.status_key !== row.opened_status_key,
  }
}

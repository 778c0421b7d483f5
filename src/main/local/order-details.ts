/**
 * Full orders after Send: the one home of order_details (the full order as GET /v1/orders/{guid}
 * answered, with its related orders) and order_detail_sightings (when this laptop saw an order's
 * status change). What is fetched next, what changed since the rep last opened an order, and what the
 * order screen, the CLI and the customer page read are all answered here.
 */
import type { Database, Statement } from 'better-sqlite3'
import type { OrderChange, OrderTracking, TrackedLine } from '../../shared/order-tracking'
import { customerOfOrder } from './customers'
import { compareWithSent, type SentLine } from './order-as-sent'
import { impossibleFigures } from './order-figures'
import { historyOrderOfDetail, historyOrders, OrderHistory } from './order-history'

/** An order whose full copy is missing or older than its history row. */
export interface DetailCandidate {
  guid: string
  updatedAt: string | null
  customerGuid: string | null
}

interface DetailRow {
  order_guid: string
  order_updated_at: string | null
  fetched_at: string
  json: string
  related_json: string
  status_key: string
  opened_status_key: string
  opened_at: string | null
}

interface ChangeRow {
  guid: string
  name: string | null
  customer_guid: string | null
  customer_name: string | null
  created_at: string | null
  json: string
  status_key: string
  opened_status_key: string
}

interface SightingRow {
  seen_at: string
  state_name: string | null
  summary: string
}

type Json = Record<string, unknown>

const knownStates: Record<number, string> = {
  1: 'PRELIMINARY',
  2: 'SUBMITTED',
  8: 'SHIPPED',
  9: 'COMPLETED',
  23: 'CANCELLED',
}

const DAY_MS = 86_400_000

function objectOf(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {}
}

function arrayOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(objectOf) : []
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

function stateOf(order: Json): { id: number | null; name: string } {
  const id = numberOrNull(order.order_state_id)
  const name = textOrNull(objectOf(order.Order_State).name)
  return { id, name: name ?? (id !== null ? (knownStates[id] ?? `State ${id}`) : 'Unknown') }
}

function linesOf(order: Json): Omit<TrackedLine, 'notAsSent'>[] {
  return arrayOf(order.Order_Items).map((line) => {
    const item = objectOf(line.Catalog_Item)
    return {
      itemNo: numberOrNull(line.item_no),
      sku: textOrNull(line.sku) ?? textOrNull(item.sku),
      name: textOrNull(line.name) ?? textOrNull(item.name),
      unitPrice: numberOrNull(line.net_price),
      qtyOrdered: numberOrNull(line.qty),
      qtyShipped: numberOrNull(line.qty_shipped) ?? 0,
      qtyBackordered: numberOrNull(line.qty_backordered) ?? 0,
      qtyPending: numberOrNull(line.qty_pending) ?? 0,
      lineTotal: numberOrNull(line.total),
    }
  })
}

/** What the rep is told about: the state, each line's shipped and backordered quantities, hold and cancel. */
function statusKey(order: Json): string {
  return JSON.stringify({
    state: numberOrNull(order.order_state_id),
    hold: order.is_on_hold === true,
    cancelled: order.is_cancelled === true,
    lines: linesOf(order).map((line) => [line.itemNo, line.qtyShipped, line.qtyBackordered]),
  })
}

/** One line for the rep: "Cancelled", "On hold", "Shipped 2 of 3 lines, 1 backordered", or the state. */
function statusSummary(order: Json): string {
  if (order.is_cancelled === true || numberOrNull(order.order_state_id) === 23) return 'Cancelled'
  if (order.is_on_hold === true) return 'On hold'
  const lines = linesOf(order)
  const shipped = lines.filter((line) => line.qtyShipped > 0 && line.qtyShipped >= (line.qtyOrdered ?? 0)).length
  const backordered = lines.filter((line) => line.qtyBackordered > 0).length
  const anyShipped = lines.some((line) => line.qtyShipped > 0)
  if (anyShipped && shipped < lines.length) {
    return `Shipped ${shipped} of ${lines.length} ${lines.length === 1 ? 'line' : 'lines'}${backordered > 0 ? `, ${backordered} backordered` : ''}`
  }
  // A backorder split off at submission leaves the line's own quantity shipped in full.
  const backorderedLines = `${backordered} ${backordered === 1 ? 'line' : 'lines'} backordered`
  if (anyShipped) return backordered > 0 ? `Shipped, ${backorderedLines}` : 'Shipped'
  if (backordered > 0) return backorderedLines
  const name = stateOf(order).name
  return name.charAt(0) + name.slice(1).toLowerCase()
}

export class OrderDetails {
  private readonly selectCandidates: Statement<{ sinceMs: number; sent: string; limit: number }, DetailCandidate>
  private readonly countCandidates: Statement<{ sinceMs: number; sent: string }, number>
  private readonly selectDetail: Statement<[string], DetailRow>
  private readonly upsertDetail: Statement<{
    guid: string
    updatedAt: string | null
    fetchedAt: string
    json: string
    related: string
    key: string
  }>
  private readonly insertSighting: Statement<[string, string, number | null, string, string, string]>
  private readonly selectSightings: Statement<[string], SightingRow>
  private readonly markOpened: Statement<{ guid: string; at: string }>
  private readonly countChanged: Statement<[], number>
  private readonly selectChanged: Statement<{ customer: string | null }, ChangeRow>
  private readonly selectOfCustomer: Statement<[string], ChangeRow>
  private readonly history: OrderHistory
  private readonly refusals

  constructor(private readonly db: Database) {
    // The history's orders of the window and those sent from this laptop, whose full copy is missing
    // or older than the history row: newest first, so a capped run fetches what the rep most likely
    // asks about.
    const candidates = `FROM ${historyOrders} LEFT JOIN order_details d ON d.order_guid = o.guid
      WHERE o.deleted_at IS NULL
        AND (o.created_ms >= @sinceMs OR lower(o.api_guid) IN (SELECT value FROM json_each(@sent)))
        AND (d.order_guid IS NULL OR (o.updated_at IS NOT NULL AND (d.order_updated_at IS NULL OR o.updated_at > d.order_updated_at)))
        AND NOT EXISTS (SELECT 1 FROM order_detail_refusals r WHERE r.order_guid = o.guid AND r.order_updated_at IS o.updated_at)`
    this.selectCandidates = db.prepare(
      `SELECT o.guid AS guid, o.updated_at AS updatedAt, o.customer_guid AS customerGuid ${candidates} ORDER BY o.created_ms DESC, o.id DESC LIMIT @limit`,
    )
    this.countCandidates = db
      .prepare<{ sinceMs: number; sent: string }, number>(`SELECT count(*) ${candidates}`)
      .pluck()
    this.selectDetail = db.prepare('SELECT * FROM order_details WHERE order_guid = ?')
    // A first copy sets the baseline the rep is compared against: nothing is "changed" before it.
    this.upsertDetail =
      db.prepare(`INSERT INTO order_details (order_guid, order_updated_at, fetched_at, json, related_json, status_key, opened_status_key)
      VALUES (@guid, @updatedAt, @fetchedAt, @json, @related, @key, @key)
      ON CONFLICT (order_guid) DO UPDATE SET order_updated_at = excluded.order_updated_at, fetched_at = excluded.fetched_at,
        json = excluded.json, related_json = excluded.related_json, status_key = excluded.status_key`)
    this.insertSighting = db.prepare(
      'INSERT INTO order_detail_sightings (order_guid, seen_at, state_id, state_name, status_key, summary) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.selectSightings = db.prepare(
      'SELECT seen_at, state_name, summary FROM order_detail_sightings WHERE order_guid = ? ORDER BY seen_at, rowid',
    )
    this.markOpened = db.prepare(
      'UPDATE order_details SET opened_status_key = status_key, opened_at = @at WHERE order_guid = @guid',
    )
    this.countChanged = db
      .prepare<[], number>(
        `SELECT count(*) FROM order_details d JOIN ${historyOrderOfDetail} WHERE o.deleted_at IS NULL AND d.status_key <> d.opened_status_key`,
      )
      .pluck()
    const changeColumns = `o.guid AS guid, o.name AS name, o.customer_guid AS customer_guid,
      coalesce(c.name, json_extract(o.json, '$.Vendor.name')) AS customer_name, o.created_at AS created_at,
      d.json AS json, d.status_key AS status_key, d.opened_status_key AS opened_status_key`
    const changeJoin = `order_details d JOIN ${historyOrderOfDetail} LEFT JOIN ${customerOfOrder}`
    this.selectChanged = db.prepare(
      `SELECT ${changeColumns} FROM ${changeJoin} WHERE o.deleted_at IS NULL AND d.status_key <> d.opened_status_key
        AND (@customer IS NULL OR o.customer_guid = @customer) ORDER BY o.created_ms DESC, o.id DESC`,
    )
    this.selectOfCustomer = db.prepare(
      `SELECT ${changeColumns} FROM ${changeJoin} WHERE o.deleted_at IS NULL AND o.customer_guid = ? ORDER BY o.created_ms DESC, o.id DESC`,
    )
    this.history = new OrderHistory(db)
    this.refusals = {
      upsert: db.prepare<{ guid: string; updatedAt: string | null; at: string; reason: string }>(
        `INSERT INTO order_detail_refusals (order_guid, order_updated_at, refused_at, reason) VALUES (@guid, @updatedAt, @at, @reason)
         ON CONFLICT (order_guid) DO UPDATE SET order_updated_at = excluded.order_updated_at, refused_at = excluded.refused_at, reason = excluded.reason`,
      ),
      clear: db.prepare<[string]>('DELETE FROM order_detail_refusals WHERE order_guid = ?'),
      get: db.prepare<[string], { order_updated_at: string | null; refused_at: string; reason: string }>(
        'SELECT order_updated_at, refused_at, reason FROM order_detail_refusals WHERE order_guid = ?',
      ),
    }
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
    const params = {
      sinceMs: options.now - options.windowDays * DAY_MS,
      sent: JSON.stringify(options.sentApiGuids.map((key) => key.toLowerCase())),
    }
    return {
      next: this.selectCandidates.all({ ...params, limit: Math.max(0, options.limit) }),
      waiting: this.countCandidates.get(params) ?? 0,
    }
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
      this.refuse(guid, textOrNull(order.updated_at), fetchedAt, reason)
      return reason
    }
    const key = statusKey(order)
    const state = stateOf(order)
    this.db
      .transaction(() => {
        const before = this.selectDetail.get(guid)
        // The copy's updated_at is the order's as the service answered it, so the next delta's row matches.
        this.upsertDetail.run({
          guid,
          updatedAt: textOrNull(order.updated_at),
          fetchedAt,
          json: JSON.stringify(order),
          related: JSON.stringify(related),
          key,
        })
        if (before?.status_key !== key)
          this.insertSighting.run(guid, fetchedAt, state.id, state.name, key, statusSummary(order))
        this.refusals.clear.run(guid)
      })
      .immediate()
    return null
  }

  /**
   * The supplier's latest copy of the order could not be kept (`reason`): the last good copy stays and
   * is shown marked, and this version (`updatedAt`, the history row's) is not fetched again.
   */
  refuse(guid: string, updatedAt: string | null, at: string, reason: string): void {
    this.refusals.upsert.run({ guid, updatedAt, at, reason })
  }

  /** The order's version last refused, or undefined when its latest copy was kept. */
  refusedVersion(guid: string): string | null | undefined {
    return this.refusals.get.get(guid)?.order_updated_at
  }

  /**
   * The order as last fetched, for the order screen and `satchel orders show`; null before its first
   * fetch. `sentLinesOf` answers the lines this laptop sent under an api_guid (null: not sent from here).
   */
  tracking(
    guid: string,
    sentLinesOf: (apiGuid: string) => readonly SentLine[] | null = () => null,
  ): OrderTracking | null {
    const row = this.selectDetail.get(guid)
    if (!row) return null
    const refused = this.refusals.get.get(guid)
    const order = objectOf(JSON.parse(row.json))
    const related = arrayOf(JSON.parse(row.related_json))
    const serviceSteps = arrayOf(order.Order_State_Logs).map((log) => ({
      at: textOrNull(log.created_at) ?? '',
      source: 'service' as const,
      state: textOrNull(objectOf(log.Order_State).name) ?? 'Unknown',
      who: textOrNull(objectOf(log.User).name),
      summary: null,
    }))
    const seen = this.selectSightings.all(guid).map((sighting) => ({
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
        held: this.history.has(other.guid),
      })),
      summary: statusSummary(order),
      changed: row.status_key !== row.opened_status_key,
      openedAt: row.opened_at,
      latestUnreadable: refused ? { at: refused.refused_at, reason: refused.reason } : null,
    }
  }

  /** The rep opened the order: what it shows now is what they have seen. Returns how many stay marked. */
  opened(guid: string, at: string): number {
    this.markOpened.run({ guid, at })
    return this.changedCount()
  }

  changedCount(): number {
    return this.countChanged.get() ?? 0
  }

  changed(customerGuid: string | null = null): OrderChange[] {
    return this.selectChanged.all({ customer: customerGuid }).map(toChange)
  }

  /** A customer's orders neither shipped nor cancelled, from their full copies. */
  openOrders(customerGuid: string): OrderChange[] {
    return this.selectOfCustomer
      .all(customerGuid)
      .filter((row) => {
        const order = objectOf(JSON.parse(row.json))
        const state = numberOrNull(order.order_state_id)
        return order.is_cancelled !== true && order.is_shipped !== true && state !== 23 && state !== 8 && state !== 9
      })
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

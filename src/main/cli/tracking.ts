/**
 * `orders list` and `orders show`: where each order is after Send, read offline from the local
 * database as the app shows it (the synced history and the full orders sync fetched).
 */
import { closeDatabase } from '../db/database'
import { browseQueries, type BrowseQueries } from '../browse'
import { TrackedOrders } from '../tracking/tracked-orders'
import { OutboxReader } from '../orders/outbox/reader'
import type { OrderDetail } from '../../shared/synced'
import { formatMoney } from '../../shared/money'
import { openExisting } from './database'
import { UsageError, type GlobalOptions, type Output } from './errors'
import { table } from './format'
import { openLocalData } from '../local/data'

function withDetails<T>(
  global: GlobalOptions,
  use: (queries: BrowseQueries, details: TrackedOrders, outbox: OutboxReader) => T,
): T {
  const db = openExisting(global.db, 'read')
  try {
    const local = openLocalData(db)
    return use(browseQueries(local), new TrackedOrders(local), new OutboxReader(db))
  } finally {
    closeDatabase(db)
  }
}

/** A state given by name (any case) or id, as the customer's (or every) order history knows it. */
function stateId(queries: BrowseQueries, given: string, customer: string | undefined): number {
  const states = queries.orders.listOrders({ ...(customer ? { customerGuid: customer } : {}), limit: 1 }).states
  const found = /^\d+$/.test(given)
    ? states.find((state) => state.id === Number(given))
    : states.find((state) => state.name.toLowerCase() === given.toLowerCase())
  if (found?.id === null || found === undefined) {
    if (/^\d+$/.test(given)) return Number(given)
    throw new UsageError(
      `No order is in a state named '${given}' (known: ${states.map((state) => state.name).join(', ') || 'none'})`,
    )
  }
  return found.id
}

export function runOrdersList(
  global: GlobalOptions,
  options: { customer?: string; changed: boolean; state?: string; limit: number },
  output: Output,
): number {
  return withDetails(global, (queries, details) => {
    if (options.customer && !queries.customers.getCustomer(options.customer))
      throw new UsageError(`No customer ${options.customer} in the local database`)
    const wantedState = options.state === undefined ? undefined : stateId(queries, options.state, options.customer)
    const orders = options.changed
      ? details
          .changed(options.customer ?? null)
          .filter((change) => wantedState === undefined || change.state.id === wantedState)
          .slice(0, options.limit)
          .map((change) => ({ ...change, grandTotal: queries.orders.getOrder(change.guid)?.grandTotal ?? null }))
      : queries.orders
          .listOrders({
            ...(options.customer ? { customerGuid: options.customer } : {}),
            ...(wantedState !== undefined ? { stateId: wantedState } : {}),
            limit: options.limit,
          })
          .orders.map((order) => {
            const tracked = details.tracking(order.guid)
            return {
              guid: order.guid,
              name: order.name,
              customerGuid: order.customerGuid,
              customerName: order.customerName,
              state: order.state,
              summary: tracked?.summary ?? null,
              createdAt: order.createdAt,
              changed: tracked?.changed ?? false,
              grandTotal: order.grandTotal,
            }
          })
    const human =
      orders.length === 0
        ? options.changed
          ? 'No order changed since it was last opened.'
          : 'No orders.'
        : table(
            ['Order', 'Customer', 'State', 'Status', 'Total', 'Changed', 'GUID'],
            orders.map((order) => [
              order.name ?? '—',
              order.customerName ?? '—',
              order.state.name,
              order.summary ?? '—',
              order.grandTotal === null ? '—' : formatMoney(order.grandTotal),
              order.changed ? 'yes' : '',
              order.guid,
            ]),
          )
    output.result({ orders }, human)
    return 0
  })
}

/** By guid, or by the order number as the service displays it. */
function findOrder(queries: BrowseQueries, given: string): OrderDetail | null {
  const byGuid = queries.orders.getOrder(given)
  if (byGuid) return byGuid
  const named = queries.orders
    .listOrders({ query: given, limit: 50 })
    .orders.find((order) => order.name?.toLowerCase() === given.toLowerCase())
  return named ? queries.orders.getOrder(named.guid) : null
}

export function runOrderShow(global: GlobalOptions, options: { order: string }, output: Output): number {
  return withDetails(global, (queries, details, outbox) => {
    const order = findOrder(queries, options.order)
    if (!order) throw new UsageError(`No order ${options.order} in the local database`)
    const tracked = details.tracking(order.guid, (apiGuid) => outbox.printable(apiGuid)?.draft.lines ?? null)
    const lines =
      tracked?.lines ??
      order.lines.map((line) => ({
        itemNo: line.itemNo,
        sku: line.sku,
        name: line.name,
        unitPrice: line.unitPrice,
        qtyOrdered: line.qty,
        qtyShipped: null,
        qtyBackordered: null,
        qtyPending: null,
        lineTotal: line.lineTotal,
        notAsSent: null,
      }))
    const header = {
      guid: order.guid,
      name: order.name,
      customerGuid: order.customerGuid,
      customerName: order.customerName,
      poNo: order.poNo,
      createdAt: order.createdAt,
      state: tracked?.state ?? order.state,
      summary: tracked?.summary ?? null,
      onHold: tracked?.onHold ?? null,
      cancelled: tracked?.cancelled ?? null,
      shipped: tracked?.shipped ?? null,
      partiallyShipped: tracked?.partiallyShipped ?? null,
      shipDate: tracked?.shipDate ?? null,
      deliveryDate: tracked?.deliveryDate ?? null,
      totals: tracked?.totals ?? {
        subTotal: order.totals.subTotal,
        tax: order.totals.tax,
        shipping: order.totals.shipping,
        discount: order.totals.discount,
        grandTotal: order.totals.grandTotal,
      },
      changed: tracked?.changed ?? false,
    }
    const result = {
      order: header,
      lines,
      timeline: tracked?.timeline ?? [],
      related: tracked?.related ?? [],
      fetchedAt: tracked?.fetchedAt ?? null,
      latestUnreadable: tracked?.latestUnreadable ?? null,
      sentMissing: tracked?.sentMissing ?? [],
    }
    const qty = (value: number | null) => (value === null ? '—' : String(value))
    const human = [
      `Order ${order.name ?? order.guid}  ${header.customerName ?? ''}`,
      `State ${header.state.name}${header.summary ? ` — ${header.summary}` : ''}${header.shipDate ? `, shipped ${header.shipDate}` : ''}${header.deliveryDate ? `, delivery ${header.deliveryDate}` : ''}`,
      '',
      table(
        ['#', 'SKU', 'Name', 'Unit', 'Ordered', 'Shipped', 'Backordered', 'Pending', 'Total'],
        lines.map((line) => [
          qty(line.itemNo),
          line.sku ?? '',
          line.name ?? '',
          line.unitPrice === null ? '—' : formatMoney(line.unitPrice),
          qty(line.qtyOrdered),
          qty(line.qtyShipped),
          qty(line.qtyBackordered),
          qty(line.qtyPending),
          line.lineTotal === null ? '—' : formatMoney(line.lineTotal),
        ]),
      ),
      ...lines.flatMap((line, index) =>
        line.notAsSent ? [`Line ${line.itemNo ?? index + 1} ${line.sku ?? ''}: ${line.notAsSent}`] : [],
      ),
      ...result.sentMissing.map((missing) => `Sent but not on the supplier's copy: ${missing.sku} × ${missing.qty}`),
      '',
      `Grand total ${header.totals.grandTotal === null ? '—' : formatMoney(header.totals.grandTotal)}`,
      ...(result.timeline.length > 0
        ? [
            '',
            'Timeline',
            ...result.timeline.map(
              (entry) =>
                `  ${entry.at}  ${entry.state}${entry.who ? ` (${entry.who})` : ''}${entry.source === 'seen' ? ' — seen on this laptop' : ''}`,
            ),
          ]
        : []),
      ...(result.related.length > 0
        ? [
            '',
            'Related',
            ...result.related.map(
              (related) =>
                `  ${related.relation} ${related.name ?? related.guid} (${related.state})${related.held ? '' : ' — loads at the next sync'}`,
            ),
          ]
        : []),
      '',
      result.fetchedAt
        ? `Fetched ${result.fetchedAt}`
        : 'Not fetched in full yet: shipped and backordered quantities come with the next sync.',
      ...(result.latestUnreadable
        ? [
            `The supplier's latest copy could not be read (${result.latestUnreadable.at}: ${result.latestUnreadable.reason}); this is the last good one.`,
          ]
        : []),
    ].join('\n')
    output.result(result, human)
    return 0
  })
}

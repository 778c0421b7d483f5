/**
 * `customers brief <customer> [--refresh]`: what a rep reads before a visit, from the local copy;
 * `--refresh` first reads the customer's order history from the service (only what is newer when it
 * is held whole). The human text is the month table (this year beside last year), top and lapsed
 * items, what is owed, new items and credit; `--json` the brief as the app's page gets it.
 */
import type { CustomerBrief } from '../../shared/brief'
import { formatMoney } from '../../shared/money'
import { createBrief } from '../brief'
import { closeDatabase } from '../db/database'
import { CoreError } from '../errors'
import { openLocalData } from '../local/data'
import { ServiceClient } from '../ordering-client/client'
import { orderLookupOf } from '../orders/local-lookup'
import { silentLogger, systemClock } from '../ports'
import { cliConnection } from './connection'
import { openExisting } from './database'
import { CliFailure, UsageError, type GlobalOptions, type Output } from './errors'
import { formatAge, table } from './format'

export async function runCustomersBrief(
  global: GlobalOptions,
  request: { customerGuid: string; refresh: boolean },
  output: Output,
): Promise<number> {
  // For writing, as the app opens it: an older database gets its history table, and --refresh writes.
  const db = openExisting(global.db, 'write')
  let client: ServiceClient | undefined
  try {
    const local = openLocalData(db)
    const lookup = orderLookupOf(local)
    if (!lookup.customer(request.customerGuid))
      throw new UsageError(`No customer ${request.customerGuid} in the local database`)
    if (request.refresh)
      client = new ServiceClient({
        connection: cliConnection(global, db, 'customers brief --refresh'),
        retry: { maxAttempts: 3 },
      })
    const reading = client
    const brief = createBrief({
      local,
      lookup,
      clock: systemClock,
      logger: silentLogger,
      client: async () => reading ?? null,
      offline: () => false,
      beforeWrite: async () => {},
      workedWith: () => [],
    })
    try {
      const answer = request.refresh
        ? await brief.methods.refreshCustomerHistory({ customerGuid: request.customerGuid })
        : brief.read(request.customerGuid)
      output.result(answer, describeBrief(answer))
    } catch (error) {
      if (error instanceof CoreError) throw new CliFailure(error.message, error.code)
      throw error
    } finally {
      await brief.close()
    }
    return 0
  } finally {
    await client?.close()
    closeDatabase(db)
  }
}

const money = (amount: number) => formatMoney(amount)

/** The brief as a rep reads it on a terminal. */
function describeBrief(brief: CustomerBrief): string {
  const { history } = brief
  const heldSince = history.from ? `orders since ${history.from}` : 'no orders'
  const lines = [
    `${brief.customer.name}`,
    history.complete
      ? `Order history: ${heldSince}, the whole 24 months (read ${history.fetchedAt ? formatAge(Date.now() - Date.parse(history.fetchedAt)) : 'never'})`
      : `Order history: ${history.note ?? heldSince}`,
    '',
    'Sales by month (the lines before tax and shipping; cancelled orders apart)',
    table(
      ['Month', 'Orders', 'Value', 'Cancelled', 'Last year', 'Orders', 'Value', 'Cancelled'],
      brief.months.slice(12).map((month, index) => {
        const before = brief.months[index]!
        return [
          month.month,
          String(month.orders),
          money(month.value),
          String(month.cancelled),
          before.month,
          String(before.orders),
          money(before.value),
          String(before.cancelled),
        ]
      }),
    ),
    '',
    'Top items, last 12 months',
    brief.topItems.length === 0
      ? 'None.'
      : table(
          ['SKU', 'Name', 'Qty', 'Value', 'Last ordered', 'Add to order'],
          brief.topItems.map((item) => [
            item.sku,
            item.name,
            String(item.qty),
            money(item.value),
            item.lastOrdered,
            item.itemGuid ? 'yes' : (item.note ?? 'no'),
          ]),
        ),
    '',
    'Lapsed: ordered in 2 or more months, not in the last 90 days',
    brief.lapsed.length === 0
      ? 'None.'
      : table(
          ['SKU', 'Name', 'Months', 'Last ordered'],
          brief.lapsed.map((item) => [item.sku, item.name, String(item.monthsOrdered), item.lastOrdered]),
        ),
    '',
    'Still owed (backordered)',
    brief.backordered.length === 0
      ? 'Nothing.'
      : table(
          ['Order', 'SKU', 'Name', 'Qty'],
          brief.backordered.map((line) => [line.orderName, line.sku, line.name, String(line.qtyBackordered)]),
        ),
    '',
    brief.lastOrderedAt
      ? `New since their last order (${brief.lastOrderedAt.slice(0, 10)}): ${brief.newItems} items in their catalog`
      : 'New since their last order: no order on this laptop',
    brief.credit
      ? `Credit: ${brief.credit.balance === null ? 'balance not known' : `${money(brief.credit.balance)} open`} of ${brief.credit.limit === null ? 'no limit given' : money(brief.credit.limit)}`
      : 'Credit: not in the customer record',
  ]
  return lines.join('\n')
}

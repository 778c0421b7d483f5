/**
 * The CLI's read-only commands: status, items search, customers search. They open the local copy
 * read-only and the query layer only, so they start fast, work offline and on a read-only database.
 */
import { closeDatabase, type Database } from '../db/database'
import { browseQueries, type BrowseQueries } from '../browse'
import { needingAttention } from '../orders/outbox/attention'
import { OutboxReader } from '../orders/outbox/reader'
import { catalogUpdate, catalogUpdating, refuseWhileItemsWait } from './catalog-update'
import { openExisting } from './database'
import { DamageWatch, damageError, healthJson } from './health'
import { UsageError, type GlobalOptions, type Output } from './errors'
import { formatAge, table } from './format'
import { formatMoney } from '../../shared/money'
import { misScanText } from '../../shared/gtin'
import { openLocalData, type LocalData } from '../local/data'

function withStore<T>(
  global: GlobalOptions,
  use: (queries: BrowseQueries, db: Database, local: LocalData) => T,
  damage: 'refused' | 'handled' = 'refused',
): T {
  const db = openExisting(global.db, 'read', { damage })
  try {
    const local = openLocalData(db)
    return use(browseQueries(local), db, local)
  } finally {
    closeDatabase(db)
  }
}

export function runStatus(global: GlobalOptions, output: Output): number {
  return withStore(
    global,
    (queries, db, local) => {
      // A damaged file still shows what can be read (the outbox first), beside the one verdict: the
      // one an earlier command reached, or the one reached here when a read meets a damaged page.
      const watch = new DamageWatch(db, global.db)
      const outboxRead = watch.damage && !watch.damage.outboxReadable ? null : watch.read(() => OutboxReader.counts(db))
      const pause = watch.read(() => OutboxReader.pause(db))
      const counts = watch.read(() => local.counts())
      const lastSyncMs = watch.read(() => local.syncState.lastSyncAt())
      const lastSyncAt = lastSyncMs === null ? null : new Date(lastSyncMs).toISOString()
      const update = watch.read(() => catalogUpdate(local))
      // Counted before a later read found the outbox damaged: its pages cannot be trusted.
      const damage = watch.damage
      const counted = damage && !damage.outboxReadable ? null : outboxRead
      // What needs the rep by the core's one rule, the number the app's status bar shows.
      const outbox = counted ? { ...counted, attention: needingAttention(counted) } : null
      const unreadable = 'cannot be read (the file is damaged)'
      const human = [
        `Database        ${global.db}`,
        `Last sync       ${lastSyncAt === null ? 'never' : `${lastSyncAt} (${formatAge(Date.now() - lastSyncMs!)})`}`,
        `Catalogs        ${counts?.catalogs ?? unreadable}`,
        `Price groups    ${counts?.priceGroups ?? unreadable}`,
        `Customers       ${counts?.customers ?? unreadable}`,
        `Catalog items   ${update?.itemsBrowsable === false ? `not counted yet: ${catalogUpdating}` : (counts?.catalogItems ?? unreadable)}`,
        `Orders          ${counts?.orders ?? unreadable}`,
        `Outbox          ${outbox ? `${outbox.queued} queued, ${outbox.sending} sending, ${outbox.retrying} retrying, ${outbox.attention} need attention, ${outbox.sent} sent` : unreadable}`,
        ...(pause ? [`Sending paused  ${pause.reason}`] : []),
      ].join('\n')
      output.result(
        {
          counts,
          outbox,
          ...(pause ? { outboxPaused: { reason: pause.reason, signInAgain: pause.signInAgain === true } } : {}),
          lastSyncAt,
          catalogUpdate: update,
          ...(damage ? { health: healthJson(damage) } : {}),
        },
        human,
      )
      if (damage) throw damageError(db, global.db, damage)
      return 0
    },
    'handled',
  )
}

export function runItemsSearch(
  global: GlobalOptions,
  search: { query: string; catalog: string; customer?: string; limit: number },
  output: Output,
): number {
  return withStore(global, (queries, _db, local) => {
    refuseWhileItemsWait(local)
    if (!queries.catalogs.listCatalogs().some((catalog) => catalog.guid === search.catalog)) {
      throw new UsageError(`No catalog ${search.catalog} in the local database`)
    }
    if (search.customer && !queries.customers.getCustomer(search.customer))
      throw new UsageError(`No customer ${search.customer} in the local database`)
    const result = queries.catalogs.searchCatalogItems({
      catalogGuid: search.catalog,
      query: search.query,
      customerGuid: search.customer,
      includeInactive: true,
      familyMembers: true,
      limit: search.limit,
    })
    const items = result.items.map((item) => ({
      guid: item.guid,
      sku: item.sku,
      upc: item.upc,
      name: item.name,
      price: item.price,
      offered: item.offered,
      available: item.available ?? null,
      incoming: item.incoming ?? 0,
      family: item.family ?? null,
      familyOf: item.familyOf ?? null,
    }))
    const human =
      items.length === 0
        ? (misScanText(search.query) ?? `No items match '${search.query}'.`)
        : table(
            ['SKU', 'Name', `Price (${result.priceGroupName ?? 'no price group'})`, 'GUID'],
            items.map((item) => [
              item.sku,
              item.name,
              item.offered && item.price !== null ? formatMoney(item.price) : 'not offered',
              item.guid,
            ]),
          ) + `\n${items.length} of ${result.total}${result.totalCapped ? '+' : ''} shown`
    output.result({ items }, human)
    return 0
  })
}

export function runItemsFamily(
  global: GlobalOptions,
  request: { guid: string; customer?: string },
  output: Output,
): number {
  return withStore(global, (queries, _db, local) => {
    refuseWhileItemsWait(local)
    if (request.customer && !queries.customers.getCustomer(request.customer))
      throw new UsageError(`No customer ${request.customer} in the local database`)
    const family = queries.catalogs.getItemFamily({
      guid: request.guid,
      ...(request.customer ? { customerGuid: request.customer } : {}),
    })
    if (!family) throw new UsageError(`No family ${request.guid} in the local database`)
    const human =
      `${family.title} (${family.sku}), ${family.cells.length} members, ${family.priceGroupName ?? 'no price group'} prices\n` +
      table(
        ['SKU', family.rowAxis || 'Row', family.columnAxis || 'Column', 'Price', 'Available', 'Arriving', 'Note'],
        family.cells.map((cell) => [
          cell.sku,
          cell.row,
          cell.column,
          cell.price !== null && cell.refused === null ? formatMoney(cell.price) : '',
          cell.available === null ? '' : String(cell.available),
          cell.incoming > 0 ? String(cell.incoming) : '',
          cell.refused ?? '',
        ]),
      )
    output.result({ family }, human)
    return 0
  })
}

export function runCustomersSearch(global: GlobalOptions, search: { query: string }, output: Output): number {
  return withStore(global, (queries) => {
    const result = queries.customers.searchCustomers({ query: search.query, limit: 50 })
    const customers = result.customers.map((customer) => ({
      guid: customer.guid,
      name: customer.name,
      active: customer.active,
    }))
    const human =
      customers.length === 0
        ? `No customers match '${search.query}'.`
        : table(
            ['Name', 'Active', 'GUID'],
            customers.map((customer) => [customer.name, customer.active ? 'yes' : 'no', customer.guid]),
          ) + `\n${customers.length} of ${result.total} shown`
    output.result({ customers }, human)
    return 0
  })
}

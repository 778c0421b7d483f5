/**
 * Browsing: the synced catalogs, items, customers and orders as the screens read them. Reads only;
 * sync fills what it reads.
 */
import type { Implementations } from '../../shared/contract'
import type { SentOrderSummary } from '../../shared/synced'
import type { LocalData } from '../local/data'
import { CoreError } from '../errors'
import { CatalogBrowse } from './catalogs'
import { CustomerBrowse } from './customers'
import type { MadeHereEntries, MadeHereEntry } from './made-here'
import { OrderBrowse } from './orders'

type BrowseMethods = Pick<
  Implementations,
  | 'listCatalogs'
  | 'listCategories'
  | 'searchCatalogItems'
  | 'countCatalogItems'
  | 'getCatalogItem'
  | 'getItemFamily'
  | 'searchCustomers'
  | 'getCustomer'
  | 'listOrders'
  | 'getOrder'
>

/** The synced data as the screens and the CLI read it, by what they browse. */
export interface BrowseQueries {
  catalogs: CatalogBrowse
  customers: CustomerBrowse
  orders: OrderBrowse
}

/** `madeHere`: the customers made on this laptop (their outbox entries), which the customers list and page show too. */
export function browseQueries(local: LocalData, madeHere: MadeHereEntries = () => []): BrowseQueries {
  return {
    catalogs: new CatalogBrowse(local),
    customers: new CustomerBrowse(local, madeHere),
    orders: new OrderBrowse(local),
  }
}

export interface Browsing {
  queries: BrowseQueries
  methods: BrowseMethods
}

const notFound = (what: string): never => {
  throw new CoreError('NOT_FOUND', `${what} is not in the local copy. Sync, then try again.`)
}

/** What browsing reads of the outbox (orders/outbox/reader.ts), which it may not import. */
interface OutboxReads {
  /** The orders sent from this laptop, which the orders list shows until a sync brings them into the history. */
  sentOrders(): SentOrderSummary[]
  madeHereCustomers(): MadeHereEntry[]
}

export function createBrowsing(
  local: LocalData,
  outbox: OutboxReads = { sentOrders: () => [], madeHereCustomers: () => [] },
): Browsing {
  const queries = browseQueries(local, () => outbox.madeHereCustomers())
  const { catalogs, customers, orders } = queries
  return {
    queries,
    methods: {
      listCatalogs: (input) => catalogs.listCatalogs({ customerGuid: input?.customerGuid }),
      listCategories: (input) => catalogs.listCategories(input.catalogGuid),
      searchCatalogItems: (input) => catalogs.searchCatalogItems(input),
      countCatalogItems: (input) => catalogs.countCatalogItems(input),
      getCatalogItem: (input) => catalogs.getCatalogItem(input) ?? notFound('This catalog item'),
      getItemFamily: (input) => catalogs.getItemFamily(input) ?? notFound('This family'),
      searchCustomers: (input) => customers.searchCustomers(input),
      getCustomer: (input) => customers.getCustomer(input.guid) ?? notFound('This customer'),
      listOrders: (input) => orders.listOrders(input, outbox.sentOrders()),
      getOrder: (input) => orders.getOrder(input.guid) ?? notFound('This order'),
    },
  }
}

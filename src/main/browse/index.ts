/**
 * Browsing: the synced catalogs, items, customers and orders as the screens read them. Reads only;
 * sync fills what it reads.
 */
import type { Implementations } from '../../shared/contract'
import type { SentOrderSummary } from '../../shared/synced'
import type { LocalData } from '../local/data'
import { CoreError } from '../errors'
import { BrowseQueries } from './queries'

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

export interface Browsing {
  queries: BrowseQueries
  methods: BrowseMethods
}

const notFound = (what: string): never => {
  throw new CoreError('NOT_FOUND', `${what} is not in the local copy. Sync, then try again.`)
}

/** `sentOrders`: the orders sent from this laptop, which the orders list shows until a sync brings them into the history. */
export function createBrowsing(local: LocalData, sentOrders: () => SentOrderSummary[] = () => []): Browsing {
  const queries = new BrowseQueries(local)
  return {
    queries,
    methods: {
      listCatalogs: (input) => queries.listCatalogs({ customerGuid: input?.customerGuid }),
      listCategories: (input) => queries.listCategories(input.catalogGuid),
      searchCatalogItems: (input) => queries.searchCatalogItems(input),
      countCatalogItems: (input) => queries.countCatalogItems(input),
      getCatalogItem: (input) => queries.getCatalogItem(input) ?? notFound('This catalog item'),
      getItemFamily: (input) => queries.getItemFamily(input) ?? notFound('This family'),
      searchCustomers: (input) => queries.searchCustomers(input),
      getCustomer: (input) => queries.getCustomer(input.guid) ?? notFound('This customer'),
      listOrders: (input) => queries.listOrders(input, sentOrders()),
      getOrder: (input) => queries.getOrder(input.guid) ?? notFound('This order'),
    },
  }
}

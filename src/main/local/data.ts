/**
 * The local copy's one surface: its readers and writers, built once per database connection by the
 * composition (core/compose.ts for the app, cli/local.ts for a CLI command, the sync writer's thread
 * for its own connection) and handed to the parts. No part builds another's data access: a lint rule
 * (eslint.config.mjs, `local-data`) refuses `new` of these outside src/main/local/. Each is made on
 * first use, so a command that reads one table prepares only that table's statements.
 */
import type { Database } from '../db/database'
import { CatalogItemUpdate } from './catalog-items/catalog-update'
import { ItemPictureSources } from './catalog-items/pictures'
import { CatalogItems } from './catalog-items/reads'
import { CatalogUpdateJobs } from './catalog-update-jobs'
import { Catalogs } from './catalogs'
import { LocalCopy } from './copy'
import { CustomerHistories } from './customer-histories'
import { Customers } from './customers'
import { OrderDetailRows } from './order-details'
import { OrderHistory } from './order-history'
import { PriceGroups } from './price-groups'
import { Retention } from './retention'
import { SyncState } from './sync-state'

export interface LocalCounts {
  catalogs: number
  priceGroups: number
  customers: number
  catalogItems: number
  orders: number
}

export class LocalData {
  private made: {
    customers?: Customers
    priceGroups?: PriceGroups
    catalogs?: Catalogs
    catalogItems?: CatalogItems
    orderHistory?: OrderHistory
    orderDetails?: OrderDetailRows
    syncState?: SyncState
    retention?: Retention
    copy?: LocalCopy
    pictureSources?: ItemPictureSources
    catalogUpdateJobs?: CatalogUpdateJobs
    catalogItemUpdate?: CatalogItemUpdate
    customerHistories?: CustomerHistories
  } = {}

  constructor(readonly db: Database) {}

  /** Live rows per table: soft-deleted rows do not count; inactive customers and items do. */
  counts(): LocalCounts {
    return {
      catalogs: this.catalogs.countLive(),
      priceGroups: this.priceGroups.countLive(),
      customers: this.customers.countLive(),
      catalogItems: this.catalogItems.countLive(),
      orders: this.orderHistory.countLive(),
    }
  }

  /** The synced customers, as the screens and the order rules read them. */
  get customers(): Customers {
    return (this.made.customers ??= new Customers(this.db))
  }

  get priceGroups(): PriceGroups {
    return (this.made.priceGroups ??= new PriceGroups(this.db, this.customers))
  }

  get catalogs(): Catalogs {
    return (this.made.catalogs ??= new Catalogs(this.db))
  }

  get catalogItems(): CatalogItems {
    return (this.made.catalogItems ??= new CatalogItems(this.db))
  }

  /** The recent orders synced from the service (the list; a sent order's full copy is orderDetails). */
  get orderHistory(): OrderHistory {
    return (this.made.orderHistory ??= new OrderHistory(this.db))
  }

  /** How far back each customer's order history is held, for their brief. */
  get customerHistories(): CustomerHistories {
    return (this.made.customerHistories ??= new CustomerHistories(this.db))
  }

  get orderDetails(): OrderDetailRows {
    return (this.made.orderDetails ??= new OrderDetailRows(this.db))
  }

  /** When each table was last synced, and the recent sync reports. */
  get syncState(): SyncState {
    return (this.made.syncState ??= new SyncState(this.db))
  }

  get retention(): Retention {
    return (this.made.retention ??= new Retention(this.db))
  }

  /** The writes sync makes (and the fresh items Send reads, and the sent orders tracking records). */
  get copy(): LocalCopy {
    return (this.made.copy ??= new LocalCopy(this.db, this.retention))
  }

  /** Each catalog item's picture addresses, for the picture cache. */
  get pictureSources(): ItemPictureSources {
    return (this.made.pictureSources ??= new ItemPictureSources(this.db))
  }

  /** The catalog update an upgrade leaves, in slices (the CLI runs it before a command that reads items). */
  get catalogUpdateJobs(): CatalogUpdateJobs {
    return (this.made.catalogUpdateJobs ??= new CatalogUpdateJobs(this.db))
  }

  get catalogItemUpdate(): CatalogItemUpdate {
    return (this.made.catalogItemUpdate ??= new CatalogItemUpdate(this.db))
  }
}

/** The local copy's surface on `db`: call once per connection, where the parts are composed. */
export function openLocalData(db: Database): LocalData {
  return new LocalData(db)
}

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

export class LocalData {
  private made = new Map<string, unknown>()

  constructor(readonly db: Database) {}

  private once<T>(name: string, make: () => T): T {
    if (!this.made.has(name)) this.made.set(name, make())
    return this.made.get(name) as T
  }

  /** The synced customers, as the screens and the order rules read them. */
  get customers(): Customers {
    return this.once('customers', () => new Customers(this.db))
  }

  get priceGroups(): PriceGroups {
    return this.once('priceGroups', () => new PriceGroups(this.db, this.customers))
  }

  get catalogs(): Catalogs {
    return this.once('catalogs', () => new Catalogs(this.db))
  }

  get catalogItems(): CatalogItems {
    return this.once('catalogItems', () => new CatalogItems(this.db))
  }

  /** The recent orders synced from the service (the list; a sent order's full copy is orderDetails). */
  get orderHistory(): OrderHistory {
    return this.once('orderHistory', () => new OrderHistory(this.db))
  }

  /** How far back each customer's order history is held, for their brief. */
  get customerHistories(): CustomerHistories {
    return this.once('customerHistories', () => new CustomerHistories(this.db))
  }

  get orderDetails(): OrderDetailRows {
    return this.once('orderDetails', () => new OrderDetailRows(this.db))
  }

  /** When each table was last synced, and the recent sync reports. */
  get syncState(): SyncState {
    return this.once('syncState', () => new SyncState(this.db))
  }

  get retention(): Retention {
    return this.once('retention', () => new Retention(this.db))
  }

  /** The writes sync makes (and the fresh items Send reads, and the sent orders tracking records). */
  get copy(): LocalCopy {
    return this.once('copy', () => new LocalCopy(this.db, this.retention))
  }

  /** Each catalog item's picture addresses, for the picture cache. */
  get pictureSources(): ItemPictureSources {
    return this.once('pictureSources', () => new ItemPictureSources(this.db))
  }

  /** The catalog update an upgrade leaves, in slices (the CLI runs it before a command that reads items). */
  get catalogUpdateJobs(): CatalogUpdateJobs {
    return this.once('catalogUpdateJobs', () => new CatalogUpdateJobs(this.db))
  }

  get catalogItemUpdate(): CatalogItemUpdate {
    return this.once('catalogItemUpdate', () => new CatalogItemUpdate(this.db))
  }
}

/** The local copy's surface on `db`: call once per connection, where the parts are composed. */
export function openLocalData(db: Database): LocalData {
  return new LocalData(db)
}

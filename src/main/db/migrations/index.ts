import type { Migration } from '../migration'
import { migration as settings } from './0001-settings'
import { migration as syncedTables } from './0002-synced-tables'
import { migration as draftsAndOutbox } from './0003-drafts-and-outbox'
import { migration as searchIndexKeptFromCode } from './0004-search-index-kept-from-code'
import { migration as outboxPayloads } from './0005-outbox-payloads'
import { migration as catalogBrowsingIndexes } from './0006-catalog-browsing-indexes'
import { migration as retainedRefs } from './0007-retained-refs'
import { migration as leases } from './0008-leases'
import { migration as apiGuidNocase } from './0009-api-guid-nocase'
import { migration as leanCatalogItems } from './0010-lean-catalog-items'
import { migration as quotes } from './0011-quotes'
import { migration as quotesRetained } from './0012-quotes-retained'
import { migration as itemGuidIndex } from './0013-item-guid-index'
import { migration as outboxDeliveryUnknown } from './0014-outbox-delivery-unknown'
import { migration as leaseLiveness } from './0015-lease-liveness'
import { migration as orderDetails } from './0016-order-details'
import { migration as itemFamilies } from './0017-item-families'
import { migration as catalogItemCounts } from './0018-catalog-item-counts'
import { migration as familyMemberCounts } from './0019-family-member-counts'
import { migration as catalogItemFilters } from './0020-catalog-item-filters'
import { migration as itemIndexesByCatalogKey } from './0021-item-indexes-by-catalog-key'
import { migration as leanerItemRows } from './0022-leaner-item-rows'
import { migration as orderDetailRefusals } from './0023-order-detail-refusals'
import { migration as outboxWrites } from './0024-outbox-writes'
import { migration as pictureBudgetSetting } from './0025-picture-budget-setting'
import { migration as customerHistories } from './0026-customer-histories'

/**
 * Numbered, append-only: a released migration is never edited, because laptops in the field already
 * ran it. The database's PRAGMA user_version is the number of the last one applied.
 *
 * One file per version, NNNN-<what>.ts, exporting `migration` with that version; this list holds
 * them in order (test/unit/main/db/migrations-list.test.ts checks both, and pins each one's SQL). The SQL
 * keeps the indentation it was released with: SQLite stores a CREATE statement's text as written.
 */
export const migrations: Migration[] = [
  settings,
  syncedTables,
  draftsAndOutbox,
  searchIndexKeptFromCode,
  outboxPayloads,
  catalogBrowsingIndexes,
  retainedRefs,
  leases,
  apiGuidNocase,
  leanCatalogItems,
  quotes,
  quotesRetained,
  itemGuidIndex,
  outboxDeliveryUnknown,
  leaseLiveness,
  orderDetails,
  itemFamilies,
  catalogItemCounts,
  familyMemberCounts,
  catalogItemFilters,
  itemIndexesByCatalogKey,
  leanerItemRows,
  orderDetailRefusals,
  outboxWrites,
  pictureBudgetSetting,
  customerHistories,
]

/**
 * What a sync's progress says beside its counts. Each step (customers, each catalog's items, orders)
 * has a bar of its own that starts at 0%: one bar for the whole run would need every step's size
 * before it starts, which the service says only as each listing begins. So a catalog's items say
 * which catalog of how many they are ("Catalog items of Spring (2 of 3)"), and a bar that starts
 * again is seen to be the next catalog's.
 */
import type { SyncProgress, SyncStatus } from '../../shared/synced'

/** `order`: the live catalogs in the order the run takes their items (LocalCopy.liveCatalogGuids). */
export function withCatalogStep(progress: SyncProgress, order: readonly string[]): SyncProgress {
  if (progress.resource !== 'catalogItems' || progress.catalogGuid === null) return progress
  const index = order.indexOf(progress.catalogGuid)
  return index < 0 ? progress : { ...progress, catalogOf: { number: index + 1, count: order.length } }
}

/** The status with its progress numbered too, so a window that opens mid-sync reads the same words. */
export function statusWithCatalogStep(status: SyncStatus, order: () => readonly string[]): SyncStatus {
  const progress = status.progress
  if (!progress || progress.resource !== 'catalogItems') return status
  return { ...status, progress: withCatalogStep(progress, order()) }
}

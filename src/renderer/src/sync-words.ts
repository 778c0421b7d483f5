import type { SyncProgress } from '../../shared/synced'

/**
 * The sync's step as the status bar and the first sync's screen say it. Each step has a bar of its
 * own that starts at 0% (the service says how much a step holds only as it starts, so no bar for the
 * whole run could be honest): a catalog's items say which catalog of how many they are, so a bar
 * that starts again reads as the next catalog's, not as the sync going back.
 */
export function syncStepWords(progress: SyncProgress, catalogName: string | null): string {
  if (progress.resource === 'catalogItems') {
    const step = progress.catalogOf && progress.catalogOf.count > 1 ? progress.catalogOf : null
    // Before the catalogs' names are read (the first sync's screen), the number alone says which.
    if (catalogName === null) return `catalog items${step ? ` (catalog ${step.number} of ${step.count})` : ''}`
    return `catalog items of ${catalogName}${step ? ` (${step.number} of ${step.count})` : ''}`
  }
  const names: Record<Exclude<SyncProgress['resource'], 'catalogItems'>, string> = {
    catalogs: 'catalogs',
    priceGroups: 'price groups',
    customers: 'customers',
    orders: 'orders',
  }
  return names[progress.resource]
}

/** "Syncing catalog items of Spring (2 of 3)… 40%"; the percent is the step's own. */
export function syncProgressText(progress: SyncProgress, catalogName: string | null, percent: number | null): string {
  return `Syncing ${syncStepWords(progress, catalogName)}…${percent === null ? '' : ` ${percent}%`}`
}

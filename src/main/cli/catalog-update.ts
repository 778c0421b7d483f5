/**
 * The catalog update an upgrade of a large catalog leaves (local/catalog-update-jobs.ts), as the CLI's
 * commands meet it. Until its first job has copied the items into their new table the catalog shows
 * none, so a command that reads items would answer "not in this catalog" or "0 items" about items
 * that are there. Only `sync` runs the update from the command line: it holds the sync lease, which
 * keeps it from running beside the app's.
 */
import type { CatalogUpdateJob } from '../local/catalog-update-jobs'
import type { LocalData } from '../local/data'
import { CliFailure } from './errors'

export const catalogUpdating = 'the catalog is being updated after the upgrade; run `sync` to finish it'

/** The job of the update left, and whether the items can be read meanwhile; null when none is left. */
export function catalogUpdate(local: LocalData): { job: CatalogUpdateJob; itemsBrowsable: boolean } | null {
  const job = local.catalogUpdateJobs.next()
  return job === null ? null : { job, itemsBrowsable: job !== 'leanItems' }
}

/** For a command that reads catalog items: refused, saying why and what to run, while they are held back. */
export function refuseWhileItemsWait(local: LocalData): void {
  if (local.catalogItemUpdate.rowsWaiting())
    throw new CliFailure(`Catalog items cannot be read yet: ${catalogUpdating}, then try again.`, 'UNAVAILABLE')
}

/**
 * A full disk met by `sync` while the update copies the items: DISK_FULL with a full disk's advice,
 * saying how far the copy got, which is kept (each slice commits), so the rep knows `sync` goes on
 * from there once there is room. Null for any other failure. file-errors.ts is loaded only here, on
 * the error path, as the CLI's other failures load it.
 */
export async function diskFullDuringUpdate(error: unknown, local: LocalData, path: string): Promise<Error | null> {
  const { DatabaseFileError, isNoRoom } = await import('../db/file-errors')
  // SQLite's own code, or the writer's DISK_FULL made of it (sync/page-writer.ts).
  const full =
    isNoRoom(error, path) ||
    (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'DISK_FULL')
  if (!full) return null
  const items = local.catalogItemUpdate
  if (!items.rowsWaiting()) return null
  const { waiting, stored } = items.rowsCounts()
  const kept = `the catalog update had copied ${stored} of ${stored + waiting} items after the upgrade, which are kept, and the next \`sync\` goes on from there`
  return Object.assign(new DatabaseFileError(path, { kind: 'diskFull', cause: 'writing', kept }, 'cli'), {
    cause: error,
  })
}

/**
 * `satchel sync [--full]`: the same engine the app runs, against the given database, with the
 * credentials from the options or environment (the API secret never comes from the database: the
 * app keeps it in the operating system's secret store).
 */
import { existsSync } from 'node:fs'
import { closeDatabase, DatabaseFileError, openDatabase } from '../db/database'
import { deleteDatabaseFiles } from '../profiles/holdings'
import { silentLogger, systemClock } from '../ports'
import { ServiceClient } from '../ordering-client/client'
import { browseQueries } from '../browse'
import { openLocalData } from '../local/data'
import { describeHolder, Lease } from '../db/lease'
import { resourceNames, type SyncProgress } from '../../shared/synced'
import { createSyncRun } from '../sync/run'
import { syncThreadOptions, type SyncThreadData } from '../sync/page-writer'
import type { CatalogUpdateProgress } from '../local/catalog-update-jobs'
import { AppSettings } from '../settings/app-settings'
import { createTracking } from '../tracking'
import { diskFullDuringUpdate } from './catalog-update'
import { cliConnection } from './connection'
import { builtThreads } from './threads'
import { refuseDamaged } from './health'
import { CliFailure, type GlobalOptions, type Output } from './errors'
import { progressBar, table } from './format'

const labels: Record<(typeof resourceNames)[number], string> = {
  catalogs: 'Catalogs',
  priceGroups: 'Price groups',
  customers: 'Customers',
  catalogItems: 'Catalog items',
  orders: 'Orders',
}

function describeProgress(progress: SyncProgress, catalogNames: Map<string, string>): string {
  const fraction =
    progress.rowsTotal && progress.rowsTotal > 0
      ? Math.min(1, progress.rowsDone / progress.rowsTotal)
      : progress.pagesTotal
        ? Math.min(1, progress.pagesDone / progress.pagesTotal)
        : null
  const what = progress.catalogGuid
    ? `${labels[progress.resource]} (${catalogNames.get(progress.catalogGuid) ?? progress.catalogGuid})`
    : labels[progress.resource]
  // Counts before names: a narrow terminal cuts the end of the line.
  if (progress.phase === 'catchUp' || progress.phase === 'verify')
    return `${progressBar(fraction)} ${progress.phase === 'catchUp' ? 'catching up' : 'checking'}: ${what}`
  const rows = progress.rowsTotal ? `${progress.rowsDone}/${progress.rowsTotal}` : `${progress.rowsDone}`
  return `${progressBar(fraction)} ${rows} ${what}`
}

/** How long `sync` waits for another process's sync of the same database to finish. */
const syncWaitMs = 10 * 60_000

export async function runSync(global: GlobalOptions, options: { full: boolean }, output: Output): Promise<number> {
  // A missing folder is made (0700) by openDatabase, with the file (0600).
  const existed = existsSync(global.db)
  const db = openDatabase(global.db, { audience: 'cli' })
  // A profile removed after this command found it: its files are gone (a new one was just made in
  // their place) or fenced. A sync into either would report rows written where nobody reads them.
  if (global.stillListed && !global.stillListed()) {
    closeDatabase(db)
    if (!existed) deleteDatabaseFiles(global.db)
    throw new CliFailure(
      `The profile of ${global.db} was removed before this sync could start: nothing was written.`,
      'NOT_FOUND',
    )
  }
  let client: ServiceClient | undefined
  const controller = new AbortController()
  const interrupt = () => controller.abort()
  process.once('SIGINT', interrupt)
  try {
    refuseDamaged(db, global.db)
    // Fewer retries than the app: a script wants a prompt answer, and the next run resumes anyway.
    client = new ServiceClient({ connection: cliConnection(global, db, 'sync'), retry: { maxAttempts: 3 } })
    const local = openLocalData(db)
    const copy = local.copy
    // The desktop app may be syncing the same database: wait for it, then run (a delta, by then short).
    const lease = new Lease(db, 'sync', { label: 'satchel (CLI)', clock: systemClock })
    // The run the app makes: pages written on a thread of their own, so the progress bar keeps moving.
    const settings = new AppSettings(db).get()
    const orderDetails = createTracking({
      db,
      local,
      clock: systemClock,
      logger: silentLogger,
      detailsPerSync: () => settings.orderDetailsPerSync,
    })
    const { writer: builtWriter, reader: builtReader } = builtThreads
    const run = createSyncRun({
      db,
      copy,
      lease,
      clock: systemClock,
      logger: silentLogger,
      orderDetails,
      ...(builtWriter && builtReader
        ? {
            syncThread: (data: SyncThreadData) =>
              (data.role === 'reader' ? builtReader : builtWriter)(syncThreadOptions(data)),
          }
        : {}),
      // An upgrade's catalog update (a large catalog's items copied into their new table) comes first.
      ...(output.progress
        ? {
            onCatalogUpdateProgress: (progress: CatalogUpdateProgress) =>
              output.progress?.(
                progress.job
                  ? `${progressBar(progress.done / Math.max(progress.total, 1))} updating the catalog after the upgrade`
                  : 'catalog updated',
              ),
          }
        : {}),
    })
    const queries = browseQueries(local)
    let catalogNames = new Map<string, string>()
    // An upgrade's catalog update runs first, in the same call: a full disk there says what it kept.
    const report = await run({
      source: client,
      full: options.full,
      signal: controller.signal,
      waitMs: syncWaitMs,
      onWait: (holder) =>
        process.stderr.write(`satchel: waiting for ${describeHolder(holder)}, which is syncing this database\n`),
      onProgress: output.progress
        ? (progress) => {
            if (progress.catalogGuid && !catalogNames.has(progress.catalogGuid))
              catalogNames = new Map(queries.catalogs.listCatalogs().map((c) => [c.guid, c.name]))
            output.progress?.(describeProgress(progress, catalogNames))
          }
        : undefined,
    }).catch(async (error: unknown) => {
      throw (await diskFullDuringUpdate(error, local, global.db)) ?? error
    })
    output.endProgress()
    const warnings = report.scopes.flatMap((scope) => scope.warnings ?? [])
    const result = {
      ok: report.ok,
      resources: report.resources,
      durationMs: report.durationMs,
      ...(report.orderDetails ? { orderDetails: report.orderDetails } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    }
    if (!report.ok) {
      const reported = report.error ?? { code: 'INTERNAL', message: 'Sync failed.' }
      // The writer tells a full disk in the app's words; the operator gets the CLI's.
      const fullDuringUpdate =
        reported.code === 'DISK_FULL' ? await diskFullDuringUpdate(reported, local, global.db) : null
      const error =
        reported.code === 'DISK_FULL'
          ? {
              code: reported.code,
              message: (
                fullDuringUpdate ?? new DatabaseFileError(global.db, { kind: 'diskFull', cause: 'writing' }, 'cli')
              ).message,
            }
          : reported
      throw new CliFailure(`sync failed: ${error.message}`, error.code, { ...result, error })
    }
    // A run that threw away all, or most, of a scope's rows did not sync it, whatever the engine's
    // ok says: a script must not take it for a sync that worked.
    const refused = report.scopes.filter((scope) => scope.refused)
    if (refused.length > 0) {
      const rows = refused.reduce((sum, scope) => sum + scope.refused!.rows, 0)
      const of = refused.reduce((sum, scope) => sum + scope.refused!.of, 0)
      const error = {
        code: 'REJECTED',
        message: `sync refused ${rows} of ${of} rows as impossible: ${refused.flatMap((scope) => scope.warnings ?? []).join('; ')}`,
      }
      throw new CliFailure(error.message, error.code, { ...result, ok: false, error })
    }
    const human =
      table(
        ['', 'Fetched', 'Written', 'Removed'],
        resourceNames.map((name) => [
          labels[name],
          String(report.resources[name].fetched),
          String(report.resources[name].upserted),
          String(report.resources[name].deleted),
        ]),
      ) +
      `\nSynced ${options.full ? 'in full ' : ''}in ${(report.durationMs / 1000).toFixed(1)} s.` +
      (report.orderDetails
        ? `\nFull orders: ${report.orderDetails.fetched} fetched${report.orderDetails.failed ? `, ${report.orderDetails.failed} failed` : ''}${unreadableText(report.orderDetails.unreadable)}${report.orderDetails.waiting ? `, ${report.orderDetails.waiting} left for the next sync` : ''}.`
        : '') +
      warnings.map((warning) => `\nWarning: ${warning}`).join('')
    // A remove waits for the sync's lease, but the lease ends before this process does: a profile
    // removed meanwhile must not be reported synced. Looked at last, once the database is closed, so
    // nothing but the printing comes after the look.
    await client.close()
    client = undefined
    closeDatabase(db)
    if (global.stillListed && !global.stillListed())
      throw new CliFailure(
        `The profile of ${global.db} was removed as this sync ended: what it wrote went with it.`,
        'NOT_FOUND',
      )
    output.result(result, human)
    return 0
  } finally {
    process.removeListener('SIGINT', interrupt)
    output.endProgress()
    await client?.close()
    closeDatabase(db)
  }
}

/** The full orders whose latest copy could not be kept, by order and why: the rep's last good copy stays. */
function unreadableText(unreadable: readonly { guid: string; reason: string }[] = []): string {
  if (unreadable.length === 0) return ''
  return `, ${unreadable.length} could not be read (${unreadable.map((order) => `${order.guid}: ${order.reason}`).join('; ')})`
}

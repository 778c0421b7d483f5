/**
 * `pictures status` and `pictures fetch`: the item pictures' cache beside the profile's database, and a
 * pass that fills it now (laptop imaging, a check before a trip) the way the app does while idle.
 */
import { existsSync } from 'node:fs'
import { closeDatabase } from '../db/database'
import { createPictureDemand } from '../core/picture-demand'
import {
  damagedCacheWords,
  openItemPictures,
  picturesFolder,
  type OpenedPictures,
  type PassReport,
  type PictureDemand,
  type PictureStatus,
} from '../pictures'
import { openLocalData, type LocalData } from '../local/data'
import { orderLookupOf } from '../orders/local-lookup'
import { ServiceClient } from '../ordering-client/client'
import { silentLogger, systemClock } from '../ports'
import { AppSettings } from '../settings/app-settings'
import { UsualItems } from '../usual-items/usual'
import { refuseWhileItemsWait } from './catalog-update'
import { cliConnection } from './connection'
import { openExisting } from './database'
import { UsageError, type GlobalOptions, type Output } from './errors'

const megabyte = 1024 * 1024
const mb = (bytes: number) => `${(bytes / megabyte).toFixed(1)} MB`

function describe(status: PictureStatus): string {
  return [
    `Pictures        ${status.cached} cached, ${mb(status.bytes)} of a ${mb(status.budget)} budget`,
    `Waiting         ${status.waiting}`,
    `Failed          ${status.failed} (tried again after a back-off)`,
  ].join('\n')
}

function open(
  global: GlobalOptions,
  local: LocalData,
  service: ServiceClient | null,
  origin: string,
  demand: PictureDemand,
): OpenedPictures {
  const settings = new AppSettings(local.db)
  const opened = openItemPictures({
    sources: local.pictureSources,
    databasePath: global.db,
    serviceOrigin: () => origin,
    service,
    demand,
    budgetMB: () => settings.get().pictureBudgetMB,
    logger: silentLogger,
  })
  if (opened.cache.damagedIndexAside)
    process.stderr.write(`satchel: ${damagedCacheWords(opened.cache.damagedIndexAside)}\n`)
  return opened
}

export async function runPicturesStatus(global: GlobalOptions, output: Output): Promise<number> {
  const db = openExisting(global.db, 'read')
  const local = openLocalData(db)
  try {
    const budget = new AppSettings(db).get().pictureBudgetMB * megabyte
    // A profile whose pictures were never fetched has no folder, and status does not make one.
    let status: PictureStatus = {
      cached: 0,
      bytes: 0,
      budget,
      waiting: local.pictureSources.countLive(),
      failed: 0,
    }
    if (existsSync(picturesFolder(global.db))) {
      const opened = open(global, local, null, 'https://localhost', { wanted: () => [] })
      try {
        status = opened.pictures.status()
      } finally {
        await opened.close()
      }
    }
    output.result({ ...status }, describe(status))
    return 0
  } finally {
    closeDatabase(db)
  }
}

export async function runPicturesFetch(
  global: GlobalOptions,
  request: { customer?: string; limit?: number },
  output: Output,
): Promise<number> {
  const db = openExisting(global.db, 'write')
  const local = openLocalData(db)
  let opened: OpenedPictures | undefined
  let client: ServiceClient | undefined
  const controller = new AbortController()
  const interrupt = () => controller.abort()
  process.once('SIGINT', interrupt)
  try {
    refuseWhileItemsWait(local)
    const connection = cliConnection(global, db, 'pictures fetch')
    client = new ServiceClient({ connection, retry: { maxAttempts: 3 } })
    let guids: string[] | undefined
    if (request.customer !== undefined) {
      const lookup = orderLookupOf(local)
      if (!lookup.customer(request.customer))
        throw new UsageError(`No customer ${request.customer} in the local database`)
      guids = new UsualItems(local, lookup, systemClock).list(request.customer, 500).map((item) => item.guid)
    }
    opened = open(global, local, client, new URL(connection.baseUrl).origin, createPictureDemand(local, systemClock))
    output.progress?.('fetching item pictures…')
    const report: PassReport = await opened.pictures.pass({
      ...(guids ? { guids } : { idle: true }),
      ...(request.limit !== undefined ? { limit: request.limit } : {}),
      signal: controller.signal,
    })
    output.endProgress()
    const status = opened.pictures.status()
    const figures = opened.fetcher.figures
    const human = [
      `Fetched         ${report.fetched} new, ${report.unchanged} unchanged (304), ${report.current} already current`,
      `Not fetched     ${report.failed} failed, ${report.backingOff} backing off, ${report.deferred} waiting for the service, ${report.none} with no picture`,
      `Freed           ${report.freed} of deleted items, ${report.evicted} evicted for the budget`,
      `Requests        ${figures.requests} to image hosts (${mb(figures.bytes)}), ${report.serviceReads} item reads to the service`,
      describe(status),
    ].join('\n')
    output.result(
      {
        ...report,
        imageRequests: figures.requests,
        imageBytes: figures.bytes,
        notModified: figures.notModified,
        status,
      },
      human,
    )
    return 0
  } finally {
    process.removeListener('SIGINT', interrupt)
    await opened?.close()
    await client?.close()
    closeDatabase(db)
  }
}

/**
 * A Satchel store and sync engine against the ordering-service double, for the sync integration
 * tests. Retries do not really wait: the sleeps they ask for are recorded instead.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import type { ServiceAuth } from '../../src/main/ordering-client/connection'
import { ServiceClient } from '../../src/main/ordering-client/client'
import { browseQueries, type BrowseQueries } from '../../src/main/browse'
import { Retention } from '../../src/main/local/retention'
import { LocalCopy } from '../../src/main/local/copy'
import { SyncEngine, type SyncRunOptions } from '../../src/main/sync/engine'
import type { SyncSource } from '../../src/main/sync/scopes'
import { sourceSyncThread, startWorkerWriter, type PageWriter } from '../../src/main/sync/page-writer'
import type { SyncReport } from '../../src/shared/synced'
import { startService } from '../service/index'
import type { RunningService, ServiceSize, StartServiceOptions } from '../service/types'
import { openLocalData, type LocalData } from '../../src/main/local/data'

export const itemsRoute = 'GET /v1/catalog/:catalogGuid/catalog_items'

export interface HarnessOptions {
  size?: ServiceSize
  seed?: number
  auth?: 'apiKey' | 'session'
  /** The laptop's clock relative to the real one. */
  clockOffsetMs?: number
  pageSize?: number
  concurrency?: number
  faults?: StartServiceOptions['faults']
  /** Whether the double compresses its replies (default: it does, as a service behind a web server). */
  compress?: boolean
  /** Wraps the client, to watch or disturb the pages as they arrive. */
  source?: (client: ServiceClient) => SyncSource
  /**
   * Where pages are decoded and written: on sync's reader and writer threads, as in the app (the
   * default), or on this thread (the inline writer, a database in memory's).
   */
  writer?: 'threads' | 'inline'
  /** Wraps the writer, to watch its pages (the threads' only). */
  watchWriter?: (writer: PageWriter) => PageWriter
}

export interface Harness {
  service: RunningService
  db: Database
  store: LocalCopy
  queries: BrowseQueries
  local: LocalData
  retention: Retention
  client: ServiceClient
  /** Milliseconds each retry asked to wait. */
  sleeps: number[]
  sync(options?: SyncRunOptions): Promise<SyncReport>
  /** A client with other credentials, sharing nothing with the harness's. */
  clientWith(auth: ServiceAuth): ServiceClient
  close(): Promise<void>
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const service = await startService({
    size: options.size ?? 'tiny',
    seed: options.seed ?? 7,
    faults: options.faults,
    ...(options.compress === undefined ? {} : { compress: options.compress }),
  })
  const directory = mkdtempSync(join(tmpdir(), 'satchel-sync-'))
  const db = openDatabase(join(directory, 'satchel.db'))
  const retention = new Retention(db)
  const store = new LocalCopy(db, retention)
  const sleeps: number[] = []
  const credentials = service.credentials
  const auth: ServiceAuth =
    options.auth === 'session'
      ? {
          kind: 'session',
          userGuid: credentials.userGuid,
          userToken: credentials.userToken,
          supplierGuid: credentials.supplierGuid,
        }
      : { kind: 'apiKey', apiKey: credentials.apiKey, apiSecret: credentials.apiSecret }
  const clients: ServiceClient[] = []
  const clientWith = (clientAuth: ServiceAuth) => {
    const made = new ServiceClient({
      connection: { baseUrl: service.url, auth: clientAuth },
      retry: { maxAttempts: 3 },
      sleep: async (ms) => void sleeps.push(ms),
    })
    clients.push(made)
    return made
  }
  const client = clientWith(auth)
  const source = options.source ? options.source(client) : client
  const clock = { now: () => Date.now() + (options.clockOffsetMs ?? 0) }
  const writer =
    options.writer === 'inline'
      ? undefined
      : (options.watchWriter ?? ((made: PageWriter) => made))(
          await startWorkerWriter(sourceSyncThread, { databasePath: db.name }),
        )
  const engine = new SyncEngine({
    copy: store,
    source,
    ...(writer ? { writer } : {}),
    clock,
    pageSize: options.pageSize ?? 25,
    concurrency: options.concurrency ?? 4,
  })
  const local = openLocalData(db)
  return {
    service,
    db,
    store,
    queries: browseQueries(local),
    local,
    retention,
    client,
    sleeps,
    sync: (runOptions) => engine.run(runOptions),
    clientWith,
    async close() {
      await writer?.close()
      await Promise.all(clients.map((made) => made.close()))
      await service.close()
      closeDatabase(db)
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

/** Guids of the catalog's live items on the double (not soft-deleted; inactive ones included). */
export function serverItemGuids(harness: Harness, catalogGuid: string): string[] {
  return harness.service.control
    .catalogItems(catalogGuid)
    .filter((item) => item.deleted_at === null)
    .map((item) => String(item.guid))
    .sort()
}

export function localItemGuids(harness: Harness, catalogGuid: string): string[] {
  return harness.db
    .prepare<[string], string>(
      'SELECT guid FROM catalog_items WHERE catalog_guid = ? AND deleted_at IS NULL AND unlisted_at IS NULL ORDER BY guid',
    )
    .pluck()
    .all(catalogGuid)
}

export function serverCustomerGuids(harness: Harness): string[] {
  return harness.service.control
    .customers()
    .filter((customer) => customer.deleted_at === null)
    .map((customer) => String(customer.guid))
    .sort()
}

export function localCustomerGuids(harness: Harness): string[] {
  return harness.db
    .prepare<[], string>('SELECT guid FROM customers WHERE deleted_at IS NULL AND unlisted_at IS NULL ORDER BY guid')
    .pluck()
    .all()
}

export function liveCatalogGuids(harness: Harness): string[] {
  return harness.service.control
    .catalogs()
    .filter((catalog) => catalog.deleted_at === null)
    .map((catalog) => String(catalog.guid))
}

/** Requests to a route, with their query, from the double's log. */
export function requestsTo(
  harness: Harness,
  route: string,
): { query: Record<string, unknown>; status: number; url: string }[] {
  return harness.service.control
    .requestLog()
    .filter((entry) => entry.route === route)
    .map((entry) => ({ query: entry.query, status: entry.status, url: entry.url }))
}

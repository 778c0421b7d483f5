import type { Worker } from 'node:worker_threads'
import type { ConnectivityMonitor, ConnectivityMonitorOptions } from '../connectivity'
import type { Database } from '../db/database'
import type { EventStream } from '../events'
import type { OutboxActivity, Orders } from '../orders'
import type { Clock, DesktopPort, EventSink, Keychain, Logger, NetworkPort, ProfilesPort, SyncGate } from '../ports'
import type { ConnectionSettings } from '../settings/connection'
import type { Sync } from '../sync'
import type { SyncThreadData } from '../sync/page-writer'
import type { PurgeWorkerData } from '../housekeeping/purge-slices'
import type { HandlerTable } from './handlers'
import type { CorePictures } from './pictures'

export interface CoreConfig {
  /** SQLite file; ':memory:' for throwaway cores in tests. */
  databasePath: string
  /** better_sqlite3.node for the running runtime, when it is not the one in node_modules. */
  nativeBinding?: string
  appName?: string
  appVersion: string
  /** The rep's locale (the shell's app.getLocale()), for amounts in the core's messages; default en-US. */
  locale?: string
  ports?: {
    clock?: Clock
    logger?: Logger
    secrets?: Keychain
    events?: EventSink
    /** Whether any network is up; without it, only the service's answers say. */
    network?: NetworkPort
    desktop?: DesktopPort
    /**
     * Starts sync's threads, the writer and the page reader (data.role), from the build's bundled
     * entries for src/main/sync/writer-thread.ts and reader-thread.ts. A source checkout (tsx,
     * tests) starts them by itself; without either, pages are read and written on the main thread.
     */
    syncThread?: (data: SyncThreadData) => Worker
    /**
     * Starts the purge's thread, from the build's bundled entry for src/main/housekeeping/purge-worker.ts.
     * A source checkout starts it by itself; without either, the purge's slices run on the main thread.
     */
    purgeWorker?: (data: PurgeWorkerData) => Worker
    /** Taken by every sync, shared across profiles so one runs at a time. */
    syncGate?: SyncGate
    /** The profile manager above this core (list, switch, add, remove). */
    profiles?: ProfilesPort
  }
  /** How often connectivity is checked; the defaults suit a laptop, tests want seconds. */
  connectivity?: Pick<
    ConnectivityMonitorOptions,
    'pollIntervalMs' | 'activeOnlineMs' | 'activeOfflineMs' | 'recheckOnlineMs' | 'recheckOfflineMs' | 'probe'
  >
  /**
   * Fetch item pictures in the background (after each sync, and every 15 minutes): the desktop app
   * and the bridge's demo turn it on; tests leave it off, so the service's request log is sync's
   * alone, and run a pass themselves (core.pictures.pass()).
   */
  backgroundPictures?: boolean
  /** Sync at start-up and every settings.syncIntervalMinutes (default true; tests that drive sync themselves turn it off). */
  backgroundSync?: boolean
  /** See OpenDatabaseOptions.largeCatalogItems: lowered by tests of a large catalog's upgrade. */
  largeCatalogItems?: number
  /**
   * Awaited before each slice of the catalog update (sync/catalog-update.ts). Tests hold the update part-way,
   * to look at the app while it runs; the app passes none.
   */
  beforeCatalogUpdateSlice?: () => Promise<void>
}

export interface Core {
  handlers: HandlerTable
  events: EventStream
  /** For the CLI and tests that drive the core below the contract. */
  readonly db: Database
  readonly connection: ConnectionSettings
  /** The scheduler, the local copy it fills, and the retention hook for drafts. */
  readonly sync: Sync
  /** Drafts, the outbox, its flusher and driver. */
  readonly orders: Orders
  /** What the desktop shell watches to hold a quit or an update restart while an order is on the wire. */
  readonly outboxActivity: OutboxActivity
  /** Whether the ordering service answers; checked in the background, refreshed on demand. */
  readonly connectivity: ConnectivityMonitor
  /** Item pictures: the cache the shell's protocol reads, filled in the background; null for a throwaway core. */
  readonly pictures: CorePictures | null
  close(): Promise<void>
}

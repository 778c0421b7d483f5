/**
 * A core per profile, above createCore: the profile on screen serves every call and its events reach
 * the window; every other profile with orders waiting keeps its core open in the background, so its
 * outbox driver sends them (and its connectivity watch notices the service come back). One sync runs
 * at a time across profiles, the profile on screen first (sync-gate.ts). Orders reach an outbox from
 * outside the app too (`satchel order queue --profile`), so every profile's outbox is looked at on a
 * schedule of its own, not only on the app's events.
 */
import { existsSync } from 'node:fs'
import { methodNames } from '../../shared/channels'
import type { SatchelEvent } from '../../shared/contract'
import type { ProfileList, ProfileSummary } from '../../shared/profiles'
import { createCore } from '../core/compose'
import type { Core, CoreConfig } from '../core/types'
import type { HandlerTable } from '../core/handlers'
import { closeDatabase, openDatabase, type Database } from '../db/database'
import { CoreError } from '../errors'
import { EventHub, type EventStream } from '../events'
import type { OutboxActivity } from '../orders'
import { OutboxReader } from '../orders/outbox/reader'
import { silentLogger, systemClock, type Clock, type Logger, type ProfilesPort, type SecretStore } from '../ports'
import {
  deleteDatabaseFiles,
  fenceProfileDatabase,
  profileHoldings,
  refuseRemoval,
  supplierNameIn,
  type ProfileHoldings,
} from './holdings'
import { forgetProfileSecrets, profileKeychain } from './keychain'
import { ProfileRegistry, supplierOrigin, type Profile } from './registry'
import { SyncTurns } from './sync-gate'

export interface ProfileManagerOptions {
  dataDir: string
  /** The keychain beneath every profile's; each profile sees it through its prefix. */
  secrets: SecretStore
  /** A profile's core config, less what the manager gives each core: database, keychain, sync gate, profiles. */
  coreConfig: (profile: Profile) => Omit<CoreConfig, 'databasePath'>
  clock?: Clock
  logger?: Logger
  /**
   * How often every profile's outbox is looked at for orders another process queued (the CLI): a
   * closed profile with orders waiting is opened so its driver sends them, an open one is told to
   * send. Default 30 s.
   */
  outboxCheckMs?: number
}

export interface ProfileManager extends ProfilesPort {
  /** Every contract method, answered by the profile on screen. */
  readonly handlers: HandlerTable
  /** The profile on screen's events, and profilesChanged. */
  readonly events: EventStream
  /** Across every open profile: the quit and update-restart questions count every profile's orders. */
  readonly outboxActivity: OutboxActivity
  onScreen(): { profile: Profile; core: Core }
  /** The cores open now, on screen and in the background. */
  openCores(): Core[]
  close(): Promise<void>
}

/** Orders the driver will send by itself: queued, retrying, or cut off while sending. */
function waiting(db: Core['db']): number {
  const counts = OutboxReader.counts(db)
  return counts.queued + counts.sending + counts.retrying
}

export function createProfileManager(options: ProfileManagerOptions): ProfileManager {
  const clock = options.clock ?? systemClock
  const logger = options.logger ?? silentLogger
  const registry = ProfileRegistry.open(options.dataDir)
  // A data folder from before profiles: the list is written, pointing at satchel.db as it is. An
  // empty folder (the app's first start) gets its first profile, so the app starts with no setup.
  registry.save()
  registry.ensureOne(new Date(clock.now()).toISOString())
  const turns = new SyncTurns()
  const hub = new EventHub()
  const cores = new Map<string, { core: Core; unsubscribe: () => void }>()
  const closing = new Map<string, Promise<void>>()
  let onScreenId = registry.resolve().id
  let windowVisible: boolean | null = null
  let closed = false

  const nowIso = () => new Date(clock.now()).toISOString()
  const profileOf = (id: string): Profile => {
    const profile = registry.byId(id)
    if (!profile) throw new CoreError('NOT_FOUND', 'That profile no longer exists.')
    return profile
  }

  function holdingsOf(profile: Profile): ProfileHoldings {
    return readProfile(profile, (db) => profileHoldings(db, clock.now()), {
      unsent: 0,
      needsAttention: 0,
      openQuotes: 0,
    })
  }

  /** A read of a profile's database: the open core's, else the file read-only; `none` when it has none. */
  function readProfile<T>(profile: Profile, read: (db: Database) => T, none: T): T {
    const open = cores.get(profile.id)
    if (open) return read(open.core.db)
    const path = registry.databasePath(profile)
    if (!existsSync(path)) return none
    const db = openDatabase(path, { readOnly: true, create: false })
    try {
      return read(db)
    } finally {
      closeDatabase(db)
    }
  }

  function summary(profile: Profile): ProfileSummary {
    let holdings: ProfileHoldings = { unsent: 0, needsAttention: 0, openQuotes: 0 }
    try {
      holdings = holdingsOf(profile)
    } catch (error) {
      logger.warn('a profile’s counts could not be read', {
        profile: profile.id,
        error: error instanceof Error ? error.message : String(error),
      })
    }
    let supplierName: string | null = null
    try {
      supplierName = readProfile(profile, supplierNameIn, null)
    } catch {
      // The name is a courtesy: without it the switcher shows the profile's name alone.
    }
    return {
      id: profile.id,
      name: profile.name,
      supplier: profile.supplier,
      ...(supplierName ? { supplierName } : {}),
      unsent: holdings.unsent,
      needsAttention: holdings.needsAttention,
      onScreen: profile.id === onScreenId,
    }
  }

  const list = (): ProfileList => ({ profiles: registry.list().map(summary) })
  let announced = ''
  const announce = (current: ProfileList = list()) => {
    announced = JSON.stringify(current)
    hub.emit('profilesChanged', current)
  }

  /**
   * Another process may have queued an order in any profile's database (the CLI, while the app
   * runs): a closed profile with orders waiting is opened, as at start-up, and an open one with new
   * orders is told to send (its driver otherwise waits for an event of its own, a sync's end say).
   * The counts the switcher shows follow.
   */
  function checkOutboxes(): void {
    if (closed) return
    for (const profile of registry.list()) {
      try {
        const open = cores.get(profile.id)
        if (open) {
          if (OutboxReader.counts(open.core.db).queued > 0 && !open.core.outboxActivity.isSending())
            open.core.orders.driver.nudge()
          continue
        }
        if (closing.has(profile.id)) continue
        const holdings = holdingsOf(profile)
        if (holdings.unsent - holdings.needsAttention > 0) {
          logger.info('orders wait in a profile not open: sending them in the background', { profile: profile.id })
          openCore(profile)
        }
      } catch (error) {
        logger.warn('a profile’s outbox could not be looked at', {
          profile: profile.id,
          error: error instanceof Error ? error.message : String(error),
        })
      }
    }
    const current = list()
    if (JSON.stringify(current) !== announced) announce(current)
  }

  function relay(profileId: string, event: SatchelEvent): void {
    if (profileId === onScreenId) hub.emit(event.name, event.payload as never)
    // What follows is the manager's bookkeeping; a failure in it must not reach the core that emitted.
    try {
      if (event.name === 'connectionChanged') {
        registry.update(profileId, { supplier: supplierOrigin(event.payload.baseUrl) })
        announce()
      }
      if (event.name === 'outboxChanged') {
        announce()
        // A background profile whose last waiting order went has nothing left to do in the background.
        if (profileId !== onScreenId && event.payload.queued + event.payload.sending + event.payload.retrying === 0)
          void closeCore(profileId)
      }
    } catch (error) {
      logger.error('the profiles list could not be updated', {
        profile: profileId,
        error: error instanceof Error ? error.message : String(error),
      })
    }
  }

  function openCore(profile: Profile): Core {
    const existing = cores.get(profile.id)
    if (existing) return existing.core
    const base = options.coreConfig(profile)
    const core = createCore({
      ...base,
      databasePath: registry.databasePath(profile),
      ports: {
        ...base.ports,
        secrets: profileKeychain(options.secrets, profile.secretsNamespace),
        syncGate: turns.gateFor(profile.id),
        profiles: port,
      },
    })
    const unsubscribe = core.events.subscribe((event) => relay(profile.id, event))
    cores.set(profile.id, { core, unsubscribe })
    // The supplier a list from before profiles could not know, or one the CLI did not fill in.
    void core.connection
      .get()
      .then((connection) => {
        if (connection && !closed) registry.update(profile.id, { supplier: supplierOrigin(connection.baseUrl) })
      })
      .catch((error: unknown) =>
        logger.warn('a profile’s supplier could not be noted', {
          profile: profile.id,
          error: error instanceof Error ? error.message : String(error),
        }),
      )
    return core
  }

  function closeCore(id: string): Promise<void> {
    const open = cores.get(id)
    if (!open) return closing.get(id) ?? Promise.resolve()
    cores.delete(id)
    open.unsubscribe()
    const done = open.core
      .close()
      .catch((error: unknown) =>
        logger.error('a profile’s core did not close cleanly', {
          profile: id,
          error: error instanceof Error ? error.message : String(error),
        }),
      )
      .finally(() => closing.delete(id))
    closing.set(id, done)
    return done
  }

  const port: ProfilesPort = {
    list,
    databasePaths: () => new Map(registry.list().map((profile) => [profile.id, registry.databasePath(profile)])),
    async switchTo(id) {
      const profile = profileOf(id)
      if (id === onScreenId) return list()
      // A profile being closed in the background is opened again only once its database is free.
      await closing.get(id)
      const core = openCore(profile)
      const previous = onScreenId
      onScreenId = id
      turns.putFirst(id)
      registry.update(id, { lastUsedAt: nowIso() })
      if (windowVisible !== null) core.connectivity.setWindowVisible(windowVisible)
      const left = cores.get(previous)
      if (left) {
        left.core.connectivity.setWindowVisible(false)
        if (waiting(left.core.db) === 0) await closeCore(previous)
      }
      logger.info('profile on screen', { profile: id })
      announce()
      return list()
    },
    async add(name) {
      try {
        registry.add({ name, supplier: null }, nowIso())
      } catch (error) {
        if (error instanceof CoreError) throw error
        throw new CoreError(
          'INTERNAL',
          `The profile could not be added: ${error instanceof Error ? error.message : String(error)}`,
        )
      }
      announce()
      return list()
    },
    async remove(id) {
      const profile = profileOf(id)
      if (id === onScreenId)
        throw new CoreError('CONFLICT', `'${profile.name}' is on screen; switch to another profile before removing it.`)
      refuseRemoval(profile.name, holdingsOf(profile))
      await closeCore(id)
      // Counted again with the database fenced in the same transaction: the CLI may have queued an order meanwhile.
      fenceProfileDatabase(registry.databasePath(profile), profile.name, clock, 'app')
      registry.remove(id)
      deleteDatabaseFiles(registry.databasePath(profile))
      await forgetProfileSecrets(options.secrets, profile.secretsNamespace)
      logger.info('profile removed', { profile: id })
      announce()
      return list()
    },
  }

  const current = (): Core => {
    const open = cores.get(onScreenId)
    if (!open) throw new CoreError('CANCELLED', 'Satchel is shutting down.')
    return open.core
  }

  turns.putFirst(onScreenId)
  registry.update(onScreenId, { lastUsedAt: nowIso() })
  openCore(profileOf(onScreenId))
  for (const profile of registry.list()) {
    if (profile.id === onScreenId) continue
    try {
      const holdings = holdingsOf(profile)
      if (holdings.unsent - holdings.needsAttention > 0) openCore(profile)
    } catch (error) {
      logger.warn('a profile with waiting orders could not be opened', {
        profile: profile.id,
        error: error instanceof Error ? error.message : String(error),
      })
    }
  }

  const outboxCheck = setInterval(checkOutboxes, options.outboxCheckMs ?? 30_000)
  outboxCheck.unref()

  const handlers = Object.fromEntries(
    methodNames.map((method) => [
      method,
      (argument: unknown) => {
        if (method === 'setWindowVisible' && typeof argument === 'object' && argument !== null && 'visible' in argument)
          windowVisible = argument.visible === true
        return current().handlers[method](argument)
      },
    ]),
  ) as unknown as HandlerTable

  const all = () => [...cores.values()].map((open) => open.core)
  return {
    ...port,
    handlers,
    events: hub,
    outboxActivity: {
      isSending: () => all().some((core) => core.outboxActivity.isSending()),
      unsentCount: () => all().reduce((sum, core) => sum + core.outboxActivity.unsentCount(), 0),
      waitUntilIdle: async (timeoutMs) =>
        (await Promise.all(all().map((core) => core.outboxActivity.waitUntilIdle(timeoutMs)))).every(Boolean),
    },
    onScreen: () => ({ profile: profileOf(onScreenId), core: current() }),
    openCores: all,
    async close() {
      closed = true
      clearInterval(outboxCheck)
      await Promise.all([...cores.keys()].map(closeCore))
      await Promise.all(closing.values())
    },
  }
}

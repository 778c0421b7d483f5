import { syncOnReconnect, watchSyncEvents, type ConnectivityMonitor } from '../connectivity'
import type { EventHub } from '../events'
import type { Orders } from '../orders'
import type { DesktopPort } from '../ports'
import type { Sync } from '../sync'
import type { Purge } from '../housekeeping'

export interface ReactionParts {
  hub: EventHub
  sync: Sync
  orders: Orders
  connectivity: ConnectivityMonitor
  /** Tidies the database after a sync; absent where nothing is kept long (the fleet simulation). */
  purge?: Purge
  desktop?: DesktopPort
}

/** Sync, then send the outbox: at start-up, on connectivity's return, after wake, on new credentials. */
function syncAndFlush({ sync, orders }: Pick<ReactionParts, 'sync' | 'orders'>, reason: string): void {
  // The service is back (or the credentials changed, or the laptop woke): waiting orders need not
  // sit out the rest of their retry wait.
  orders.desk.outbox.retryNow()
  sync.scheduler.trigger(reason)
  orders.driver.nudge()
}

/**
 * What follows what across the core's parts, in one place: each part emits what happened to it, and
 * these listeners tell the others. Returns the unsubscribes, for close.
 */
export function wireReactions(parts: ReactionParts): (() => void)[] {
  const { hub, sync, orders, connectivity, purge, desktop } = parts
  return [
    connectivity.onChange((state) => hub.emit('connectivityChanged', state)),
    desktop?.updates?.onChange((state) => hub.emit('updateStateChanged', state)) ?? (() => undefined),
    hub.subscribe((event) => {
      switch (event.name) {
        case 'syncFinished':
          // Prices and customers are fresh: what waited to be sent goes now.
          orders.driver.nudge()
          // What the sync brought may have been the last thing waiting to go; tidy up behind it, a
          // slice at a time, after the outbox has had its turn.
          purge?.afterSync()
          break
        case 'settingsChanged':
          sync.scheduler.settingsChanged()
          break
        case 'connectionChanged':
          // New credentials may be the ones the service was refusing: the paused outbox tries again.
          orders.desk.outbox.resume()
          orders.changed()
          void connectivity.refresh('settings-changed')
          syncAndFlush(parts, 'connection-changed')
          break
      }
    }),
    // Every answer sync gets is proof the service is there; a failed run is a reason to look now.
    hub.subscribe(watchSyncEvents(connectivity)),
    // Back online (or on a new network): sync, then send what waited. A service coming back gets the
    // fleet's laptops' syncs spread over a window (the scheduler's). Waiting orders go at once after
    // the laptop's own outage (the driver attempted none while the app said Offline, and only this
    // tells it the service is back); after the service's own (it answered 5xx), every laptop's orders
    // wait at once, so each laptop sends within a short window of its own instead of all together.
    syncOnReconnect(connectivity, (reason, outage) => {
      if (reason !== 'back-online') return syncAndFlush(parts, reason)
      sync.scheduler.connectivityRestored(outage?.ms)
      orders.desk.outbox.retryNow()
      if (outage?.fleet) orders.driver.nudgeSpread()
      else orders.driver.nudge()
    }),
    // Orders waiting, or a sync running, keep the service watched closely; when they stop, rarely.
    hub.subscribe((event) => {
      if (event.name === 'outboxChanged' || event.name === 'syncStatusChanged') connectivity.attentionChanged()
    }),
  ]
}

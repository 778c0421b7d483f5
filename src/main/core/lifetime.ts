/**
 * The core's background work, started once the parts are wired and stopped in the one order that
 * lets each finish what it holds: nothing new is told (connectivity, reactions), then the parts that
 * write stop (purge, brief, pictures, the outbox, sync), then the clients and the database close.
 */
import type { ConnectivityMonitor } from '../connectivity'
import type { Brief } from '../brief'
import { closeDatabase, type Database } from '../db/database'
import type { ServiceClients } from '../ordering-client/clients'
import type { Orders } from '../orders'
import type { Sync } from '../sync'
import type { CorePictures } from './pictures'

interface LifetimeParts {
  db: Database
  connectivity: ConnectivityMonitor
  sync: Sync
  orders: Orders
  brief: Brief
  pictures: CorePictures | null
  purge: { stop(): Promise<void> }
  clients: ServiceClients
  unsubscribes: (() => void)[]
}

export function startBackground(parts: LifetimeParts, pictures: boolean): void {
  // Catalog work an upgrade left runs on the writer's thread from now; the window opens meanwhile.
  void parts.sync.startCatalogUpdate()
  parts.sync.scheduler.start()
  parts.connectivity.start()
  parts.orders.driver.start()
  parts.brief.warmSoon()
  if (pictures) parts.pictures?.start()
}

export async function closeCore(parts: LifetimeParts): Promise<void> {
  parts.connectivity.stop()
  for (const unsubscribe of parts.unsubscribes) unsubscribe()
  await parts.purge.stop()
  await parts.brief.close()
  await parts.pictures?.close()
  await parts.orders.close()
  await parts.sync.close()
  await parts.clients.close()
  closeDatabase(parts.db)
}

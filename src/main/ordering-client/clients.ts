import type { Clock, Logger } from '../ports'
import { ServiceClient } from './client'
import { ServicePools, type ServiceClientOptions } from './transport'
import type { ConnectionSource, ServiceConnection } from './connection'

/** What a caller may change of a client for one use: fewer retries for a rep who waits, a shorter connect. */
export type ClientOverrides = Pick<ServiceClientOptions, 'retry' | 'timeouts'>

/**
 * The one place that makes service clients for the core: every client shares the same keep-alive
 * pools, so sync's pages and the outbox's orders reuse connections, and one close ends them all.
 * Sync and orders both receive this; neither owns it.
 */
export class ServiceClients {
  private readonly pools = new ServicePools()

  constructor(
    private readonly options: {
      connection: ConnectionSource
      clock?: Clock
      logger?: Logger
      watch?: <T extends object>(client: T) => T
    },
  ) {}

  /** A client for the saved connection, or null when none is saved. */
  async forSaved(overrides: ClientOverrides = {}): Promise<ServiceClient | null> {
    const resolved = await this.options.connection.resolve()
    return resolved ? this.watched(this.forConnection(resolved, overrides)) : null
  }

  /** A client for a connection that is not (or not yet) the saved one, as "Test connection" needs. */
  forConnection(connection: ServiceConnection, overrides: ClientOverrides = {}): ServiceClient {
    const { clock, logger } = this.options
    return new ServiceClient({
      connection,
      pools: this.pools,
      ...(clock ? { clock } : {}),
      ...(logger ? { logger } : {}),
      ...overrides,
    })
  }

  /** Every request's outcome is told to whoever watches reachability (the connectivity monitor). */
  private watched(client: ServiceClient): ServiceClient {
    return this.options.watch ? this.options.watch(client) : client
  }

  close(): Promise<void> {
    return this.pools.closeAll()
  }
}

/**
 * Upkeep: the data kept tidy (sent orders and expired quotes purged by the retention settings, after
 * each sync) and the support bundle. Both read across orders, quotes and settings, and nothing below
 * the composers reads them.
 */
import type { Settings } from '../../shared/contract'
import type { Database } from '../db/database'
import type { DraftRepository } from '../orders/drafts'
import type { Outbox } from '../orders/outbox'
import type { Clock, Logger } from '../ports'
import type { QuoteRepository } from '../quotes/repository'
import { Purge } from './purge'
import { buildSupportBundle, type SupportBundleSources } from './support-bundle'

export { Purge } from './purge'

export interface Upkeep {
  purge: Purge
  /** The support bundle's zip, as bytes. */
  supportBundle: () => Promise<Buffer>
}

export function createUpkeep(parts: {
  db: Database
  outbox: Outbox
  drafts: DraftRepository
  quotes: QuoteRepository
  settings: () => Pick<Settings, 'keepSentOrdersMonths' | 'keepExpiredQuotesDays'>
  clock: Clock
  logger: Logger
  syncing: () => boolean
  bundle: Omit<SupportBundleSources, 'db' | 'clock'>
}): Upkeep {
  const { db, clock } = parts
  return {
    purge: new Purge({ db, outbox: parts.outbox, drafts: parts.drafts, quotes: parts.quotes, settings: parts.settings, clock, logger: parts.logger, syncing: parts.syncing }),
    supportBundle: async () => (await buildSupportBundle({ ...parts.bundle, db, clock })).bytes,
  }
}

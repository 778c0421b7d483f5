/**
 * Housekeeping: the data kept tidy (sent orders and expired quotes purged by the retention settings, after
 * each sync) and the support bundle. Both read across orders, quotes and settings, and nothing below
 * the composers reads them.
 */
import { Purge, type PurgeParts } from './purge'
import { buildSupportBundle, type SupportBundleSources } from './support-bundle'

export { Purge } from './purge'

export interface Housekeeping {
  purge: Purge
  /** The support bundle's zip, as bytes. */
  supportBundle: () => Promise<Buffer>
}

export function createHousekeeping(
  parts: PurgeParts & { bundle: Omit<SupportBundleSources, 'db' | 'clock'> },
): Housekeeping {
  const { bundle, ...purgeParts } = parts
  return {
    purge: new Purge(purgeParts),
    supportBundle: async () => (await buildSupportBundle({ ...bundle, db: parts.db, clock: parts.clock })).bytes,
  }
}

/**
 * Housekeeping: the data kept tidy (sent orders and expired quotes purged by the retention settings, after
 * each sync) and the support bundle. Both read across orders, quotes and settings, and nothing below
 * the composers reads them.
 */
import { Purge, type PurgeParts } from './purge'
import type { LocalData } from '../local/data'
import { buildSupportBundle, type SupportBundleSources } from './support-bundle'

export { Purge } from './purge'

export interface Housekeeping {
  purge: Purge
  /** The support bundle's zip, as bytes. */
  supportBundle: () => Promise<Buffer>
}

export function createHousekeeping(
  parts: PurgeParts & { local: LocalData; bundle: Omit<SupportBundleSources, 'local' | 'clock'> },
): Housekeeping {
  const { bundle, local, ...purgeParts } = parts
  return {
    purge: new Purge(purgeParts),
    supportBundle: async () => (await buildSupportBundle({ ...bundle, local, clock: parts.clock })).bytes,
  }
}

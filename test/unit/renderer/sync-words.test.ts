import { describe, expect, it } from 'vitest'
import type { SyncProgress } from '../../../src/shared/synced'
import { syncProgressText } from '../../../src/renderer/src/sync-words'

/**
 * The status bar's progress from 90% to 0% between catalogs (issue 54): each step's bar is its own,
 * so the words name the step, and a catalog's items say which catalog of how many they are.
 */
function progress(partial: Partial<SyncProgress>): SyncProgress {
  return {
    scope: 'customers',
    resource: 'customers',
    catalogGuid: null,
    phase: 'listing',
    pagesDone: 0,
    pagesTotal: null,
    rowsDone: 0,
    rowsTotal: null,
    ...partial,
  }
}

describe('the sync’s progress in words', () => {
  it('a bar that starts again names the next step: customers at 90%, then the first catalog’s items at 0%', () => {
    expect(syncProgressText(progress({ rowsDone: 90, rowsTotal: 100 }), null, 90)).toBe('Syncing customers… 90%')
    const spring = progress({
      scope: 'catalogItems:a',
      resource: 'catalogItems',
      catalogGuid: 'a',
      catalogOf: { number: 1, count: 3 },
    })
    expect(syncProgressText(spring, 'Spring', 0)).toBe('Syncing catalog items of Spring (1 of 3)… 0%')
    expect(
      syncProgressText(
        { ...spring, scope: 'catalogItems:b', catalogGuid: 'b', catalogOf: { number: 2, count: 3 } },
        'Summer',
        40,
      ),
    ).toBe('Syncing catalog items of Summer (2 of 3)… 40%')
  })

  it('one catalog needs no count; a name not read yet, or a bar without a total, says less but no less truly', () => {
    const only = progress({
      scope: 'catalogItems:a',
      resource: 'catalogItems',
      catalogGuid: 'a',
      catalogOf: { number: 1, count: 1 },
    })
    expect(syncProgressText(only, 'Spring', 12)).toBe('Syncing catalog items of Spring… 12%')
    expect(syncProgressText({ ...only, catalogOf: { number: 2, count: 2 } }, null, null)).toBe(
      'Syncing catalog items (catalog 2 of 2)…',
    )
    expect(syncProgressText(progress({ scope: 'orders', resource: 'orders' }), null, 5)).toBe('Syncing orders… 5%')
  })
})

import { createPinia, setActivePinia } from 'pinia'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SatchelEvent } from '../../../src/shared/contract'
import type { OrderChange } from '../../../src/shared/order-tracking'

/**
 * The "changed since I last looked" marks: the navigation's count and the Orders list read one list
 * of changes, which opening an order shortens and a finished sync refreshes. Against a fake core
 * behind window.satchel, which is what api.ts reads.
 */
function change(guid: string): OrderChange {
  return {
    guid,
    name: `HP-${guid}`,
    customerGuid: 'customer-1',
    customerName: 'Harbor Hardware',
    state: { id: 8, name: 'SHIPPED' },
    summary: 'Shipped 2 of 3 lines, 1 backordered',
    createdAt: '2026-11-25T09:00:00.000Z',
    changed: true,
  }
}

let changed: OrderChange[] = []
const calls: string[] = []
let listeners: ((event: SatchelEvent) => void)[] = []

const fake = {
  listChangedOrders: async () => (calls.push('listChangedOrders'), { ok: true, value: changed }),
  markOrderOpened: async ({ guid }: { guid: string }) => {
    calls.push(`markOrderOpened ${guid}`)
    changed = changed.filter((other) => other.guid !== guid)
    return { ok: true, value: { changedCount: changed.length } }
  },
  onEvent(listener: (event: SatchelEvent) => void) {
    listeners.push(listener)
    return () => (listeners = listeners.filter((other) => other !== listener))
  },
}

let useTrackingStore: typeof import('../../../src/renderer/src/stores/tracking').useTrackingStore

beforeAll(async () => {
  vi.stubGlobal('window', { satchel: fake })
  ;({ useTrackingStore } = await import('../../../src/renderer/src/stores/tracking'))
})

beforeEach(() => {
  listeners = []
  calls.length = 0
  changed = [change('a'), change('b')]
  setActivePinia(createPinia())
})

async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 0))
}

describe('changed orders', () => {
  it('opening an order clears its mark and lowers the count', async () => {
    const tracking = useTrackingStore()
    await tracking.loadChanges()
    expect(tracking.changedCount).toBe(2)
    expect(tracking.changeOf.get('a')?.summary).toBe('Shipped 2 of 3 lines, 1 backordered')
    await tracking.opened('a')
    expect(calls).toContain('markOrderOpened a')
    expect(tracking.changedCount).toBe(1)
    expect(tracking.changeOf.has('a')).toBe(false)
  })

  it('a finished sync brings the new marks, once the list was loaded', async () => {
    const tracking = useTrackingStore()
    const syncFinished = () => {
      for (const listener of listeners)
        listener({
          name: 'syncFinished',
          payload: { ok: true, full: false, resources: {} as never, scopes: [], durationMs: 1, error: null },
        })
    }
    syncFinished()
    await settle()
    expect(calls).toEqual([])
    await tracking.loadChanges()
    changed = [...changed, change('c')]
    syncFinished()
    await settle()
    expect(tracking.changedCount).toBe(3)
    expect(calls.filter((call) => call === 'listChangedOrders')).toHaveLength(2)
  })
})

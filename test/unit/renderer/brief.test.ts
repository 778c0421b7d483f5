import { createPinia, setActivePinia } from 'pinia'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { CustomerBrief } from '../../../src/shared/brief'
import type { SatchelEvent } from '../../../src/shared/contract'
import type { Connectivity } from '../../../src/shared/desktop'
import type { AppError } from '../../../src/shared/result'

/**
 * The brief on the customer's page: the local brief first, then the history read from the service
 * once per visit when it is missing or a day old and the service answers; offline, the local brief
 * and no word of failure; any other refusal in the notices. Against a fake core behind window.satchel.
 */
function brief(fetchedAt: string | null, tag: string): CustomerBrief {
  return {
    customer: { guid: 'c-1', name: `Harbor Hardware ${tag}` },
    history: {
      from: '2026-03-03',
      complete: fetchedAt !== null,
      fetchedAt,
      note: fetchedAt === null ? 'Orders since 3 March only; connect to read the rest' : null,
    },
    months: [],
    topItems: [],
    lapsed: [],
    backordered: [],
    newItems: 0,
    newItemsCatalogGuid: null,
    lastOrderedAt: null,
    credit: null,
    currency: null,
  }
}

let local: CustomerBrief
let refreshAnswer: { ok: true; value: CustomerBrief } | { ok: false; error: AppError }
const calls: string[] = []
let listeners: ((event: SatchelEvent) => void)[] = []

const fake = {
  getCustomerBrief: async () => (calls.push('getCustomerBrief'), { ok: true, value: local }),
  refreshCustomerHistory: async () => (calls.push('refreshCustomerHistory'), refreshAnswer),
  onEvent(listener: (event: SatchelEvent) => void) {
    listeners.push(listener)
    return () => (listeners = listeners.filter((other) => other !== listener))
  },
  setWindowVisible: async () => ({ ok: true, value: null }),
  checkConnectivity: async () => ({ ok: true, value: null }),
}

type Stores = {
  useBriefStore: typeof import('../../../src/renderer/src/stores/brief').useBriefStore
  useConnectivityStore: typeof import('../../../src/renderer/src/stores/connectivity').useConnectivityStore
  useNoticesStore: typeof import('../../../src/renderer/src/stores/notices').useNoticesStore
}
let stores: Stores

beforeAll(async () => {
  vi.stubGlobal('window', { satchel: fake, addEventListener: () => undefined })
  vi.stubGlobal('document', { visibilityState: 'visible', addEventListener: () => undefined })
  const [brief, connectivity, notices] = await Promise.all([
    import('../../../src/renderer/src/stores/brief'),
    import('../../../src/renderer/src/stores/connectivity'),
    import('../../../src/renderer/src/stores/notices'),
  ])
  stores = { ...brief, ...connectivity, ...notices }
})

function online(isOnline: boolean): void {
  const connectivity: Connectivity = {
    online: isOnline,
    status: isOnline ? 'online' : 'offline',
    detail: '',
    cause: null,
    checkedAt: Date.now(),
  }
  stores.useConnectivityStore().connectivity = connectivity
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 0))
}

beforeEach(() => {
  listeners = []
  calls.length = 0
  local = brief(null, 'local')
  refreshAnswer = { ok: true, value: brief(new Date().toISOString(), 'read') }
  setActivePinia(createPinia())
})

describe('the brief on the customer’s page', () => {
  it('online with no history: the local brief first, then the one read from the service, once per visit', async () => {
    online(true)
    const briefs = stores.useBriefStore()
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const answer = refreshAnswer
    fake.refreshCustomerHistory = async () => (calls.push('refreshCustomerHistory'), await held, answer)
    await briefs.open('c-1')
    expect(briefs.byCustomer['c-1']!.customer.name).toBe('Harbor Hardware local')
    expect(briefs.byCustomer['c-1']!.history.note).toBe('Orders since 3 March only; connect to read the rest')
    expect(briefs.refreshing['c-1']).toBe(true)
    release()
    await settle()
    expect(briefs.byCustomer['c-1']!.customer.name).toBe('Harbor Hardware read')
    expect(briefs.refreshing['c-1']).toBeUndefined()
    // The service answering again later in the same visit does not read it again.
    await briefs.refreshIfDue('c-1')
    expect(calls).toEqual(['getCustomerBrief', 'refreshCustomerHistory'])
    fake.refreshCustomerHistory = async () => (calls.push('refreshCustomerHistory'), refreshAnswer)
  })

  it('a history read within the day is not read again', async () => {
    online(true)
    local = brief(new Date(Date.now() - 60 * 60_000).toISOString(), 'local')
    await stores.useBriefStore().open('c-1')
    await settle()
    expect(calls).toEqual(['getCustomerBrief'])
  })

  it('a history read more than a day ago is read again', async () => {
    online(true)
    local = brief(new Date(Date.now() - 25 * 60 * 60_000).toISOString(), 'local')
    await stores.useBriefStore().open('c-1')
    await settle()
    expect(calls).toEqual(['getCustomerBrief', 'refreshCustomerHistory'])
  })

  it('offline: the local brief, no read, no notice; the service answering again reads it then', async () => {
    online(false)
    const briefs = stores.useBriefStore()
    await briefs.open('c-1')
    await settle()
    expect(calls).toEqual(['getCustomerBrief'])
    expect(stores.useNoticesStore().notices).toEqual([])
    online(true)
    await briefs.refreshIfDue('c-1')
    expect(calls).toEqual(['getCustomerBrief', 'refreshCustomerHistory'])
    expect(briefs.byCustomer['c-1']!.history.complete).toBe(true)
  })

  it('the service gone by the time it is asked: the local brief stays, and nothing is said', async () => {
    online(true)
    refreshAnswer = { ok: false, error: { code: 'UNAVAILABLE', message: 'The service did not answer' } }
    const briefs = stores.useBriefStore()
    await briefs.open('c-1')
    await settle()
    expect(briefs.byCustomer['c-1']!.customer.name).toBe('Harbor Hardware local')
    expect(stores.useNoticesStore().notices).toEqual([])
  })

  it('any other refusal is told in the notices, and the local brief stays', async () => {
    online(true)
    refreshAnswer = { ok: false, error: { code: 'UNAUTHORIZED', message: 'The service refused the API key' } }
    const briefs = stores.useBriefStore()
    await briefs.open('c-1')
    await settle()
    expect(briefs.byCustomer['c-1']!.customer.name).toBe('Harbor Hardware local')
    expect(stores.useNoticesStore().notices.map((notice) => notice.title)).toEqual([
      'Could not read the customer’s history from the service: The service refused the API key',
    ])
  })

  it('a new visit asks again when the history is still missing', async () => {
    online(true)
    refreshAnswer = { ok: true, value: brief(null, 'still short') }
    const briefs = stores.useBriefStore()
    await briefs.open('c-1')
    await settle()
    await briefs.open('c-1')
    await settle()
    expect(calls).toEqual(['getCustomerBrief', 'refreshCustomerHistory', 'getCustomerBrief', 'refreshCustomerHistory'])
  })

  it('the core telling that a history changed reads the brief on screen again, and no other', async () => {
    online(false)
    const briefs = stores.useBriefStore()
    await briefs.open('c-1')
    local = brief(new Date().toISOString(), 'after a sync')
    const changed = (customerGuid: string) => {
      for (const listener of listeners) listener({ name: 'customerHistoryChanged', payload: { customerGuid } })
    }
    changed('c-2')
    changed('c-1')
    await settle()
    expect(calls).toEqual(['getCustomerBrief', 'getCustomerBrief'])
    expect(briefs.byCustomer['c-1']!.customer.name).toBe('Harbor Hardware after a sync')
    expect(briefs.byCustomer['c-2']).toBeUndefined()
  })

  it('the page starts the visit as it loads the customer; the brief’s panel joins it, one read', async () => {
    online(false)
    const briefs = stores.useBriefStore()
    await Promise.all([briefs.open('c-1'), briefs.visit('c-1')])
    expect(calls).toEqual(['getCustomerBrief'])
    // Back to the page later: a visit of its own.
    await briefs.open('c-1')
    expect(calls).toEqual(['getCustomerBrief', 'getCustomerBrief'])
  })
})

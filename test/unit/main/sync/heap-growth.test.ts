import { describe, expect, it, vi } from 'vitest'

const setFlagsFromString = vi.hoisted(() => vi.fn())
vi.mock('node:v8', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:v8')>()),
  setFlagsFromString,
}))

const { SyncEngine } = await import('../../../../src/main/sync/engine')
const { openDatabase, closeDatabase } = await import('../../../../src/main/db/database')
const { LocalCopy } = await import('../../../../src/main/local/copy')
const { Retention } = await import('../../../../src/main/local/retention')

describe('heap growth', () => {
  it('is limited for the whole process by the first sync engine made, once, in the running V8 (the packaged app takes no command-line flags)', () => {
    const db = openDatabase(':memory:')
    const store = new LocalCopy(db, new Retention(db))
    const source = { listCatalogs: vi.fn(), listCustomers: vi.fn(), listCatalogItems: vi.fn(), listOrders: vi.fn() }
    expect(setFlagsFromString).not.toHaveBeenCalled()
    new SyncEngine({ copy: store, source, clock: { now: () => 0 } })
    new SyncEngine({ copy: store, source, clock: { now: () => 0 } })
    expect(setFlagsFromString.mock.calls).toEqual([['--heap-growing-percent=100']])
    closeDatabase(db)
  })
})

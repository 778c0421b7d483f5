/**
 * The sync engine's rules against a small in-memory service with offset paging and the spec's 60 s
 * overlap. The same rules are checked against the real double in test/integration/sync-*.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import type { ListParams, Page } from '../../../../src/main/ordering-client/client'
import { ServiceError } from '../../../../src/main/ordering-client/errors'
import type { CatalogItemRecord, CatalogRecord, OrderRecord } from '../../../../src/main/ordering-client/schemas'
import { browseQueries, type BrowseQueries } from '../../../../src/main/browse'
import { Retention } from '../../../../src/main/local/retention'
import { LocalCopy } from '../../../../src/main/local/copy'
import { SyncEngine } from '../../../../src/main/sync/engine'
import type { SyncSource } from '../../../../src/main/sync/scopes'
import { inlineWriter } from '../../../../src/main/sync/page-writer'
import { countTurns } from '../../../support/turn-counter'
import { catalogItem } from '../../../support/builders'
import { openLocalData } from '../../../../src/main/local/data'

const catalogGuid = 'cat-1'

interface Request {
  what: 'items' | 'customers' | 'orders' | 'catalogs'
  offset: number
  limit: number
  lastUpdatedAt: string | null
}

class FakeService implements SyncSource {
  nowMs = Date.UTC(2025, 0, 1)
  items: CatalogItemRecord[] = []
  requests: Request[] = []
  /** Called before each item page is answered; may throw or change the data (drift). */
  beforeItemPage: (request: Request) => void = () => {}

  constructor(count: number) {
    for (let i = 1; i <= count; i++) this.items.push(this.newItem(i))
  }

  newItem(id: number): CatalogItemRecord {
    return catalogItem(id, { sku: `S${id}`, pricing: { Retail: id }, updated_at: this.iso() })
  }

  iso(): string {
    return new Date(this.nowMs).toISOString()
  }

  tick(ms = 1000): string {
    this.nowMs += ms
    return this.iso()
  }

  async listCatalogs(): Promise<CatalogRecord[]> {
    this.requests.push({ what: 'catalogs', offset: 0, limit: 0, lastUpdatedAt: null })
    return [
      {
        id: 1,
        guid: catalogGuid,
        name: 'Main',
        active: true,
        updated_at: '2025-01-01T00:00:00Z',
        Price_Groups: [{ id: 5, guid: 'pg', value: 'Retail', is_main: true }],
      },
    ]
  }

  async listCustomers(params: ListParams): Promise<Page<never>> {
    this.requests.push({
      what: 'customers',
      offset: params.offset,
      limit: params.limit,
      lastUpdatedAt: params.lastUpdatedAt ?? null,
    })
    return { rows: [], serverTimestamp: this.iso(), total: 0, hasMore: false }
  }

  orders: OrderRecord[] = []

  async listOrders(params: ListParams): Promise<Page<OrderRecord>> {
    this.requests.push({
      what: 'orders',
      offset: params.offset,
      limit: params.limit,
      lastUpdatedAt: params.lastUpdatedAt ?? null,
    })
    const start = params.offset * params.limit
    const rows = params.lastUpdatedAt ? [] : this.orders.slice(start, start + params.limit)
    return {
      rows: structuredClone(rows),
      serverTimestamp: this.iso(),
      total: params.lastUpdatedAt ? 0 : this.orders.length,
      hasMore: !params.lastUpdatedAt && start + params.limit < this.orders.length,
    }
  }

  async listCatalogItems(
    _catalog: string,
    params: ListParams & { skipTotalCount?: boolean },
  ): Promise<Page<CatalogItemRecord>> {
    const request = {
      what: 'items' as const,
      offset: params.offset,
      limit: params.limit,
      lastUpdatedAt: params.lastUpdatedAt ?? null,
    }
    this.requests.push(request)
    this.beforeItemPage(request)
    let rows: CatalogItemRecord[]
    if (params.lastUpdatedAt) {
      const since = Date.parse(params.lastUpdatedAt) - 60_000
      if (Number.isNaN(since))
        throw new ServiceError('invalidCursor', 'bad cursor', { status: 400, code: 'INVALID_DELTA_CURSOR' })
      rows = this.items.filter((row) => Date.parse(row.deleted_at ?? row.updated_at ?? '') >= since)
    } else {
      rows = this.items.filter((row) => !row.deleted_at)
    }
    const start = params.offset * params.limit
    return {
      rows: structuredClone(rows.slice(start, start + params.limit)),
      serverTimestamp: this.iso(),
      total: params.skipTotalCount ? null : rows.length,
      hasMore: start + params.limit < rows.length,
    }
  }

  itemRequests(): Request[] {
    return this.requests.filter((r) => r.what === 'items')
  }
}

let directory: string
let db: Database
let store: LocalCopy
let queries: BrowseQueries
let retention: Retention

function engine(service: FakeService, clockMs = Date.UTC(2030, 5, 1)): SyncEngine {
  return new SyncEngine({ copy: store, source: service, clock: { now: () => clockMs }, pageSize: 10, concurrency: 3 })
}

function liveGuids(): string[] {
  return db
    .prepare('SELECT guid FROM catalog_items WHERE deleted_at IS NULL AND unlisted_at IS NULL ORDER BY id')
    .pluck()
    .all() as string[]
}

function serverLiveGuids(service: FakeService): string[] {
  return service.items
    .filter((i) => !i.deleted_at)
    .sort((a, b) => (a.id ?? 0) - (b.id ?? 0))
    .map((i) => i.guid)
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-engine-'))
  db = openDatabase(join(directory, 'satchel.db'))
  retention = new Retention(db)
  store = new LocalCopy(db, retention)
  queries = browseQueries(openLocalData(db))
})

afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

describe('SyncEngine', () => {
  it('commits the first page serverTimestamp as the cursor and sends it back next run', async () => {
    const service = new FakeService(35)
    const firstPageTime = service.iso()
    service.beforeItemPage = () => void service.tick()
    const report = await engine(service).run()
    expect(report.ok).toBe(true)
    // The listing's catch-up delta re-reads rows inside the 60 s overlap; they change nothing.
    expect(report.resources.catalogItems).toMatchObject({ upserted: 35, deleted: 0 })
    expect(liveGuids()).toHaveLength(35)
    // The first page was answered after one tick; later pages carried later timestamps.
    const cursor = store.scope(`catalogItems:${catalogGuid}`).cursor
    expect(cursor).toBe(new Date(Date.parse(firstPageTime) + 1000).toISOString())
    service.requests = []
    await engine(service).run()
    expect(service.itemRequests()[0]?.lastUpdatedAt).toBe(cursor)
  })

  it('a full disk while writing pages is reported DISK_FULL for the database, not INTERNAL', async () => {
    // SQLite's code reaches the writer (the worker passes it on): it must not be lost on the way.
    const writer = inlineWriter(store, db.name)
    store.applyItemPage = () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
    }
    const report = await new SyncEngine({
      copy: store,
      writer,
      source: new FakeService(20),
      clock: { now: () => Date.UTC(2030, 5, 1) },
      pageSize: 10,
      concurrency: 1,
    }).run()
    expect(report.ok).toBe(false)
    expect(report.error?.code).toBe('DISK_FULL')
    expect(report.error?.message).toContain(`The disk holding the database at ${db.name} is full`)
  })

  it('resumes an interrupted first listing and refetches only the pages it lacks', async () => {
    const service = new FakeService(100) // 10 pages of 10
    let served = 0
    service.beforeItemPage = (request) => {
      if (request.lastUpdatedAt === null && request.limit === 10 && ++served === 5)
        throw new ServiceError('unreachable', 'cable pulled')
    }
    const failed = await engine(service).run()
    expect(failed.ok).toBe(false)
    expect(failed.error?.code).toBe('UNAVAILABLE')
    const done = store.pagesDone(`catalogItems:${catalogGuid}`).size
    expect(done).toBeGreaterThanOrEqual(4)

    service.beforeItemPage = () => {}
    service.requests = []
    const resumed = await engine(service).run()
    expect(resumed.ok).toBe(true)
    expect(resumed.scopes.find((s) => s.scope.startsWith('catalogItems'))?.resumed).toBe(true)
    const listingPages = service.itemRequests().filter((r) => r.lastUpdatedAt === null && r.limit === 10)
    expect(listingPages.length).toBe(10 - done)
    expect(liveGuids()).toEqual(serverLiveGuids(service))
  })

  it('repairs drift: rows deleted and inserted on the service while paging', async () => {
    const service = new FakeService(60)
    await engine(service).run({ full: true })
    let pages = 0
    service.beforeItemPage = (request) => {
      if (request.lastUpdatedAt !== null || request.limit !== 10) return
      pages++
      if (pages === 3) {
        // Rows early in the listing vanish (the next rows shift into pages already read)...
        const gone = service.items.find((i) => i.id === 2)!
        gone.deleted_at = service.tick()
        service.items = service.items.filter((i) => i.id !== 3)
        // ...and a new row appears.
        service.items.push(service.newItem(1000))
      }
    }
    const report = await engine(service).run({ full: true })
    expect(report.ok).toBe(true)
    expect(report.scopes.find((s) => s.scope.startsWith('catalogItems'))?.driftRepaired).toBe(true)
    expect(liveGuids()).toEqual(serverLiveGuids(service))
    expect(liveGuids()).not.toContain('item-3')
    expect(liveGuids()).toContain('item-1000')
  })

  it('recovers from INVALID_DELTA_CURSOR with a full listing in the same run, keeping rows a draft needs', async () => {
    const service = new FakeService(20)
    await engine(service).run()
    retention.register((kind, guids) => (kind === 'catalogItem' ? guids.filter((g) => g === 'item-7') : []))
    service.items = service.items.filter((i) => i.id !== 7 && i.id !== 8)
    db.prepare("UPDATE sync_scopes SET cursor = 'yesterday-ish' WHERE scope = ?").run(`catalogItems:${catalogGuid}`)
    const report = await engine(service).run()
    expect(report.ok).toBe(true)
    expect(report.scopes.find((s) => s.scope.startsWith('catalogItems'))).toMatchObject({
      cursorReset: true,
      mode: 'full',
    })
    expect(liveGuids()).toEqual(serverLiveGuids(service))
    expect(queries.catalogs.getCatalogItem({ guid: 'item-7' })?.status).toBe('unlisted')
    expect(queries.catalogs.getCatalogItem({ guid: 'item-8' })).toBeNull()
    // The next run is a delta again.
    service.requests = []
    await engine(service).run()
    expect(service.itemRequests()[0]?.lastUpdatedAt).toMatch(/^2025-/)
  })

  it('gives each waiting page a turn of the event loop of its own', async () => {
    // Pages that arrive together used to be written in the same turn (each awaited setImmediate,
    // and every immediate queued before a check phase runs in that phase): 8 pages waiting were 8
    // pages' work between two timers, a stall of 60-140 ms in the bench's first sync.
    const service = new FakeService(200)
    const writer = inlineWriter(store)
    const turns = countTurns()
    const turnsOfPages: number[] = []
    const applyCatalogItems = writer.applyCatalogItems
    writer.applyCatalogItems = (catalog, rows, context) => {
      turnsOfPages.push(turns.now())
      return applyCatalogItems(catalog, rows, context)
    }
    const report = await new SyncEngine({
      copy: store,
      writer,
      source: service,
      clock: { now: () => Date.UTC(2030, 5, 1) },
      pageSize: 10,
      concurrency: 4,
    }).run()
    turns.stop()
    expect(report.ok).toBe(true)
    expect(turnsOfPages.length).toBeGreaterThanOrEqual(20)
    expect(new Set(turnsOfPages).size).toBe(turnsOfPages.length)
  })

  it('fetches the recent orders while the item indexes a first listing deferred are built', async () => {
    // The build (a second or more at 100,000 items) used to come before the orders were asked for:
    // over a WAN the whole orders listing waited for it.
    const service = new FakeService(50)
    service.orders = Array.from({ length: 45 }, (_, index) => ({
      id: index + 1,
      guid: `order-${index + 1}`,
      name: `EQ-${index + 1}`,
      updated_at: service.iso(),
    }))
    const writer = inlineWriter(store)
    let build: () => void = () => {}
    const building = new Promise<void>((resolve) => (build = resolve))
    let built = false
    const finishBulk = writer.finishBulk
    let ordersAskedBeforeBuilt = 0
    writer.finishBulk = async () => {
      // Done when the orders' later pages are asked for, or after 300 ms without them.
      setTimeout(build, 300)
      await building
      built = true
      await finishBulk()
    }
    const source: SyncSource = {
      listCatalogs: () => service.listCatalogs(),
      listCustomers: (params) => service.listCustomers(params),
      listCatalogItems: (catalog, params) => service.listCatalogItems(catalog, params),
      listOrders: (params) => {
        if (!built && params.offset > 0 && !params.lastUpdatedAt) ordersAskedBeforeBuilt++
        if (params.offset === 4) setTimeout(build, 5)
        return service.listOrders(params)
      },
    }
    const report = await new SyncEngine({
      copy: store,
      writer,
      source,
      clock: { now: () => Date.UTC(2030, 5, 1) },
      pageSize: 10,
      concurrency: 3,
    }).run({ full: true })
    expect(report.ok).toBe(true)
    expect(ordersAskedBeforeBuilt).toBe(4)
    expect(report.resources.orders.upserted).toBe(45)
    expect(db.prepare('SELECT count(*) FROM orders').pluck().get()).toBe(45)
  })

  it('records the run, then has the writer thread checkpoint, without waiting for it', async () => {
    // A delta of 1,000 changes spent 150 of its 430 ms in two checkpoints inside the writer's commits,
    // and this thread's next commit after a run ran the rest of the WAL's checkpoint, the window's.
    const service = new FakeService(30)
    const steps: string[] = []
    const writer = {
      ...inlineWriter(store),
      onThisThread: false,
      checkpoint: () => (steps.push('checkpoint'), new Promise<void>(() => {})),
    }
    const recordRun = store.recordRun.bind(store)
    store.recordRun = (...args) => {
      steps.push(
        `recordRun (this connection checkpoints every ${db.pragma('wal_autocheckpoint', { simple: true })} pages)`,
      )
      recordRun(...args)
    }
    const report = await new SyncEngine({
      copy: store,
      writer,
      source: service,
      clock: { now: () => Date.UTC(2030, 5, 1) },
      pageSize: 10,
      concurrency: 3,
    }).run()
    expect(report.ok).toBe(true)
    expect(steps).toEqual(['recordRun (this connection checkpoints every 0 pages)', 'checkpoint'])
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
  })

  it('has the writer count each catalog it listed in full; a delta keeps the counts as it writes, and a count gone wrong is listed and counted again', async () => {
    const service = new FakeService(25)
    const asked: string[][] = []
    const inline = inlineWriter(store)
    const writer = {
      ...inline,
      recountItems: (catalogGuids: string[]) => (asked.push(catalogGuids), inline.recountItems(catalogGuids)),
    }
    const run = () =>
      new SyncEngine({
        copy: store,
        writer,
        source: service,
        clock: { now: () => Date.UTC(2030, 5, 1) },
        pageSize: 10,
        concurrency: 3,
      }).run()
    expect((await run()).ok).toBe(true)
    const kept = () =>
      db.prepare('SELECT sum(live) FROM catalog_item_counts WHERE catalog_guid = ?').pluck().get(catalogGuid)
    expect(kept()).toBe(25)
    service.tick(120_000)
    service.items[0]!.deleted_at = service.tick()
    expect((await run()).resources.catalogItems.deleted).toBe(1)
    expect(kept()).toBe(24)
    expect(queries.catalogs.listCatalogs().map((c) => c.itemCount)).toEqual([24])
    service.tick(120_000)
    expect((await run()).resources.catalogItems).toMatchObject({ upserted: 0, deleted: 0 })
    expect(asked).toEqual([[catalogGuid], [], []])

    // The delta's check of the catalog's rows reads the kept count: one gone wrong differs from the
    // service's, and the full listing that repairs it counts the catalog again.
    db.prepare('UPDATE catalog_item_counts SET live = live + 5 WHERE catalog_guid = ? AND category_id IS NULL').run(
      catalogGuid,
    )
    service.tick(120_000)
    const repaired = await run()
    expect(repaired.scopes.find((scope) => scope.scope === `catalogItems:${catalogGuid}`)?.driftRepaired).toBe(true)
    expect(kept()).toBe(24)
    expect(asked.at(-1)).toEqual([catalogGuid])
  })

  it("has the writer count a scope's rows after its listing or delta, never the window's thread", async () => {
    const service = new FakeService(25)
    const counted: string[] = []
    // The writer's own store, as on its thread: the engine's is the window's.
    const inline = inlineWriter(new LocalCopy(db, retention))
    const writer = {
      ...inline,
      countRows: (resource: Parameters<typeof inline.countRows>[0], scope: string | null, listingId: number | null) => (
        counted.push(`${resource} ${listingId === null ? 'live' : 'listed'}`),
        inline.countRows(resource, scope, listingId)
      ),
    }
    for (const name of ['countLive', 'countListedLive'] as const) {
      store[name] = () => {
        throw new Error(`${name} on the window's thread`)
      }
    }
    const run = () =>
      new SyncEngine({
        copy: store,
        writer,
        source: service,
        clock: { now: () => Date.UTC(2030, 5, 1) },
        pageSize: 10,
        concurrency: 3,
      }).run()
    const first = await run()
    expect(first.ok).toBe(true)
    service.tick(120_000)
    expect((await run()).ok).toBe(true)
    expect(counted).toEqual([
      'customers listed',
      'catalogItems listed',
      'orders listed',
      'customers live',
      'catalogItems live',
      'orders live',
    ])
  })

  it('asks for the next page once a reply is received, not once it is decoded, with no more requests on the wire', async () => {
    // Over a WAN each request is a round trip; a reply decoded on this thread (JSON and checks, several
    // milliseconds a page, longer when replies arrive together) kept its request slot idle meanwhile.
    const service = new FakeService(200)
    let onWire = 0
    let mostOnWire = 0
    let listed = 0
    let returned = 0
    let askedBeforeAnyReturned = false
    let fourthAsked = () => {}
    const fourth = new Promise<void>((resolve) => (fourthAsked = resolve))
    const source: SyncSource = {
      listCatalogs: () => service.listCatalogs(),
      listCustomers: (params) => service.listCustomers(params),
      listOrders: (params) => service.listOrders(params),
      listCatalogItems: async (catalog, params, options) => {
        // The listing's pages (the catch-up and the count go out together at its end).
        if (params.lastUpdatedAt || params.limit !== 10 || params.offset === 0)
          return service.listCatalogItems(catalog, params)
        listed++
        if (listed === 4) {
          askedBeforeAnyReturned = returned === 0
          fourthAsked()
        }
        onWire++
        mostOnWire = Math.max(mostOnWire, onWire)
        await new Promise((resolve) => setTimeout(resolve, 1))
        onWire--
        options.onReceived?.()
        // The first three replies are decoded slowly: until a fourth request goes out, or 300 ms.
        if (listed <= 3) await Promise.race([fourth, new Promise((resolve) => setTimeout(resolve, 300))])
        returned++
        return service.listCatalogItems(catalog, params)
      },
    }
    const report = await new SyncEngine({
      copy: store,
      source,
      clock: { now: () => Date.UTC(2030, 5, 1) },
      pageSize: 10,
      concurrency: 3,
    }).run({ full: true })
    expect(report.ok).toBe(true)
    expect(liveGuids()).toEqual(serverLiveGuids(service))
    expect(askedBeforeAnyReturned).toBe(true)
    expect(mostOnWire).toBe(3)
    // No page beyond the last is asked for.
    expect(
      service
        .itemRequests()
        .filter((r) => !r.lastUpdatedAt && r.limit === 10)
        .map((r) => r.offset)
        .sort((a, b) => a - b),
    ).toEqual([...Array(20).keys()])
  })

  /**
   * A first sync against a writer that takes 3 ms a page, at 3 requests, 4 decoded pages and 8 asked
   * ahead; the source waits `waits` times before decoding each page, as the client does once and
   * again for a reply it asks for again. Gives the most pages asked and decoded ahead of the writer.
   */
  async function slowWriterSync(waits: number) {
    const service = new FakeService(300)
    const inline = inlineWriter(store)
    let asked = 0
    let decoded = 0
    let written = 0
    let mostAsked = 0
    let mostDecoded = 0
    const writer = {
      ...inline,
      applyCatalogItems: async (...args: Parameters<typeof inline.applyCatalogItems>) => {
        await new Promise((resolve) => setTimeout(resolve, 3))
        const counts = await inline.applyCatalogItems(...args)
        written++
        return counts
      },
    }
    const source: SyncSource = {
      listCatalogs: () => service.listCatalogs(),
      listCustomers: (params) => service.listCustomers(params),
      listOrders: (params) => service.listOrders(params),
      listCatalogItems: async (catalog, params, options) => {
        const listing = !params.lastUpdatedAt && params.limit === 10
        if (listing) {
          asked++
          mostAsked = Math.max(mostAsked, asked - written)
        }
        await new Promise((resolve) => setTimeout(resolve, 1))
        options.onReceived?.()
        for (let wait = 0; wait < waits; wait++) await options.beforeDecode?.()
        if (listing) {
          decoded++
          mostDecoded = Math.max(mostDecoded, decoded - written)
        }
        return service.listCatalogItems(catalog, params)
      },
    }
    const report = await new SyncEngine({
      copy: store,
      writer,
      source,
      clock: { now: () => Date.UTC(2030, 5, 1) },
      pageSize: 10,
      concurrency: 3,
      writeAhead: 4,
      fetchAhead: 8,
    }).run({ full: true })
    expect(report.ok).toBe(true)
    expect(liveGuids()).toEqual(serverLiveGuids(service))
    return { mostAsked, mostDecoded }
  }

  it('decodes no more pages than writeAhead ahead of a slow writer, and goes on asking up to fetchAhead + concurrency - 1', async () => {
    // The writer pauses (a checkpoint); the requests go on, their replies kept as bytes until there
    // is room: over a slow link the link stays busy, and only writeAhead pages are held decoded.
    const { mostAsked, mostDecoded } = await slowWriterSync(1)
    // Decoded and waiting: the writeAhead, and the next catalog's first pages asked ahead of its turn
    // (concurrency of them), decoded as they came.
    expect(mostDecoded).toBeLessThanOrEqual(4 + 3)
    expect(mostAsked).toBeLessThanOrEqual(8 + 3 - 1)
    // The asking went on past what was decoded: before fetchAhead, it stopped at writeAhead + concurrency - 1.
    expect(mostAsked).toBeGreaterThan(4 + 3 - 1)
  })

  it('keeps one place for a page whose reply waits to be decoded twice (asked for again)', async () => {
    // A place taken twice and given back once would shrink the writeAhead for the rest of the pass.
    const { mostDecoded } = await slowWriterSync(2)
    expect(mostDecoded).toBeLessThanOrEqual(4 + 3)
    expect(mostDecoded).toBeGreaterThanOrEqual(4)
  })

  it("asks for the next scope's first page while the scope before finishes its catch-up and count", async () => {
    // A scope ends with a round trip of its own (the catch-up and the count): over a WAN, one round
    // trip more per scope when the next scope's first request waited for it.
    const service = new FakeService(30)
    service.orders = Array.from(
      { length: 5 },
      (_, i) => ({ guid: `o-${i}`, id: i, updated_at: service.iso() }) as OrderRecord,
    )
    const firstAsked = { items: () => {}, orders: () => {} }
    const asked = {
      items: new Promise<boolean>((resolve) => (firstAsked.items = () => resolve(true))),
      orders: new Promise<boolean>((resolve) => (firstAsked.orders = () => resolve(true))),
    }
    const askedBeforeCount = { customers: false, items: false }
    const notAfter = (what: Promise<boolean>) =>
      Promise.race([what, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 300))])
    const source: SyncSource = {
      listCatalogs: () => service.listCatalogs(),
      listCustomers: async (params) => {
        if (params.limit === 1) askedBeforeCount.customers = await notAfter(asked.items)
        return service.listCustomers(params)
      },
      listCatalogItems: async (catalog, params) => {
        if (params.limit === 1) askedBeforeCount.items = await notAfter(asked.orders)
        if (params.offset === 0 && params.limit === 10 && !params.lastUpdatedAt) firstAsked.items()
        return service.listCatalogItems(catalog, params)
      },
      listOrders: async (params) => {
        if (params.offset === 0 && !params.lastUpdatedAt) firstAsked.orders()
        return service.listOrders(params)
      },
    }
    const report = await new SyncEngine({
      copy: store,
      source,
      clock: { now: () => Date.UTC(2030, 5, 1) },
      pageSize: 10,
      concurrency: 3,
    }).run({ full: true })
    expect(report.ok).toBe(true)
    expect(askedBeforeCount).toEqual({ customers: true, items: true })
    expect(liveGuids()).toEqual(serverLiveGuids(service))
    expect(db.prepare('SELECT count(*) FROM orders').pluck().get()).toBe(5)
    expect(report.scopes.map((scope) => scope.scope)).toEqual(['customers', `catalogItems:${catalogGuid}`, 'orders'])
  })

  it('writes nothing of a scope whose first page was asked for early when the scope before stops the run', async () => {
    const service = new FakeService(30)
    const source: SyncSource = {
      listCatalogs: () => service.listCatalogs(),
      listCustomers: async (params) => {
        if (params.limit === 1) throw new ServiceError('unreachable', 'cable pulled')
        return service.listCustomers(params)
      },
      listCatalogItems: (catalog, params) => service.listCatalogItems(catalog, params),
      listOrders: (params) => service.listOrders(params),
    }
    const report = await new SyncEngine({
      copy: store,
      source,
      clock: { now: () => Date.UTC(2030, 5, 1) },
      pageSize: 10,
      concurrency: 3,
    }).run({ full: true })
    expect(report.ok).toBe(false)
    expect(report.scopes.map((scope) => [scope.scope, scope.error])).toEqual([['customers', 'cable pulled']])
    expect(db.prepare('SELECT count(*) FROM catalog_item_rows').pluck().get()).toBe(0)
    expect(store.scope(`catalogItems:${catalogGuid}`).run).toBeNull()
  })

  it('keeps why a scope failed, written once the writes of the run are done', async () => {
    const service = new FakeService(30)
    service.beforeItemPage = (request) => {
      if (request.offset === 1) throw new ServiceError('unreachable', 'cable pulled')
    }
    const report = await engine(service).run()
    expect(report.ok).toBe(false)
    expect(store.scope(`catalogItems:${catalogGuid}`).lastError).toBe('cable pulled')
  })

  it('keeps why the catalogs failed, the first request of every run', async () => {
    const service = new FakeService(5)
    service.listCatalogs = async () => {
      throw new ServiceError('unreachable', 'The ordering service cannot be reached')
    }
    const report = await engine(service).run()
    expect(report.ok).toBe(false)
    expect(store.allScopes().find((scope) => scope.scope === 'catalogs')?.lastError).toBe(
      'The ordering service cannot be reached',
    )
  })

  it("tells its progress once a scope's first page is written, before the later pages arrive", async () => {
    const service = new FakeService(35)
    const progress: {
      scope: string
      phase: string
      pagesDone: number
      pagesTotal: number | null
      rowsDone: number
      rowsTotal: number | null
    }[] = []
    const slowLater = service.listCatalogItems.bind(service)
    service.listCatalogItems = async (catalog: string, params: ListParams & { skipTotalCount?: boolean }) => {
      // The later pages arrive after the first is written (they are asked for meanwhile).
      if (params.offset >= 1 && !params.lastUpdatedAt) await new Promise((resolve) => setTimeout(resolve, 30))
      return slowLater(catalog, params)
    }
    const report = await engine(service).run({ onProgress: (update) => progress.push(update) })
    expect(report.ok).toBe(true)
    const items = progress.filter((p) => p.scope === `catalogItems:${catalogGuid}`)
    // The first word of the scope is its first page, written while the later ones are on their way.
    expect(items[0]).toMatchObject({ pagesDone: 1, pagesTotal: 4, rowsDone: 10, rowsTotal: 35 })
    expect(items.filter((p) => p.phase === 'listing').at(-1)).toMatchObject({
      pagesDone: 4,
      pagesTotal: 4,
      rowsDone: 35,
      rowsTotal: 35,
    })
  })

  it('is cancelled by its signal and reports CANCELLED', async () => {
    const service = new FakeService(50)
    const controller = new AbortController()
    service.beforeItemPage = (request) => {
      if (request.offset === 2) controller.abort()
    }
    const report = await engine(service).run({ signal: controller.signal })
    expect(report.ok).toBe(false)
    expect(report.error?.code).toBe('CANCELLED')
  })

  describe('a listing that does not end', () => {
    /** Every page is full of rows never seen before, and says there is more: no repeat to notice. */
    class EndlessService extends FakeService {
      next = 1

      constructor(readonly announced: number | null) {
        super(0)
      }

      override async listCatalogItems(
        _catalog: string,
        params: ListParams & { skipTotalCount?: boolean },
      ): Promise<Page<CatalogItemRecord>> {
        this.requests.push({
          what: 'items',
          offset: params.offset,
          limit: params.limit,
          lastUpdatedAt: params.lastUpdatedAt ?? null,
        })
        const rows = Array.from({ length: params.limit }, () => this.newItem(this.next++))
        return {
          rows,
          serverTimestamp: this.iso(),
          total: params.skipTotalCount ? null : this.announced,
          hasMore: true,
        }
      }
    }

    it('stops at twice the pages its total announced (and ten more), with an error naming the listing', async () => {
      const service = new EndlessService(50) // 5 pages of 10 announced
      const report = await engine(service).run()
      expect(report.ok).toBe(false)
      expect(report.error?.code).toBe('REJECTED')
      expect(report.error?.message).toContain('catalog items of "Main"')
      expect(report.error?.message).toMatch(/did not end/)
      // Pages 0 to 19: none past the cap is asked for.
      const offsets = service.itemRequests().map((request) => request.offset)
      expect(Math.max(...offsets)).toBe(2 * 5 + 10 - 1)
      expect(offsets.length).toBe(20)
      // Nothing was taken as a complete listing: no cursor, nothing pruned.
      expect(store.scope(`catalogItems:${catalogGuid}`).cursor).toBeNull()
    })

    it('without a total it can stand by, stops at maxListingPages', async () => {
      // A total of 3 the first (full) page already contradicts bounds nothing.
      const service = new EndlessService(3)
      const report = await new SyncEngine({
        copy: store,
        source: service,
        clock: { now: () => Date.UTC(2030, 5, 1) },
        pageSize: 10,
        concurrency: 3,
        maxListingPages: 40,
      }).run()
      expect(report.ok).toBe(false)
      expect(report.error?.message).toMatch(/did not end/)
      const line = report.scopes.find((scope) => scope.scope === `catalogItems:${catalogGuid}`)!
      expect(line.error).toMatch(/400 rows/)
      expect(service.itemRequests().length).toBe(40)
    })
  })
})

/**
 * What the sync engine holds of a page once it has handed it to the writer: nothing. The writer
 * thread has its own copy, and a first sync at a million items keeps eleven pages in flight; every
 * page still referenced on the window's thread meanwhile outlives the young generation's collections
 * and is moved to the old one, which only a full collection empties (bench:first-sync-memory).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import type { ListParams, Page } from '../../../../src/main/ordering-client/client'
import type { CatalogItemRecord, CatalogRecord, OrderRecord } from '../../../../src/main/ordering-client/schemas'
import { Retention } from '../../../../src/main/local/retention'
import { LocalCopy, type ApplyCounts } from '../../../../src/main/local/copy'
import { SyncEngine } from '../../../../src/main/sync/engine'
import type { SyncSource } from '../../../../src/main/sync/scopes'
import { inlineWriter, type PageWriter } from '../../../../src/main/sync/page-writer'
import { catalogItem } from '../../../support/builders'

setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

const catalogGuid = 'cat-1'
const pageSize = 10
const pages = 12

/** A catalog of `pages` full pages; every page is a fresh copy, as a reply parsed from the wire is. */
const source: SyncSource = {
  async listCatalogs(): Promise<CatalogRecord[]> {
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
  },
  async listCustomers(): Promise<Page<never>> {
    return { rows: [], serverTimestamp: '2025-01-01T00:00:00.000Z', total: 0, hasMore: false }
  },
  async listOrders(): Promise<Page<OrderRecord>> {
    return { rows: [], serverTimestamp: '2025-01-01T00:00:00.000Z', total: 0, hasMore: false }
  },
  async listCatalogItems(
    _catalog: string,
    params: ListParams & { skipTotalCount?: boolean },
  ): Promise<Page<CatalogItemRecord>> {
    const start = params.lastUpdatedAt ? pages * pageSize : params.offset * params.limit
    const rows = Array.from({ length: Math.max(0, Math.min(params.limit, pages * pageSize - start)) }, (_, index) => {
      const id = start + index + 1
      return catalogItem(id, {
        sku: `S${id}`,
        name: `Item ${id} ${'words '.repeat(20)}`,
        pricing: { Retail: id },
        updated_at: '2025-01-01T00:00:00Z',
      })
    })
    return {
      rows,
      serverTimestamp: '2025-01-01T00:00:00.000Z',
      total: params.skipTotalCount ? null : pages * pageSize,
      hasMore: start + params.limit < pages * pageSize,
    }
  },
}

let directory: string
let db: Database
let store: LocalCopy

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-engine-memory-'))
  db = openDatabase(join(directory, 'satchel.db'))
  store = new LocalCopy(db, new Retention(db))
})

afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('SyncEngine memory', () => {
  it('holds none of a page it handed to the writer while the writer still has it', async () => {
    // A writer that writes each page at once (as the writer thread copies it on arrival) and answers
    // only when the test lets it: meanwhile the page's records are the writer's business alone.
    const answers: (() => void)[] = []
    const handedOver: { page: number; record: WeakRef<CatalogItemRecord> }[] = []
    const inline = inlineWriter(store)
    const writer: PageWriter = {
      ...inline,
      applyCatalogItems: (guid, rows, context) => {
        const counts = store.applyCatalogItems(guid, rows, context)
        if (rows[0]) handedOver.push({ page: context.page?.page ?? -1, record: new WeakRef(rows[0]) })
        return new Promise<ApplyCounts>((resolve) => answers.push(() => resolve(counts)))
      },
    }
    const engine = new SyncEngine({
      copy: store,
      writer,
      source,
      clock: { now: () => Date.UTC(2030, 0, 1) },
      pageSize,
      concurrency: 4,
    })
    const running = engine.run({ full: true })

    // Until the engine has as many pages at the writer as it lets wait, and asks for no more.
    let waiting = -1
    while (handedOver.length !== waiting) {
      waiting = handedOver.length
      for (let i = 0; i < 20; i++) await turn()
    }
    expect(handedOver.length).toBeGreaterThanOrEqual(6)
    collectGarbage()
    await turn()
    collectGarbage()
    // The first page is kept for its scope (its listing's bookkeeping reads it): one page, not all.
    const stillHeld = handedOver
      .filter(({ page, record }) => page > 0 && record.deref() !== undefined)
      .map(({ page }) => page)
    expect(stillHeld).toEqual([])

    const answering = setInterval(() => answers.splice(0).forEach((answer) => answer()), 1)
    const report = await running
    clearInterval(answering)
    expect(report.error).toBeNull()
    expect(report.resources.catalogItems.upserted).toBe(pages * pageSize)
  })
})

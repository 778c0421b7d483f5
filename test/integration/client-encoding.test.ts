/**
 * Compressed replies against the double: Satchel asks for gzip and br on every request and inflates
 * as the reply streams; a service that compresses and one that does not give the same local copy; a
 * reply that claims an encoding and does not inflate is a fault of that request (retried, never
 * stored, said plainly when it persists); the ceilings hold for the inflated bytes too.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ServiceClient } from '../../src/main/ordering-client/client'
import type { Database } from '../../src/main/db/database'
import { catalogs } from '../service/helpers'
import { itemsRoute, localItemGuids, startHarness, type Harness } from './sync-support'
import { failure } from '../support/loopback-http'

const harnesses: Harness[] = []
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()))
})

async function harness(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const made = await startHarness({ seed: 23, ...options })
  harnesses.push(made)
  return made
}

/** The tables of the local copy: what the service sent, as stored (the sync's own bookkeeping left out). */
const copyTables = [
  'catalogs',
  'price_groups',
  'categories',
  'catalog_item_rows',
  'catalog_item_counts',
  'catalog_item_filters',
  'catalog_keys',
  'customers',
  'orders',
  'order_details',
]

/** Every row of every table of the local copy, as text, without what the laptop stamps with its own clock or run. */
function localRows(db: Database): Record<string, string[]> {
  const ownClock = /^(synced_at|listed_run|listing_id|seen_listing)$/
  const rows: Record<string, string[]> = {}
  for (const table of copyTables) {
    const columns = db
      .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
      .all()
      .map((column) => column.name)
      .filter((name) => !ownClock.test(name))
    expect(columns.length, table).toBeGreaterThan(0)
    const list = columns.map((name) => `"${name}"`).join(', ')
    rows[table] = db
      .prepare<[], Record<string, unknown>>(`SELECT ${list} FROM "${table}" ORDER BY ${list}`)
      .all()
      .map((row) =>
        JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('hex') : value)),
      )
  }
  return rows
}

describe('compressed replies', () => {
  it('asks for gzip and br on every request, and reads the compressed replies the double sends', async () => {
    const h = await harness()
    const report = await h.sync()
    expect(report.ok).toBe(true)
    const log = h.service.control.requestLog()
    expect(log.length).toBeGreaterThan(3)
    for (const entry of log) {
      expect(entry.headers['accept-encoding']).toContain('gzip')
      expect(entry.headers['accept-encoding']).toContain('br')
    }
    // The listings' pages went out compressed (a reply under 1 KB is sent as it is, as web servers do).
    expect(log.filter((entry) => entry.route === itemsRoute).some((entry) => entry.encoding === 'br')).toBe(true)
  })

  it('gives the same local copy, row for row, whether the service compresses or not', async () => {
    const compressed = await harness({ compress: true })
    const plain = await harness({ compress: false })
    expect((await compressed.sync()).ok).toBe(true)
    expect((await plain.sync()).ok).toBe(true)
    expect(compressed.service.control.requestLog().some((entry) => entry.encoding === 'br')).toBe(true)
    expect(plain.service.control.requestLog().every((entry) => entry.encoding === undefined)).toBe(true)
    const a = localRows(compressed.db)
    const b = localRows(plain.db)
    expect(Object.keys(a)).toEqual(Object.keys(b))
    expect(a.catalog_item_rows?.length).toBeGreaterThan(0)
    for (const table of Object.keys(a)) expect({ table, rows: a[table] }).toEqual({ table, rows: b[table] })
  })

  it('retries a reply that claims gzip and does not inflate, and stores nothing of it', async () => {
    const h = await harness()
    // Once: the retry gets the page, and the sync completes.
    h.service.control.addFault({ route: itemsRoute, type: 'badEncoding', encoding: 'gzip', times: 1 })
    expect((await h.sync()).ok).toBe(true)
    expect(h.sleeps.length).toBeGreaterThan(0)

    // Every time: the call fails after its attempts, saying why, and the catalog's items stay as they were.
    const fresh = await harness()
    const guid = catalogs(fresh.service).first.guid as string
    fresh.service.control.addFault({ route: itemsRoute, type: 'badEncoding', encoding: 'gzip' })
    const error = await failure(fresh.client.listCatalogItems(guid, { limit: 25, offset: 0 }))
    expect(error.kind).toBe('truncated')
    expect(error.transient).toBe(true)
    expect(error.message).toMatch(/claims to be gzip-encoded and does not inflate/)
    expect(error.message).toMatch(/3 attempts/)
    const report = await fresh.sync()
    expect(report.ok).toBe(false)
    expect(JSON.stringify(report)).toMatch(/does not inflate/)
    expect(localItemGuids(fresh, guid)).toEqual([])
  })

  it('refuses a 20 KB reply that inflates past the ceiling, with the ceiling’s message', async () => {
    const h = await harness()
    const catalogGuid = catalogs(h.service).first.guid as string
    const { apiKey, apiSecret } = h.service.credentials
    const small = new ServiceClient({
      connection: { baseUrl: h.service.url, auth: { kind: 'apiKey', apiKey, apiSecret } },
      maxReplyBytes: { page: 16 * 1024 * 1024 },
    })
    try {
      // gzip inflates about 1,000 times at most: 20 KB on the wire, 20 MB inflated, past a 16 MB ceiling.
      h.service.control.addFault({ route: itemsRoute, type: 'inflates', bytes: 20 * 1024 * 1024, encoding: 'gzip' })
      const error = await failure(small.listCatalogItems(catalogGuid, { limit: 25, offset: 0 }))
      const sent = h.service.control.requestLog().filter((logged) => logged.route === itemsRoute)
      expect(sent[0]?.sentBytes).toBeLessThanOrEqual(21 * 1024)
      expect(error.kind).toBe('tooLarge')
      expect(error.message).toMatch(/more than 16 MB in answer to GET \/v1\/catalog\/.*\/catalog_items/)
      expect(error.message).toMatch(/once inflated/)
      // Not retried, like any reply past its ceiling.
      expect(sent).toHaveLength(1)
    } finally {
      await small.close()
    }

    // br, at the app's own ceiling (32 MB for a page): a few hundred bytes that would inflate to 64 MB.
    h.service.control.clearFaults()
    h.service.control.clearRequestLog()
    h.service.control.addFault({ route: itemsRoute, type: 'inflates', bytes: 64 * 1024 * 1024, encoding: 'br' })
    const brotli = await failure(h.client.listCatalogItems(catalogGuid, { limit: 25, offset: 0 }))
    expect(h.service.control.requestLog()[0]?.sentBytes).toBeLessThanOrEqual(20 * 1024)
    expect(brotli.kind).toBe('tooLarge')
    expect(brotli.message).toMatch(/more than 32 MB in answer to GET .* once inflated/)
  })
})

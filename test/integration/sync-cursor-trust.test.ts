/**
 * A cursor that ran ahead of the service's clock is not trusted. One reply whose clock is a
 * day ahead used to leave a cursor from tomorrow behind: every later delta fetched nothing, reported a
 * fresh sync, and prices went stale until a `sync --full`.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { LogFields, Logger } from '../../src/main/ports'
import { parseServerTime } from '../../src/main/local/time'
import { SyncEngine } from '../../src/main/sync/engine'
import type { SyncReport } from '../../src/shared/synced'
import {
  itemsRoute,
  liveCatalogGuids,
  serverCustomerGuids,
  serverItemGuids,
  startHarness,
  type Harness,
} from './sync-support'

const DAY = 24 * 60 * 60 * 1000

let harness: Harness | undefined

afterEach(async () => {
  await harness?.close()
  harness = undefined
})

interface Logged {
  level: string
  message: string
  fields?: LogFields
}

/** An engine on the harness's store and client whose log the test can read. */
function engineWithLog(h: Harness, source = h.client as ConstructorParameters<typeof SyncEngine>[0]['source']) {
  const logged: Logged[] = []
  const logger: Logger = {
    debug: (message, fields) => void logged.push({ level: 'debug', message, fields }),
    info: (message, fields) => void logged.push({ level: 'info', message, fields }),
    warn: (message, fields) => void logged.push({ level: 'warn', message, fields }),
    error: (message, fields) => void logged.push({ level: 'error', message, fields }),
    child: () => logger,
  }
  const engine = new SyncEngine({ copy: h.store, source, clock: { now: () => Date.now() }, logger, pageSize: 25 })
  return { engine, logged }
}

/** A priced item of the catalog and one of its price groups, with a new price to give it. */
function pricedItem(h: Harness, catalogGuid: string): { guid: string; group: string; price: number } {
  for (const guid of serverItemGuids(h, catalogGuid)) {
    const item = h.service.control.catalogItems(catalogGuid).find((candidate) => String(candidate.guid) === guid)!
    const entry = Object.entries((item.pricing ?? {}) as Record<string, unknown>).find(
      ([, value]) => typeof value === 'number',
    )
    if (entry) return { guid, group: entry[0], price: Math.round((Number(entry[1]) + 17.25) * 100) / 100 }
  }
  throw new Error(`no priced item in catalog ${catalogGuid}`)
}

function localPrice(h: Harness, guid: string, group: string): unknown {
  return (h.queries.catalogs.getCatalogItem({ guid })?.pricing as Record<string, unknown> | undefined)?.[group]
}

/** Scopes whose stored cursor is ahead of the double's clock by more than `ms`. */
function cursorsAhead(h: Harness, ms: number): string[] {
  const now = h.service.control.now().getTime()
  return h.store
    .allScopes()
    .filter((state) => (parseServerTime(state.cursor) ?? 0) > now + ms)
    .map((state) => state.scope)
}

function scopeReport(report: SyncReport, scope: string) {
  const line = report.scopes.find((candidate) => candidate.scope === scope)
  expect(line, `report line for ${scope}`).toBeDefined()
  return line!
}

describe('cursors that cannot be trusted', () => {
  it('a delta page a day ahead: the count reply right after it shows the cursor ran ahead, so it is never stored', async () => {
    harness = await startHarness()
    const control = harness.service.control
    await harness.sync()
    const catalogGuid = harness.store.liveCatalogGuids()[0]!
    const scope = `catalogItems:${catalogGuid}`
    const before = harness.store.scope(scope).cursor

    // The first item page of the next delta comes back with the clock a day ahead; its count does not.
    control.addFault({ route: itemsRoute, type: 'futureClock', offsetMs: DAY, times: 1 })
    const { engine, logged } = engineWithLog(harness)
    const skewed = await engine.run()
    expect(skewed.ok).toBe(true)
    expect(cursorsAhead(harness, 60_000)).toEqual([])
    expect(harness.store.scope(scope).cursor).toBe(before)
    expect(scopeReport(skewed, scope).warnings?.join(' ')).toMatch(/not trusted/i)
    expect(
      logged.some(
        (entry) => entry.level === 'warn' && /not trusted/i.test(entry.message) && entry.fields?.scope === scope,
      ),
    ).toBe(true)

    const { guid, group, price } = pricedItem(harness, catalogGuid)
    control.setPrice(guid, group, price)
    const report = await harness.sync()
    expect(scopeReport(report, scope)).toMatchObject({ mode: 'delta', cursorReset: false })
    expect(localPrice(harness, guid, group)).toBe(price)
  })

  it('a stored cursor a day ahead: the next delta sees the new price and says the cursor was not trusted', async () => {
    harness = await startHarness()
    const control = harness.service.control
    const first = await harness.sync()
    expect(first.ok).toBe(true)

    // The next delta's first item page and the count after it both come back with the clock a day
    // ahead: nothing in that run can tell, and the cursor from tomorrow is stored.
    control.addFault({ route: itemsRoute, type: 'futureClock', offsetMs: DAY, times: 2 })
    const skewed = await harness.sync()
    expect(skewed.ok).toBe(true)
    const poisoned = cursorsAhead(harness, 60 * 60_000)
    expect(poisoned).toHaveLength(1)
    const scope = poisoned[0]!
    const catalogGuid = scope.slice('catalogItems:'.length)

    const { guid, group, price } = pricedItem(harness, catalogGuid)
    control.setPrice(guid, group, price)

    const { engine, logged } = engineWithLog(harness)
    const report = await engine.run()
    expect(report.ok).toBe(true)
    expect(localPrice(harness, guid, group)).toBe(price)
    const line = scopeReport(report, scope)
    expect(line).toMatchObject({ cursorReset: true, mode: 'full' })
    expect(line.warnings?.join(' ')).toMatch(/not trusted/i)
    expect(
      logged.some(
        (entry) => entry.level === 'warn' && /not trusted/i.test(entry.message) && entry.fields?.scope === scope,
      ),
    ).toBe(true)
    // The other scopes' cursors were fine and stay deltas without a word.
    for (const other of report.scopes.filter((candidate) => candidate.scope !== scope)) {
      expect(other).toMatchObject({ mode: 'delta', cursorReset: false })
      expect(other.warnings ?? []).toEqual([])
    }
    expect(cursorsAhead(harness, 60_000)).toEqual([])

    // And it stays healed: the next change arrives by an ordinary delta.
    control.setPrice(guid, group, price + 1)
    const after = await harness.sync()
    expect(scopeReport(after, scope)).toMatchObject({ mode: 'delta', cursorReset: false })
    expect(localPrice(harness, guid, group)).toBe(price + 1)
  })

  it('recovers every scope after a whole sync ran a day ahead', async () => {
    harness = await startHarness()
    const control = harness.service.control
    await harness.sync()
    const fault = control.addFault({ route: '*', type: 'futureClock', offsetMs: DAY })
    await harness.sync()
    control.removeFault(fault)
    expect(cursorsAhead(harness, 60 * 60_000).length).toBeGreaterThan(1)

    const changed = liveCatalogGuids(harness).map((catalogGuid) => {
      const item = pricedItem(harness!, catalogGuid)
      control.setPrice(item.guid, item.group, item.price)
      return item
    })
    const customer = serverCustomerGuids(harness)[0]!
    control.update('customer', customer, { name: 'Quokka Quarry Supplies' })
    const report = await harness.sync()
    expect(report.ok).toBe(true)
    for (const { guid, group, price } of changed) expect(localPrice(harness, guid, group)).toBe(price)
    expect(harness.queries.customers.searchCustomers({ query: 'quokka' }).customers.map((found) => found.guid)).toEqual(
      [customer],
    )
    expect(cursorsAhead(harness, 60_000)).toEqual([])
    for (const line of report.scopes)
      expect(line).toMatchObject({ cursorReset: true, mode: 'full', warnings: [expect.stringMatching(/not trusted/i)] })
  })
})

/**
 * A listing the service (or something between it and the laptop) breaks: pages that repeat, a total
 * that lies, rows that are all refused. The sync must end, in bounded requests, and must never say
 * it succeeded with rows missing or with every row of a scope thrown away.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startService } from '../service/index'
import { cli, json } from '../support/cli'
import {
  itemsRoute,
  liveCatalogGuids,
  localItemGuids,
  requestsTo,
  serverItemGuids,
  startHarness,
  type Harness,
} from './sync-support'

let harness: Harness | undefined

afterEach(async () => {
  await harness?.close()
  harness = undefined
})

/**
 * Runs a sync, cancelling it if the double has seen more than `ceiling` item page requests: on a
 * listing that loops, the test then fails on its counts instead of hanging.
 */
async function syncWithCeiling(h: Harness, ceiling: number) {
  const controller = new AbortController()
  const watch = setInterval(() => {
    if (requestsTo(h, itemsRoute).length > ceiling) controller.abort(new Error('runaway listing'))
  }, 20)
  try {
    return await h.sync({ signal: controller.signal })
  } finally {
    clearInterval(watch)
  }
}

function catalogName(h: Harness, catalogGuid: string): string {
  return String(h.service.control.catalogs().find((catalog) => catalog.guid === catalogGuid)!.name)
}

describe('a broken listing never loops and never reports success with rows missing', () => {
  it('pages that repeat (a proxy that ignores offset) end the run with an error naming the listing, within bounded requests', async () => {
    const pageSize = 10
    const concurrency = 4
    harness = await startHarness({ pageSize, concurrency })
    const catalogs = liveCatalogGuids(harness)
    for (const guid of catalogs) expect(serverItemGuids(harness, guid).length).toBeGreaterThan(4 * pageSize)
    harness.service.control.addFault({ route: itemsRoute, type: 'ignoreOffset' })

    const report = await syncWithCeiling(harness, 2_000)

    expect(report.ok).toBe(false)
    expect(report.error?.code).toBe('REJECTED')
    // Each catalog's listing stops on its own: its first page, the pages in flight when the repeat
    // is seen, nothing more.
    const itemRequests = requestsTo(harness, itemsRoute)
    expect(itemRequests.length).toBeLessThanOrEqual(catalogs.length * (1 + 4 * concurrency))
    for (const guid of catalogs) {
      const line = report.scopes.find((scope) => scope.scope === `catalogItems:${guid}`)
      expect(line?.error).toMatch(/repeat/)
      expect(line?.error).toContain(catalogName(harness, guid))
    }
    expect(report.error?.message).toContain('catalog items')
    // Nothing of a broken listing is pruned, nothing kept as if complete: the next run starts over.
    expect(harness.store.scope(`catalogItems:${catalogs[0]!}`).cursor).toBeNull()
  })

  it('a page of another catalog’s items is refused as a bad page: nothing of either catalog is moved or removed', async () => {
    harness = await startHarness({ pageSize: 25 })
    expect((await harness.sync()).ok).toBe(true)
    const [first, second] = liveCatalogGuids(harness)
    const before = { first: localItemGuids(harness, first!), second: localItemGuids(harness, second!) }
    expect(before.second.length).toBeGreaterThan(25)
    // Every page of the first catalog's listing is answered with the second's (a misrouted cache).
    harness.service.control.addFault({ route: itemsRoute, type: 'otherCatalog', catalogGuid: second! })
    // Only the first catalog's requests may meet it: the second's own listing is the second's anyway.

    const report = await harness.sync({ full: true })

    expect(report.ok).toBe(false)
    const line = report.scopes.find((scope) => scope.scope === `catalogItems:${first!}`)
    expect(line?.error).toMatch(/another catalog/)
    expect(line?.error).toContain(catalogName(harness, first!))
    expect(localItemGuids(harness, second!)).toEqual(before.second)
    expect(localItemGuids(harness, first!)).toEqual(before.first)
  })

  it('a total that says fewer rows than the pages bring: every row is synced', async () => {
    harness = await startHarness({ pageSize: 25 })
    harness.service.control.addFault({ route: itemsRoute, type: 'falseTotal', total: 5 })

    const report = await syncWithCeiling(harness, 2_000)

    expect(report.error).toBeNull()
    for (const guid of liveCatalogGuids(harness)) {
      expect(serverItemGuids(harness, guid).length).toBeGreaterThan(25)
      expect(localItemGuids(harness, guid)).toEqual(serverItemGuids(harness, guid))
      const line = report.scopes.find((scope) => scope.scope === `catalogItems:${guid}`)!
      expect(line.warnings?.join('\n')).toMatch(/total of 5/)
    }
  })

  it('a scope whose rows were all, or mostly, refused is a warning on its report line; a few refused are not', async () => {
    harness = await startHarness({ pageSize: 25 })
    const catalogs = liveCatalogGuids(harness)
    harness.service.control.addFault({ route: itemsRoute, type: 'badPricing', values: ['negative'], keys: [] })

    const refused = await harness.sync()

    expect(refused.ok).toBe(true)
    let total = 0
    for (const guid of catalogs) {
      const count = serverItemGuids(harness, guid).length
      total += count
      const line = refused.scopes.find((scope) => scope.scope === `catalogItems:${guid}`)!
      expect(line.warnings).toHaveLength(1)
      expect(line.warnings![0]).toContain(`${count} of ${count} catalog items`)
      expect(line.warnings![0]).toContain(catalogName(harness, guid))
      expect(localItemGuids(harness, guid)).toEqual([])
    }
    // A listing that stored none of its rows does not add up, and is listed once more: the report's
    // line counts its latest pass, the run's resources both.
    expect(refused.resources.catalogItems.rejected).toBeGreaterThanOrEqual(total)

    // With every row stored, a later listing's refused rows keep their last good copy (and still count as listed).
    harness.service.control.clearFaults()
    expect((await harness.sync()).scopes.flatMap((line) => line.warnings ?? [])).toEqual([])
    const [smallest] = [...catalogs].sort(
      (a, b) => serverItemGuids(harness!, a).length - serverItemGuids(harness!, b).length,
    )
    const size = serverItemGuids(harness, smallest!).length
    expect(size).toBeGreaterThan(50)
    expect(size).toBeLessThan(100)
    // The items listings go by catalog name: the first is the smallest here (asserted by its line).
    // One corrupt page of 25: well under half of it.
    harness.service.control.addFault({
      route: itemsRoute,
      type: 'badPricing',
      values: ['negative'],
      keys: [],
      times: 1,
    })
    const fewRefused = await harness.sync({ full: true })
    expect(fewRefused.ok).toBe(true)
    expect(fewRefused.resources.catalogItems.rejected).toBe(25)
    for (const line of fewRefused.scopes) expect(line.warnings ?? []).toEqual([])

    // Two corrupt pages of 25: most of it.
    harness.service.control.clearFaults()
    harness.service.control.addFault({
      route: itemsRoute,
      type: 'badPricing',
      values: ['negative'],
      keys: [],
      times: 2,
    })
    const mostRefused = await harness.sync({ full: true })
    expect(mostRefused.ok).toBe(true)
    const line = mostRefused.scopes.find((scope) => scope.scope === `catalogItems:${smallest!}`)!
    expect(line.refused).toEqual({ rows: 50, of: size })
    expect(line.warnings).toEqual([
      expect.stringContaining(`50 of ${size} catalog items of "${catalogName(harness, smallest!)}" were refused`),
    ])
    expect(localItemGuids(harness, smallest!)).toEqual(serverItemGuids(harness, smallest!))
  })
})

describe('satchel sync when a scope is refused', () => {
  it('exits 1 with the count, in --json and on stderr; once the rows are good it exits 0', async () => {
    const service = await startService({ size: 'tiny', seed: 5 })
    const directory = mkdtempSync(join(tmpdir(), 'satchel-cli-refused-'))
    try {
      const env = {
        SATCHEL_BASE_URL: service.url,
        SATCHEL_API_KEY: service.credentials.apiKey,
        SATCHEL_API_SECRET: service.credentials.apiSecret,
      }
      const db = join(directory, 'satchel.db')
      const items = service.control
        .catalogs()
        .filter((catalog) => catalog.deleted_at === null)
        .flatMap((catalog) => service.control.catalogItems(String(catalog.guid)))
        .filter((item) => item.deleted_at === null).length
      service.control.addFault({ route: itemsRoute, type: 'badPricing', values: ['nonFinite'], keys: [] })

      const run = await cli(['sync', '--db', db, '--json'], env)
      expect(run.code).toBe(1)
      const result = json(run) as { ok: boolean; error: { code: string; message: string }; warnings: string[] }
      expect(result.ok).toBe(false)
      expect(result.error.code).toBe('REJECTED')
      expect(result.error.message).toContain(`refused ${items} of ${items} rows`)
      expect(result.warnings.length).toBeGreaterThanOrEqual(2)
      expect(run.stderr).toContain(`refused ${items} of ${items} rows`)

      const human = await cli(['sync', '--db', db], env)
      expect(human.code).toBe(1)
      expect(human.stderr).toMatch(/refused \d+ of \d+ rows as impossible: \d+ of \d+ catalog items of "/)

      service.control.clearFaults()
      const fine = await cli(['sync', '--db', db, '--full', '--json'], env)
      expect(fine.code).toBe(0)
      expect(json(fine).ok).toBe(true)
    } finally {
      await service.close()
      rmSync(directory, { recursive: true, force: true })
    }
  })
})

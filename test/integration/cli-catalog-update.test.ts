/**
 * The CLI on a laptop just upgraded with a large catalog, whose items wait for the catalog update
 * (local/catalog-update-jobs.ts): the commands that read the catalog say it is being updated and that
 * `sync` finishes it, never that an item "is not in this catalog" or that there are 0 items; after
 * `sync` they work.
 */
import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { cli, json } from '../support/cli'
import { findOrderable, type Orderable } from '../support/orderable'
import { schema9Laptop, type Schema9Laptop } from '../support/upgraded-laptop'

let laptop: Schema9Laptop
let target: Orderable
let draftFile: string

beforeAll(async () => {
  laptop = await schema9Laptop({ size: 1500 })
  target = findOrderable(laptop.harness.db, 1)
  // Upgraded as a large catalog is: the items set aside for the catalog update, which has not run.
  closeDatabase(openDatabase(laptop.path, { largeCatalogItems: 500 }))
  draftFile = laptop.path.replace(/schema9\.db$/, 'draft.json')
  writeFileSync(
    draftFile,
    JSON.stringify({
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
      lines: [{ sku: target.skus[0], qty: 1 }],
    }),
  )
})

afterAll(async () => {
  await laptop?.close()
})

describe('the CLI while the catalog update after an upgrade waits', () => {
  it('order queue, items search and status say the catalog is being updated and to run sync; after sync they work', async () => {
    const queued = await cli(['--db', laptop.path, '--json', 'order', 'queue', '--file', draftFile])
    expect(queued.stdout + queued.stderr).not.toContain('not in this catalog')
    expect(queued.code).toBe(1)
    expect(json(queued)).toEqual({
      error: { code: 'UNAVAILABLE', message: expect.stringMatching(/the catalog is being updated.*run `sync`/) },
    })

    const search = await cli([
      '--db',
      laptop.path,
      '--json',
      'items',
      'search',
      target.skus[0]!,
      '--catalog',
      target.catalogGuid,
    ])
    expect(search.code).toBe(1)
    expect(json(search)).toEqual({
      error: { code: 'UNAVAILABLE', message: expect.stringMatching(/the catalog is being updated.*run `sync`/) },
    })

    const status = await cli(['--db', laptop.path, 'status'])
    expect(status.code).toBe(0)
    expect(status.stdout).not.toMatch(/^Catalog items\s+0$/m)
    expect(status.stdout).toMatch(/^Catalog items\s+.*the catalog is being updated.*run `sync`/m)
    const statusJson = json(await cli(['--db', laptop.path, '--json', 'status']))
    expect(statusJson.catalogUpdate).toEqual({ job: 'leanItems', itemsBrowsable: false })

    const { service } = laptop.harness
    const synced = await cli([
      '--db',
      laptop.path,
      '--json',
      'sync',
      '--base-url',
      service.url,
      '--api-key',
      service.credentials.apiKey,
      '--api-secret',
      service.credentials.apiSecret,
    ])
    expect(synced.code).toBe(0)
    expect((await cli(['--db', laptop.path, 'order', 'queue', '--file', draftFile])).code).toBe(0)
    expect(json(await cli(['--db', laptop.path, '--json', 'status'])).catalogUpdate).toBeNull()
  })
})

/**
 * Sync's listing pages are read off the main thread (issue 55): the page reader thread inflates,
 * parses and checks every page and hands its rows to the writer's thread, and the main thread (the
 * window's, in the app) gets only what the paging needs of a page. Proved by the thread that
 * decoded each page, and by the main thread's JSON.parse, which sees no page at all.
 */
import { threadId } from 'node:worker_threads'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { PageWriter } from '../../src/main/sync/page-writer'
import { localItemGuids, serverItemGuids, startHarness, type Harness } from './sync-support'

const harnesses: Harness[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()))
})

/** The writer with its reader watched: the thread each page was decoded on, by listing. */
function watched(decodedOn: { kind: string; thread: number }[]): (writer: PageWriter) => PageWriter {
  return (writer) => {
    const reader = writer.reader
    if (!reader) throw new Error('the writer has no page reader')
    return {
      ...writer,
      reader: {
        ...reader,
        read: async (listing, wire, stray) => {
          const page = await reader.read(listing, wire, stray)
          decodedOn.push({ kind: listing.kind, thread: page.decodedOn })
          return page
        },
      },
    }
  }
}

/** Whether a text JSON.parse was given is a listing page, or a part of one. */
function isListingPage(text: unknown): boolean {
  return typeof text === 'string' && /"(catalog_items|Vendor|order_state_id)"/.test(text)
}

describe("sync's page reader", () => {
  it('decodes every listing page of a first sync and a delta on its own thread, none on the main thread', async () => {
    const decodedOn: { kind: string; thread: number }[] = []
    const harness = await startHarness({ seed: 31, watchWriter: watched(decodedOn) })
    harnesses.push(harness)
    const parse = JSON.parse
    const parsedHere: string[] = []
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      if (isListingPage(text)) parsedHere.push(text.slice(0, 80))
      return parse(text, reviver)
    })

    const first = await harness.sync()
    expect(first.ok).toBe(true)
    const { control } = harness.service
    const catalogGuid = control.catalogs().find((catalog) => catalog.deleted_at == null)!.guid as string
    expect(localItemGuids(harness, catalogGuid)).toEqual(serverItemGuids(harness, catalogGuid))
    const [renamed] = serverItemGuids(harness, catalogGuid)
    control.update('catalogItem', renamed!, { name: 'Zebra-striped Mop Bucket' })
    expect((await harness.sync()).ok).toBe(true)

    const kinds = new Set(decodedOn.map((page) => page.kind))
    expect([...kinds].sort()).toEqual(['catalogItems', 'customers', 'orders'])
    expect(decodedOn.filter((page) => page.thread === threadId)).toEqual([])
    expect(parsedHere).toEqual([])
    // What the reader decoded was written, the delta's change included, each row stamped with its
    // listing and the service's time as the main thread's decoding would have.
    expect(
      harness.db.prepare<[string], { name: string }>('SELECT name FROM catalog_item_rows WHERE guid = ?').get(renamed!)
        ?.name,
    ).toBe('Zebra-striped Mop Bucket')
    expect(
      harness.db
        .prepare<[], { unstamped: number }>(
          'SELECT count(*) AS unstamped FROM catalog_item_rows WHERE synced_at IS NULL OR listed_run IS NULL',
        )
        .get()?.unstamped,
    ).toBe(0)
  })
})

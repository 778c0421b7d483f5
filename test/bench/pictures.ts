/**
 * `npm run bench:pictures [-- --size demo --sample 1000]`: item pictures against the double, in this
 * process, on a database the CLI synced:
 * - the time until every usual item of 20 customers has its pictures (one pass, as `pictures fetch`);
 * - bytes and requests for 100,000 items' thumbnails: a measured sample of the rest of the catalog
 *   (an idle pass of --sample items), scaled to 100,000 and said so;
 * - the cache's size on disk, measured and scaled the same way.
 * The listing the API key gets carries no image URL, so each item costs a single-item read to the
 * service (its attachments) besides the picture: both are counted.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { createPictureDemand } from '../../src/main/core/picture-demand'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { openItemPictures } from '../../src/main/pictures'
import { ServiceClient } from '../../src/main/ordering-client/client'
import { LocalOrderLookup } from '../../src/main/orders/local-lookup'
import { silentLogger, systemClock } from '../../src/main/ports'
import { UsualItems } from '../../src/main/usual-items/usual'
import { control, controlGet, printTable, root, startDouble, writeResults } from './support'
import { openLocalData } from '../../src/main/local/data'

const { values } = parseArgs({
  options: { size: { type: 'string', default: 'demo' }, sample: { type: 'string', default: '1000' } },
})
const sample = Number(values.sample)
const scaleTo = 100_000
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

async function main(): Promise<void> {
  const double = await startDouble(values.size!)
  const folder = mkdtempSync(join(tmpdir(), 'satchel-bench-images-'))
  const databasePath = join(folder, 'main.db')
  try {
    execFileSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/main/cli/index.ts'), 'sync', '--db', databasePath, '--json'],
      {
        cwd: root,
        env: {
          ...process.env,
          SATCHEL_BASE_URL: double.url,
          SATCHEL_API_KEY: double.apiKey,
          SATCHEL_API_SECRET: double.apiSecret,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    )
    const db = openDatabase(databasePath)
    const client = new ServiceClient({
      connection: { baseUrl: double.url, auth: { kind: 'apiKey', apiKey: double.apiKey, apiSecret: double.apiSecret } },
    })
    const opened = openItemPictures({
      sources: openLocalData(db).pictureSources,
      databasePath,
      serviceOrigin: () => double.url,
      service: client,
      demand: createPictureDemand(openLocalData(db), systemClock),
      budgetMB: () => 100_000,
      logger: silentLogger,
    })
    const lookup = new LocalOrderLookup(openLocalData(db))
    const usual = new UsualItems(openLocalData(db), lookup, systemClock)
    const customers = ((await controlGet(double, 'customers')) as { guid: string; deleted_at: string | null }[]).filter(
      (customer) => customer.deleted_at === null && lookup.customer(customer.guid),
    )
    const chosen: string[] = []
    const wanted = new Set<string>()
    for (const customer of customers) {
      const items = usual.list(customer.guid, 500)
      if (items.length === 0) continue
      chosen.push(customer.guid)
      for (const item of items) wanted.add(item.guid)
      if (chosen.length === 20) break
    }

    // 1. The day's 20 customers.
    await control(double, 'clearRequestLog', {})
    const started = performance.now()
    const day = await opened.pictures.pass({ guids: [...wanted] })
    const dayMs = performance.now() - started
    const dayService = (await controlGet(double, 'replyBytes')) as { replies: number; sentBytes: number }
    const dayImages = { ...opened.fetcher.figures }

    // 2. A sample of the rest of the catalog, scaled to 100,000 items.
    await control(double, 'clearRequestLog', {})
    const before = { ...opened.fetcher.figures, cached: opened.cache.totals().cached, disk: opened.cache.diskBytes() }
    const rest = await opened.pictures.pass({ idle: true, limit: wanted.size + sample })
    const sampled = opened.cache.totals().cached - before.cached
    const restService = (await controlGet(double, 'replyBytes')) as { replies: number; sentBytes: number }
    const restImages = {
      requests: opened.fetcher.figures.requests - before.requests,
      bytes: opened.fetcher.figures.bytes - before.bytes,
    }
    const disk = opened.cache.diskBytes()
    const totals = opened.cache.totals()
    const perItem = (value: number) => (sampled > 0 ? (value / sampled) * scaleTo : 0)

    const rows = [
      ['Usual items of 20 customers', `${wanted.size} items, ${day.fetched} fetched, ${day.failed} failed`, '', ''],
      ['Time until their pictures are cached', `${(dayMs / 1000).toFixed(1)} s`, '', ''],
      ['  requests: image host / service', `${dayImages.requests} / ${dayService.replies}`, '', ''],
      ['  bytes: image host / service', `${megabytes(dayImages.bytes)} / ${megabytes(dayService.sentBytes)}`, '', ''],
      [`Sample of the catalog (measured)`, `${sampled} items, ${rest.failed} failed`, '', ''],
      [
        `100,000 items' thumbnails (sample scaled)`,
        `${Math.round(perItem(restImages.requests)).toLocaleString('en-US')} image + ${Math.round(perItem(restService.replies)).toLocaleString('en-US')} service requests`,
        '',
        '',
      ],
      [
        '  bytes (sample scaled)',
        `${megabytes(perItem(restImages.bytes))} images + ${megabytes(perItem(restService.sentBytes))} service`,
        '',
        '',
      ],
      ['Cache on disk (measured)', `${megabytes(disk)} for ${totals.cached} items`, '', ''],
      [
        'Cache on disk at 100,000 items (scaled)',
        megabytes((disk / Math.max(1, totals.cached)) * scaleTo),
        '1 GB budget',
        '',
      ],
    ]
    printTable(rows)
    const results = {
      at: new Date().toISOString(),
      size: values.size,
      customers: chosen.length,
      usualItems: wanted.size,
      day: { ms: Math.round(dayMs), report: day, images: dayImages, service: dayService },
      sample: { items: sampled, report: rest, images: restImages, service: restService, scaledTo: scaleTo },
      cache: { diskBytes: disk, cached: totals.cached, bytes: totals.bytes },
    }
    writeResults('pictures', results)
    await opened.close()
    await client.close()
    closeDatabase(db)
  } finally {
    double.process.kill()
    rmSync(folder, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})

/**
 * `npm run bridge -- [--db PATH | --data-dir DIR] [--port N] [--renderer DIR] [--large-catalog-items N]`:
 * serves the built renderer with the real core behind it, for a browser on a machine without the
 * Electron binary. With --data-dir, a profile manager over that folder's profiles (as the desktop app
 * runs them), with secrets kept in memory; with --db, one core on that database. --large-catalog-items
 * lowers the item count past which an upgrade leaves its per-item work to the catalog update (10,000),
 * to watch that update on an old database of a few thousand items.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createCore } from '../../src/main/core/compose'
import { createConsoleLogger, createMemoryKeychain } from '../../src/main/ports'
import { createProfileManager } from '../../src/main/profiles/manager'
import type { PictureSize } from '../../src/shared/pictures'
import { startBridge } from './server'

function open(dataDir: string | undefined, db: string | undefined, largeCatalogItems: number | undefined) {
  const appVersion = process.env.npm_package_version ?? '0.0.0-dev'
  const logger = createConsoleLogger('info')
  const limit = largeCatalogItems === undefined ? {} : { largeCatalogItems }
  if (dataDir) {
    const manager = createProfileManager({
      dataDir,
      secrets: createMemoryKeychain(),
      coreConfig: () => ({ appVersion, ports: { logger }, backgroundPictures: true, ...limit }),
    })
    return {
      core: manager,
      pictures: (itemGuid: string, size: PictureSize, position: number) =>
        manager.onScreen().core.pictures?.read(itemGuid, size, position) ?? null,
      where: `profiles: ${dataDir}`,
    }
  }
  const databasePath = db ?? join(mkdtempSync(join(tmpdir(), 'satchel-bridge-')), 'satchel.db')
  const core = createCore({ databasePath, appVersion, ports: { logger }, backgroundPictures: true, ...limit })
  return {
    core,
    pictures: (itemGuid: string, size: PictureSize, position: number) =>
      core.pictures?.read(itemGuid, size, position) ?? null,
    where: `database: ${databasePath}`,
  }
}

function itemCount(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const count = Number(value)
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`--large-catalog-items wants a whole number of items above 0, not “${value}”.`)
  return count
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      renderer: { type: 'string', default: 'out/renderer' },
      'large-catalog-items': { type: 'string' },
    },
  })
  const { core, pictures, where } = open(values['data-dir'], values.db, itemCount(values['large-catalog-items']))
  const bridge = await startBridge({
    handlers: core.handlers,
    events: core.events,
    rendererDir: resolve(values.renderer),
    pictures,
    port: values.port ? Number(values.port) : 0,
  })
  process.stdout.write(`Satchel (bridge) at ${bridge.url}\n${where}\n`)
  const stop = () => {
    void bridge
      .close()
      .then(() => core.close())
      .then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})

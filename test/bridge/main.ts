/**
 * `npm run bridge -- [--db PATH] [--port N] [--renderer DIR]`: serves the built renderer with the real
 * core behind it, for a browser on a machine without the Electron binary.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createCore } from '../../src/main/core/compose'
import { createConsoleLogger } from '../../src/main/ports'
import { startBridge } from './server'

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      port: { type: 'string' },
      renderer: { type: 'string', default: 'out/renderer' },
    },
  })
  const databasePath = values.db ?? join(mkdtempSync(join(tmpdir(), 'satchel-bridge-')), 'satchel.db')
  const core = createCore({ databasePath, appVersion: process.env.npm_package_version ?? '0.0.0-dev', ports: { logger: createConsoleLogger('info') } })
  const bridge = await startBridge({
    handlers: core.handlers,
    events: core.events,
    rendererDir: resolve(values.renderer),
    port: values.port ? Number(values.port) : 0,
  })
  process.stdout.write(`Satchel (bridge) at ${bridge.url}\ndatabase: ${databasePath}\n`)
  const stop = () => {
    void bridge.close().then(() => core.close()).then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})

/**
 * `npm run demo`: the ordering-service double with demo data, and Satchel connected to it.
 *
 * With the Electron binary installed, the desktop app starts (electron-vite dev) on a throwaway
 * profile, told the demo service's address and key through the environment. Without it, the built
 * renderer is served through the test bridge, with the real core already connected and synced, at a
 * printed 127.0.0.1 address to open in a browser.
 *
 * Options: --port N (the double's port, default 4010), --size demo|bench|<items>, --bridge (use the
 * bridge even where Electron exists).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createCore } from '../src/main/core/compose'
import { call } from '../src/main/core/handlers'
import { createConsoleLogger, createMemoryKeychain } from '../src/main/ports'
import { startBridge } from '../test/bridge/server'
import { startService } from '../test/service/index'
import { findElectronBinary } from './electron-binary.cjs'

const root = resolve(__dirname, '..')

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '4010' }, size: { type: 'string', default: 'demo' }, bridge: { type: 'boolean' } } })
  const size = values.size === 'demo' || values.size === 'bench' || values.size === 'tiny' ? values.size : Number(values.size)
  // The control surface lets the demo play the supplier after Send (ship, backorder, hold, cancel).
  const service = await startService({ size, port: Number(values.port), httpControl: true })
  const { apiKey, apiSecret } = service.credentials
  process.stdout.write(
    `Ordering-service double (${values.size}) at ${service.url}\n  x-apiKey: ${apiKey}\n  x-apiSecret: ${apiSecret}\n` +
      `  Play the supplier: curl -s -X POST ${service.url}/__control/fulfilOrder -H 'content-type: application/json' ` +
      `-d '{"orderGuid":"<guid>","step":{"kind":"ship","lines":[{"itemNo":1,"qty":1}],"backorderRest":true}}'\n\n`,
  )
  const profile = mkdtempSync(join(tmpdir(), 'satchel-demo-'))

  if (findElectronBinary() && !values.bridge) {
    process.stdout.write(`Starting Satchel (Electron) with a demo profile in ${profile}…\n`)
    const app = spawn('npx', ['electron-vite', 'dev'], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, SATCHEL_DEMO_PROFILE: profile, SATCHEL_DEMO_BASE_URL: service.url, SATCHEL_DEMO_API_KEY: apiKey, SATCHEL_DEMO_API_SECRET: apiSecret },
    })
    app.on('exit', (code) => void service.close().then(() => process.exit(code ?? 0)))
    return
  }

  if (!existsSync(join(root, 'out/renderer/index.html')) || process.env.SATCHEL_DEMO_REBUILD !== '0') {
    process.stdout.write('Building the renderer…\n')
    const built = spawnSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'ignore' })
    if (built.status !== 0) throw new Error('electron-vite build failed; run `npm run build` to see why')
  }
  const core = createCore({
    databasePath: join(profile, 'satchel.db'),
    appVersion: process.env.npm_package_version ?? '0.0.0-demo',
    ports: { logger: createConsoleLogger('warn'), secrets: createMemoryKeychain() },
  })
  const saved = await call(core.handlers, 'saveConnection', { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
  if (!saved.ok) throw new Error(saved.error.message)
  process.stdout.write('First sync…\n')
  const synced = await call(core.handlers, 'syncNow', {})
  if (!synced.ok || !synced.value.ok) throw new Error(`the first sync failed: ${JSON.stringify(synced)}`)
  const bridge = await startBridge({ handlers: core.handlers, events: core.events, rendererDir: join(root, 'out/renderer') })
  process.stdout.write(
    `\nNo Electron binary here, so Satchel is served through the test bridge:\n\n    ${bridge.url}\n\n` +
      `Open it in a browser (Chromium: /usr/bin/chromium). Database: ${join(profile, 'satchel.db')}\nCtrl+C stops both.\n`,
  )
  const stop = () => {
    void bridge
      .close()
      .then(() => core.close())
      .then(() => service.close())
      .then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})

/**
 * `npm run demo`: two ordering-service doubles with demo data (two suppliers, with different seeds and
 * catalog names), and Satchel with a profile on each: Main signed in as a user session (so Change…,
 * Submit… and New customer are offered), Coastal Supply with an API key (scripts/demo-setup.ts).
 *
 * With the Electron binary installed, the desktop app starts (electron-vite dev) on a throwaway data
 * folder, told the demo services' addresses and keys through the environment. Without it, the built
 * renderer is served through the test bridge, with a profile manager whose two profiles are connected
 * and sync in the background (the one on screen at once, the other when switched to), at a printed
 * 127.0.0.1 address to open in a browser.
 *
 * Options: --port N (the first double's port, default 4010; the second takes the next), --size
 * demo|bench|<items>, --bridge (use the bridge even where Electron exists), --bridge-port N (the
 * bridge's port, default 4020, so the address to open stays the same from one start to the next).
 * The renderer is built first only when its sources changed since the last build
 * (scripts/renderer-build.ts; SATCHEL_DEMO_REBUILD=1 always builds, =0 never).
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createConsoleLogger, createMemoryKeychain } from '../src/main/ports'
import { connectDemoProfiles, createProfileManager } from '../src/main/profiles'
import { startBridge } from '../test/bridge/server'
import { startDemoServices } from './demo-setup'
import { findElectronBinary } from './electron-binary.cjs'
import { rendererNeedsBuild } from './renderer-build'

const root = resolve(__dirname, '..')

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '4010' },
      size: { type: 'string', default: 'demo' },
      bridge: { type: 'boolean' },
      'bridge-port': { type: 'string', default: '4020' },
    },
  })
  const bridgePort = Number(values['bridge-port'])
  if (!Number.isInteger(bridgePort) || bridgePort < 0 || bridgePort > 65_535)
    throw new Error(`--bridge-port takes a port number, not '${values['bridge-port']}'`)
  const size =
    values.size === 'demo' || values.size === 'bench' || values.size === 'tiny' ? values.size : Number(values.size)
  const demo = await startDemoServices({ size, port: Number(values.port) })
  process.stdout.write(demo.describe())
  const { connections } = demo
  const closeServices = () => demo.close()
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-demo-'))

  if (findElectronBinary() && !values.bridge) {
    process.stdout.write(`Starting Satchel (Electron) with two demo profiles in ${dataDir}…\n`)
    const app = spawn('npx', ['electron-vite', 'dev'], {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        SATCHEL_DEMO_PROFILE: dataDir,
        SATCHEL_DEMO_CONNECTIONS: JSON.stringify(connections),
      },
    })
    app.on('exit', (code) => void closeServices().then(() => process.exit(code ?? 0)))
    return
  }

  if (rendererNeedsBuild(root)) {
    process.stdout.write('Building the renderer (its sources changed since the last build)…\n')
    const built = spawnSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'ignore' })
    if (built.status !== 0) throw new Error('electron-vite build failed; run `npm run build` to see why')
  }
  const profiles = createProfileManager({
    dataDir,
    secrets: createMemoryKeychain(),
    coreConfig: () => ({
      appVersion: process.env.npm_package_version ?? '0.0.0-demo',
      ports: { logger: createConsoleLogger('warn') },
    }),
  })
  // The window first, then the connections: each profile's first sync runs in the background as the
  // app runs it, so the catalog screen is there (and answers) while the items arrive.
  const bridge = await startBridge({
    handlers: profiles.handlers,
    events: profiles.events,
    rendererDir: join(root, 'out/renderer'),
    port: bridgePort,
  })
  await connectDemoProfiles(profiles, connections, (line) => process.stdout.write(`${line}\n`), { waitForSync: false })
  process.stdout.write(
    `\nNo Electron binary here, so Satchel is served through the test bridge:\n\n    ${bridge.url}\n\n` +
      `Open it in a browser (Chromium: /usr/bin/chromium). Profiles and databases: ${dataDir}\nCtrl+C stops everything.\n`,
  )
  const stop = () => {
    void bridge
      .close()
      .then(() => profiles.close())
      .then(closeServices)
      .then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})

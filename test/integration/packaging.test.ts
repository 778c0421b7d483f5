import { extractFile, getRawHeader, listPackage } from '@electron/asar'
import { getCurrentFuseWire } from '@electron/fuses'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * The packaging dry run (scripts/package-dry-run.mjs): electron-builder for Linux `dir`, offline,
 * with a stand-in Electron distribution and native rebuild off, from the build in out/ (npm test
 * builds first; the script builds only if out/ is missing). Then the output is taken apart.
 */
const require = createRequire(import.meta.url)
const root = process.cwd()
const updateUrl = 'https://updates.satchel.test/desktop/stable'
const abi = readFileSync(join(dirname(require.resolve('electron/package.json')), 'abi_version'), 'utf8').trim()
/** Stands in for scripts/native.mjs's Electron build: an ELF header Node cannot load. */
const electronBinding = Buffer.concat([
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]),
  Buffer.from('satchel stand-in electron binding'),
  Buffer.alloc(64),
])

interface Summary {
  appOutDir: string
  executable: string
  resources: string
  installedBytes: number
  asarBytes: number
  seconds: number
}

let work: string
let summary: Summary
/** The project's own better-sqlite3 build, which tests and the CLI load under Node, as it was before the dry run. */
const projectBinding = join(
  dirname(require.resolve('better-sqlite3/package.json')),
  'build',
  'Release',
  'better_sqlite3.node',
)
let projectBindingBefore: Buffer
let asarEntries: string[]

// The dry run packages Linux on the machine it runs on, as CI does; the afterPack hook rightly keeps
// a Linux binding out of a package built elsewhere.
const onLinux = process.platform === 'linux'

beforeAll(() => {
  if (!onLinux) return
  work = mkdtempSync(join(tmpdir(), 'satchel-packaging-'))
  const nativeDir = join(work, 'native')
  mkdirSync(join(nativeDir, `electron-abi${abi}`), { recursive: true })
  writeFileSync(join(nativeDir, `electron-abi${abi}`, 'better_sqlite3.node'), electronBinding)
  projectBindingBefore = readFileSync(projectBinding)
  const started = Date.now()
  const run = spawnSync(
    process.execPath,
    [
      'scripts/package-dry-run.mjs',
      '--output',
      join(work, 'dist'),
      '--json',
      join(work, 'summary.json'),
      '--update-url',
      updateUrl,
    ],
    {
      cwd: root,
      env: { ...process.env, SATCHEL_NATIVE_DIR: nativeDir },
      encoding: 'utf8',
      timeout: 170_000,
    },
  )
  if (run.status !== 0)
    throw new Error(`the dry run failed (${run.status ?? run.signal}):\n${run.stdout}\n${run.stderr}`)
  summary = JSON.parse(readFileSync(join(work, 'summary.json'), 'utf8')) as Summary
  asarEntries = listPackage(join(summary.resources, 'app.asar'), { isPack: false }).map((entry) =>
    entry.split('\\').join('/'),
  )
  const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
  process.stdout.write(
    `packaging dry run: ${Math.round((Date.now() - started) / 1000)} s; installed size ${megabytes(summary.installedBytes)} MB ` +
      `(app.asar ${megabytes(summary.asarBytes)} MB, ${asarEntries.length} entries; a real package adds Electron's runtime)\n`,
  )
}, 180_000)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

describe.runIf(onLinux)('the packaged app (Linux dir, offline dry run)', () => {
  it('holds the built main, preload and renderer in app.asar', () => {
    expect(asarEntries).toEqual(
      expect.arrayContaining([
        '/out/main/index.js',
        '/out/preload/index.js',
        '/out/renderer/index.html',
        '/package.json',
      ]),
    )
    expect(asarEntries.some((entry) => /^\/out\/renderer\/assets\/index-.*\.js$/.test(entry))).toBe(true)
    const manifest = JSON.parse(extractFile(join(summary.resources, 'app.asar'), 'package.json').toString()) as {
      main: string
      devDependencies?: unknown
    }
    expect(manifest.main).toBe('./out/main/index.js')
    expect(manifest.devDependencies).toBeUndefined()
  })

  it('holds no source, test, script or source-map files', () => {
    const ours = asarEntries.filter((entry) => !entry.startsWith('/node_modules/'))
    expect(ours.filter((entry) => /^\/(src|test|scripts|resources|build|dist|test-results)(\/|$)/.test(entry))).toEqual(
      [],
    )
    expect(asarEntries.filter((entry) => /\.(map|ts|tsx|vue|mts|cts)$/.test(entry))).toEqual([])
    expect(
      asarEntries.filter((entry) =>
        /\/(electron-builder\.yml|electron\.vite\.config\.ts|vitest\.config\.ts|tsconfig[^/]*\.json|\.env[^/]*)$/.test(
          entry,
        ),
      ),
    ).toEqual([])
    const everywhere = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? everywhere(join(dir, entry.name)) : [join(dir, entry.name)],
      )
    expect(everywhere(summary.appOutDir).filter((file) => /\.(ts|map|cpp|cc|c|h|gyp)$/.test(file))).toEqual([])
  })

  it('carries the production dependencies and none of the development ones', () => {
    const modules = new Set(
      asarEntries.filter((entry) => entry.startsWith('/node_modules/')).map((entry) => entry.split('/')[2]),
    )
    for (const dependency of ['better-sqlite3', 'electron-log', 'electron-updater', 'undici', 'zod'])
      expect(modules, dependency).toContain(dependency)
    for (const tool of [
      'electron',
      'electron-builder',
      'vitest',
      'vite',
      'vue',
      'typescript',
      '@playwright',
      'fastify',
    ])
      expect(modules, tool).not.toContain(tool)
  })

  it('keeps better-sqlite3’s binding unpacked beside app.asar, and it is the Electron build', () => {
    const binding = join(
      summary.resources,
      'app.asar.unpacked',
      'node_modules',
      'better-sqlite3',
      'build',
      'Release',
      'better_sqlite3.node',
    )
    expect(existsSync(binding)).toBe(true)
    expect(readFileSync(binding).equals(electronBinding)).toBe(true)
    interface Entry {
      files?: Record<string, Entry>
      unpacked?: boolean
    }
    const header = getRawHeader(join(summary.resources, 'app.asar')).header as Entry
    const entry = ['node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'].reduce<
      Entry | undefined
    >((at, name) => at?.files?.[name], header)
    expect(entry?.unpacked).toBe(true)
    // Only the binding (and better-sqlite3's own files beside it), not its C++ sources.
    expect(existsSync(join(summary.resources, 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'deps'))).toBe(
      false,
    )
    expect(
      existsSync(
        join(
          summary.resources,
          'app.asar.unpacked',
          'node_modules',
          'better-sqlite3',
          'build',
          'Release',
          'test_extension.node',
        ),
      ),
    ).toBe(false)
  })

  it('leaves the project’s own better-sqlite3 build as it was, and Node still loads it', () => {
    // The package's copy is replaced, never written into: electron-builder 25 fills the app folder
    // with hard links to node_modules, and writing through one broke every later test that opens a
    // database (scripts/after-pack.cjs, ownCopy).
    expect(readFileSync(projectBinding).equals(projectBindingBefore)).toBe(true)
    const load = spawnSync(process.execPath, ['-e', "const D = require('better-sqlite3'); new D(':memory:').close()"], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(load.stderr).toBe('')
    expect(load.status).toBe(0)
  })

  it('keeps the system keyring’s binding unpacked beside app.asar (N-API: the build the CLI loads serves Electron too)', () => {
    // The platform package sits where require() from @napi-rs/keyring finds it: beside it, or (as
    // electron-builder 25 lays it out) in the keyring's own node_modules.
    const modules = join(summary.resources, 'app.asar.unpacked', 'node_modules')
    const bindings = [join(modules, '@napi-rs'), join(modules, '@napi-rs', 'keyring', 'node_modules', '@napi-rs')]
      .filter((scope) => existsSync(scope))
      .flatMap((scope) =>
        readdirSync(scope)
          .filter((name) => name.startsWith(`keyring-${process.platform}-${process.arch}`))
          .map((name) => join(scope, name)),
      )
    expect(bindings.length).toBeGreaterThan(0)
    for (const binding of bindings) expect(readdirSync(binding).some((file) => file.endsWith('.node'))).toBe(true)
  })

  it('writes app-update.yml with the update URL given at build time', () => {
    const appUpdate = readFileSync(join(summary.resources, 'app-update.yml'), 'utf8')
    expect(appUpdate).toMatch(/^provider: generic$/m)
    expect(appUpdate).toContain(`url: ${updateUrl}`)
  })

  it('flips the fuses on the packaged executable in the afterPack hook', async () => {
    const wire = await getCurrentFuseWire(summary.executable)
    const on = 49
    const off = 48
    expect({
      runAsNode: wire[0],
      nodeOptions: wire[2],
      inspect: wire[3],
      asarIntegrity: wire[4],
      onlyAsar: wire[5],
    }).toEqual({
      runAsNode: off,
      nodeOptions: off,
      inspect: off,
      asarIntegrity: on,
      onlyAsar: on,
    })
  })

  it('reports its installed size and stays small', () => {
    expect(relative(work, summary.appOutDir)).toBe(
      join('dist', `linux-${process.arch === 'x64' ? '' : `${process.arch}-`}unpacked`),
    )
    expect(summary.installedBytes).toBeGreaterThan(summary.asarBytes)
    // Without Electron's runtime the app is a few MB; a jump means something unintended ships.
    expect(summary.installedBytes).toBeLessThan(40 * 1024 * 1024)
    // How long the dry run took is printed above, a figure; the spawn's timeout is the hang guard.
  })
})

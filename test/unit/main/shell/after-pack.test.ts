import { getCurrentFuseWire } from '@electron/fuses'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import hook, { type AfterPackContextLike } from '../../../../scripts/after-pack.cjs'

const require = createRequire(import.meta.url)
const electronVersion = (require('electron/package.json') as { version: string }).version
const abi = readFileSync(join(dirname(require.resolve('electron/package.json')), 'abi_version'), 'utf8').trim()
const nodeBuild = join(
  dirname(require.resolve('better-sqlite3/package.json')),
  'build',
  'Release',
  'better_sqlite3.node',
)

let directory: string
let context: AfterPackContextLike
let target: string
const quiet = { log: vi.fn(), warn: vi.fn() }

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-afterpack-'))
  const appOutDir = join(directory, 'linux-unpacked')
  target = join(
    appOutDir,
    'resources',
    'app.asar.unpacked',
    'node_modules',
    'better-sqlite3',
    'build',
    'Release',
    'better_sqlite3.node',
  )
  mkdirSync(dirname(target), { recursive: true })
  copyFileSync(nodeBuild, target)
  context = {
    appOutDir,
    electronPlatformName: process.platform,
    arch: { ia32: 0, x64: 1, arm: 2, arm64: 3 }[process.arch as 'x64'] ?? 1,
    packager: {
      getResourcesDir: (out) => join(out, 'resources'),
      config: { electronVersion },
      executableName: 'satchel',
      appInfo: { productFilename: 'Satchel' },
    },
  }
})
afterEach(() => {
  rmSync(directory, { recursive: true, force: true })
})

function nativeDir(binding?: Buffer | string): string {
  const dir = join(directory, 'native')
  mkdirSync(join(dir, `electron-abi${abi}`), { recursive: true })
  if (typeof binding === 'string') copyFileSync(binding, join(dir, `electron-abi${abi}`, 'better_sqlite3.node'))
  else if (binding) writeFileSync(join(dir, `electron-abi${abi}`, 'better_sqlite3.node'), binding)
  return dir
}

/** What scripts/native.mjs leaves behind: a shared library that Node refuses (here, one that cannot load at all). */
const standInElectronBuild = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(121)])

describe.runIf(process.platform === 'linux')('the afterPack hook’s native binding step', () => {
  it('fails a real release loudly when no Electron-ABI build exists', () => {
    expect(() => hook.installElectronBinding(context, { SATCHEL_NATIVE_DIR: nativeDir() }, quiet)).toThrow(
      /npm run native:electron/,
    )
  })

  it('lets a dry run through with a warning, keeping the Node build', () => {
    hook.installElectronBinding(context, { SATCHEL_NATIVE_DIR: nativeDir(), SATCHEL_PACKAGE_DRY_RUN: '1' }, quiet)
    expect(quiet.warn).toHaveBeenCalledWith(expect.stringContaining('dry run'))
    expect(readFileSync(target).equals(readFileSync(nodeBuild))).toBe(true)
  })

  it('refuses a binding that was built for Node', () => {
    expect(() => hook.installElectronBinding(context, { SATCHEL_NATIVE_DIR: nativeDir(nodeBuild) }, quiet)).toThrow(
      /built for Node/,
    )
  })

  it('refuses a file that is not a library for the platform', () => {
    expect(() =>
      hook.installElectronBinding(context, { SATCHEL_NATIVE_DIR: nativeDir(Buffer.from('MZ not for linux')) }, quiet),
    ).toThrow(/not a linux shared library/)
  })

  it('refuses to package another platform or arch with this machine’s binding', () => {
    const env = { SATCHEL_NATIVE_DIR: nativeDir(standInElectronBuild) }
    expect(() => hook.installElectronBinding({ ...context, electronPlatformName: 'win32' }, env, quiet)).toThrow(
      /must be built for Electron on a win32/,
    )
    expect(() => hook.installElectronBinding({ ...context, arch: context.arch === 3 ? 1 : 3 }, env, quiet)).toThrow(
      /must be built for Electron/,
    )
  })

  it('refuses when node_modules holds another Electron than the one being packaged', () => {
    const other = { ...context, packager: { ...context.packager, config: { electronVersion: '1.0.0' } } }
    expect(() =>
      hook.installElectronBinding(other, { SATCHEL_NATIVE_DIR: nativeDir(standInElectronBuild) }, quiet),
    ).toThrow(/node_modules holds Electron/)
  })

  it('copies the Electron build over the unpacked Node build', () => {
    expect(hook.installElectronBinding(context, { SATCHEL_NATIVE_DIR: nativeDir(standInElectronBuild) }, quiet)).toBe(
      target,
    )
    expect(readFileSync(target).equals(standInElectronBuild)).toBe(true)
  })
})

describe('the afterPack hook’s fuses', () => {
  it('turns RunAsNode, NODE_OPTIONS and --inspect off and asar integrity and asar-only loading on', async () => {
    const sentinel = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'
    const executable = join(context.appOutDir, 'satchel')
    writeFileSync(
      executable,
      Buffer.concat([
        Buffer.from('binary…'),
        Buffer.from(sentinel),
        Buffer.from([1, 9]),
        Buffer.from('101100011'),
        Buffer.from('…rest'),
      ]),
    )
    expect(await hook.flipSatchelFuses({ ...context, electronPlatformName: 'linux' }, quiet)).toBe(executable)
    // Read by position: @electron/fuses 1.8 names eight fuses, and the ninth (WasmTrapHandlers) must
    // stay as Electron ships it.
    const wire: Record<number, number | undefined> = await getCurrentFuseWire(executable)
    const on = 49
    const off = 48
    expect([wire[0], wire[1], wire[2], wire[3], wire[4], wire[5], wire[6], wire[7], wire[8]]).toEqual([
      off,
      on,
      off,
      off,
      on,
      on,
      off,
      on,
      on,
    ])
  })

  it('finds the executable where electron-builder puts it on each platform', () => {
    expect(hook.executablePath({ ...context, electronPlatformName: 'win32' })).toBe(
      join(context.appOutDir, 'Satchel.exe'),
    )
    expect(hook.executablePath({ ...context, electronPlatformName: 'darwin' })).toBe(
      join(context.appOutDir, 'Satchel.app'),
    )
    expect(hook.executablePath({ ...context, electronPlatformName: 'linux' })).toBe(join(context.appOutDir, 'satchel'))
  })

  it('re-signs ad hoc only for Apple silicon', async () => {
    expect(await hook.satchelFuses({ ...context, electronPlatformName: 'darwin', arch: 3 })).toMatchObject({
      resetAdHocDarwinSignature: true,
    })
    expect(await hook.satchelFuses({ ...context, electronPlatformName: 'darwin', arch: 1 })).toMatchObject({
      resetAdHocDarwinSignature: false,
    })
  })
})

import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config'
import type { Configuration } from 'app-builder-lib'
import { DebugLogger } from 'builder-util'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * electron-builder has no CLI command that only validates, so this calls what `electron-builder`
 * itself runs first: app-builder-lib's getConfig (electron-builder.yml merged with package.json)
 * and validateConfiguration (its JSON schema plus its deprecation checks).
 */
const root = process.cwd()
const config = await getConfig(root, null, null)

type Target = string | { target: string }
const targetNames = (targets: unknown): string[] =>
  ([] as Target[]).concat(targets as Target[]).map((target) => (typeof target === 'string' ? target : target.target))

describe('electron-builder.yml', () => {
  it('passes electron-builder’s own configuration validation', async () => {
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined()
  })

  it('would fail that validation with a mistake in it (the check is real)', async () => {
    const broken = { ...config, nsis: { ...(config.nsis ?? {}), oneClik: true } } as Configuration
    await expect(validateConfiguration(broken, new DebugLogger(false))).rejects.toThrow(/configuration\.nsis/)
  })

  it('builds nsis for Windows, dmg and zip for macOS, AppImage and deb for Linux', () => {
    expect(targetNames(config.win?.target)).toEqual(['nsis'])
    expect(targetNames(config.mac?.target)).toEqual(['dmg', 'zip'])
    expect(targetNames(config.linux?.target)).toEqual(['AppImage', 'deb'])
    expect(config.appId).toBe('com.satchel.desktop')
    expect(config.productName).toBe('Satchel')
  })

  it('takes its icons from resources/, at the sizes electron-builder converts from', () => {
    for (const icon of [config.icon, config.win?.icon, config.mac?.icon]) {
      expect(icon).toBe('resources/icon.png')
    }
    expect(config.linux?.icon).toBe('resources/icons')
    const size = (file: string) => {
      const png = readFileSync(join(root, file))
      expect(png.subarray(1, 4).toString()).toBe('PNG')
      return [png.readUInt32BE(16), png.readUInt32BE(20)]
    }
    expect(size('resources/icon.png')).toEqual([1024, 1024])
    expect(size('resources/icons/512x512.png')).toEqual([512, 512])
    expect(size('resources/icons/256x256.png')).toEqual([256, 256])
  })

  it('ships only the build output, unpacks the native bindings (better-sqlite3, keyring, sharp) and never rebuilds node_modules in place', () => {
    // getConfig normalises `files` into one file set.
    const patterns = (config.files as { filter: string[] }[])[0]?.filter ?? []
    expect(patterns.slice(0, 3)).toEqual(['out/**/*', 'package.json', '!**/*.map'])
    expect(patterns.filter((pattern) => !pattern.startsWith('!'))).toEqual(['out/**/*', 'package.json'])
    expect(config.asarUnpack).toEqual([
      '**/node_modules/better-sqlite3/build/Release/*.node',
      '**/node_modules/@napi-rs/keyring-*/*.node',
      '**/node_modules/sharp/**',
      '**/node_modules/@img/**',
    ])
    expect(config.npmRebuild).toBe(false)
    expect(config.afterPack).toBe('scripts/after-pack.cjs')
    expect(existsSync(join(root, 'scripts/after-pack.cjs'))).toBe(true)
  })

  it('publishes to a generic update server whose URL is given at build time', () => {
    expect(config.publish).toEqual({ provider: 'generic', url: '${env.SATCHEL_UPDATE_URL}' })
    // Nothing in the config turns electron-updater's staged rollout or signature checks off.
    expect(JSON.stringify(config)).not.toMatch(
      /stagingPercentage|verifyUpdateCodeSignature|electronUpdaterCompatibility/,
    )
  })

  it('leaves code signing to the environment (no certificate or password in the file)', () => {
    const text = readFileSync(join(root, 'electron-builder.yml'), 'utf8')
    expect(text).not.toMatch(/certificateFile|certificatePassword|cscLink|cscKeyPassword|\.p12|\.pfx/)
  })
})

#!/usr/bin/env node
/**
 * The packaging dry run, offline: electron-builder for Linux `dir` from the build in out/, with a
 * stand-in for the Electron distribution (the real one is a download this network cannot make) and
 * npmRebuild off. Everything else is the real thing: electron-builder.yml, the file filters, the
 * asar, the unpacked native binding, app-update.yml and the afterPack hook (binding and fuses).
 *
 *   npm run package:dry-run [-- --output <dir>] [-- --json <summary.json>]
 *
 * Used by test/integration/packaging.test.ts, which inspects the result. The stand-in `electron`
 * executable is a shell script carrying a copy of Electron's fuse wire (sentinel, version, length,
 * one byte per fuse), so the afterPack hook flips fuses on it exactly as on the real binary.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

const require = createRequire(import.meta.url)
const root = resolve(dirname(new URL(import.meta.url).pathname), '..')

/**
 * A fuse wire as a recent Electron ships it: 9 fuses (the ninth, WasmTrapHandlers, is newer than
 * @electron/fuses 1.8, and the hook leaves it as shipped), RunAsNode, NODE_OPTIONS, --inspect and
 * file:// privileges on.
 */
export const fuseSentinel = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'
const shippedFuses = '101100011'

function standInElectron(directory) {
  mkdirSync(join(directory, 'resources'), { recursive: true })
  mkdirSync(join(directory, 'locales'), { recursive: true })
  const script = Buffer.concat([
    Buffer.from(
      '#!/bin/sh\necho "stand-in for the Electron binary (packaging dry run); it cannot run Satchel" >&2\nexit 1\n# fuse wire: ',
    ),
    Buffer.from(fuseSentinel, 'latin1'),
    Buffer.from([1, shippedFuses.length]),
    Buffer.from(shippedFuses, 'latin1'),
    Buffer.from('\n'),
  ])
  writeFileSync(join(directory, 'electron'), script)
  chmodSync(join(directory, 'electron'), 0o755)
  writeFileSync(join(directory, 'LICENSE'), 'Electron is MIT-licensed; this stand-in only reserves the file.\n')
  writeFileSync(join(directory, 'LICENSES.chromium.html'), '<!doctype html><title>stand-in</title>\n')
  writeFileSync(join(directory, 'version'), require('electron/package.json').version)
  writeFileSync(join(directory, 'locales', 'en-US.pak'), '')
  return directory
}

function sizeOf(path) {
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.size
  return readdirSync(path).reduce((total, entry) => total + sizeOf(join(path, entry)), 0)
}

function ensureBuild() {
  const needed = ['out/main/index.js', 'out/preload/index.js', 'out/renderer/index.html']
  if (needed.every((file) => existsSync(join(root, file)))) return false
  process.stdout.write('package-dry-run: out/ is missing, building it first (electron-vite build)\n')
  const result = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    { cwd: root, stdio: 'inherit' },
  )
  if (result.status !== 0) throw new Error('electron-vite build failed')
  return true
}

export async function packageDryRun({ output, updateUrl } = {}) {
  const started = Date.now()
  const built = ensureBuild()
  const outputDir = resolve(output ?? mkdtempSync(join(tmpdir(), 'satchel-package-')))
  const electronDist = standInElectron(mkdtempSync(join(tmpdir(), 'satchel-electron-standin-')))
  process.env.SATCHEL_PACKAGE_DRY_RUN = '1'
  process.env.SATCHEL_UPDATE_URL =
    updateUrl ?? process.env.SATCHEL_UPDATE_URL ?? 'https://updates.example.invalid/satchel'
  const { build, Platform, Arch } = require('electron-builder')
  try {
    await build({
      projectDir: root,
      targets: Platform.LINUX.createTarget('dir', Arch[process.arch]),
      publish: 'never',
      config: { electronDist, npmRebuild: false, directories: { output: outputDir } },
    })
  } finally {
    rmSync(electronDist, { recursive: true, force: true })
  }
  const appOutDir = join(
    outputDir,
    readdirSync(outputDir).find((entry) => /^linux-.*unpacked$/.test(entry)) ?? 'linux-unpacked',
  )
  const installedBytes = sizeOf(appOutDir)
  return {
    outputDir,
    appOutDir,
    executable: join(appOutDir, 'satchel'),
    resources: join(appOutDir, 'resources'),
    updateUrl: process.env.SATCHEL_UPDATE_URL,
    installedBytes,
    asarBytes: statSync(join(appOutDir, 'resources', 'app.asar')).size,
    builtOutFirst: built,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { output: { type: 'string' }, json: { type: 'string' }, 'update-url': { type: 'string' } },
  })
  try {
    const summary = await packageDryRun({ output: values.output, updateUrl: values['update-url'] })
    const megabytes = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
    process.stdout.write(
      `\npackage-dry-run: ${summary.appOutDir}\n` +
        `  installed size ${megabytes(summary.installedBytes)} (app.asar ${megabytes(summary.asarBytes)}; the stand-in replaces Electron's ~250 MB runtime)\n` +
        `  update URL ${summary.updateUrl}\n  took ${summary.seconds} s\n`,
    )
    if (values.json) writeFileSync(values.json, JSON.stringify(summary, null, 2))
  } catch (error) {
    process.stderr.write(
      `package-dry-run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    process.exit(1)
  }
}

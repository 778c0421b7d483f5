// Finds the Electron executable without triggering the `electron` package's on-demand download,
// which on a closed network fails noisily (and in CI would be attempted by every test worker).
const { existsSync, readFileSync } = require('node:fs')
const { dirname, join } = require('node:path')

/** @returns {string | undefined} the executable's path, or undefined when the binary is not installed */
function findElectronBinary() {
  let packageDir
  try {
    packageDir = dirname(require.resolve('electron/package.json'))
  } catch {
    return undefined
  }
  const pathFile = join(packageDir, 'path.txt')
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const overridden = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron')
    return existsSync(overridden) ? overridden : undefined
  }
  if (!relative) return undefined
  const full = join(packageDir, 'dist', relative)
  return existsSync(full) ? full : undefined
}

module.exports = { findElectronBinary }

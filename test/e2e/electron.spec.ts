import { _electron as electron, expect, test } from '@playwright/test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { findElectronBinary } from '../../scripts/electron-binary.cjs'

const binary = findElectronBinary()

test('the packaged main, preload and renderer start in Electron and reach the core', async () => {
  test.skip(!binary, 'Electron binary not installed here (installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1)')
  const app = await electron.launch({
    executablePath: binary,
    args: [resolve(__dirname, '../..')],
    env: { ...process.env, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'satchel-electron-')) },
  })
  const window = await app.firstWindow()
  await window.evaluate("location.hash = '#/settings'")
  await expect(window.getByTestId('database-status')).toHaveText(/schema \d+, wal journal/)
  await window.screenshot({ path: resolve(__dirname, '../../test-results/screenshots/electron-settings.png') })
  await app.close()
})

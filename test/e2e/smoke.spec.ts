import { join } from 'node:path'
import { expect, screenshotDir, test } from './harness'

// The window before any connection: what loads with nothing behind it.
test.use({ database: 'empty' })

test('the renderer loads through the bridge and shows the core’s version and database status', async ({
  page,
  bridge,
}) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.goto(`${bridge.url}#/settings`)
  await expect(page.getByTestId('app-version')).toHaveText('0.1.0-e2e')
  await expect(page.getByTestId('database-status')).toHaveText(/schema \d+, wal journal/)
  await page.screenshot({ path: join(screenshotDir, 'smoke-settings.png'), fullPage: true })
  expect(consoleErrors).toEqual([])
})

test('a settings change round-trips through the contract and survives a reload', async ({ page, bridge }) => {
  await page.goto(`${bridge.url}#/settings`)
  const interval = page.getByLabel('Sync every (minutes)')
  await expect(interval).toHaveValue('30')
  await interval.fill('45')
  await page.getByRole('button', { name: 'Save settings' }).click()
  await expect(page.getByRole('status')).toHaveText('Saved on this laptop.')
  await page.reload()
  await expect(page.getByLabel('Sync every (minutes)')).toHaveValue('45')
})

test('a value the contract refuses shows the core’s message and saves nothing', async ({ page, bridge }) => {
  await page.goto(`${bridge.url}#/settings`)
  await page.getByLabel('Sync every (minutes)').fill('1')
  await page.getByRole('button', { name: 'Save settings' }).click()
  await expect(page.getByRole('alert')).toContainText('syncIntervalMinutes')
  await page.reload()
  await expect(page.getByLabel('Sync every (minutes)')).toHaveValue('30')
})

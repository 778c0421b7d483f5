import { join } from 'node:path'
import { QuoteRepository } from '../../src/main/quotes/repository'
import { expect, screenshotDir, test, call, watchConsole } from './harness'
import { emptyQuote } from '../support/quotes'

test.describe.configure({ timeout: 90_000 })

test('Settings: retention kept per the rep’s numbers, the database’s size and the last purge, and the support bundle from the desktop app only', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  // A quote that expired long ago: the sync's purge takes it.
  new QuoteRepository(core.db).create(emptyQuote({ validUntil: '2024-01-31' }), '2024-01-01T00:00:00.000Z')
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
  await expect.poll(async () => (await call(core.handlers, 'getAppInfo')).database.lastPurge?.quotes ?? 0).toBe(1)

  await page.setViewportSize({ width: 1280, height: 720 })
  await page.goto(`${bridge.url}#/settings`)
  await expect(page.getByTestId('database-size')).toHaveText(
    // The template's line breaks stay as a space at either end (whitespace a block element shows as none).
    /^\s*\d[\d.,]* (KB|MB), of which \d[\d.,]* (bytes|KB|MB) free for reuse\s*$/,
  )
  await expect(page.getByTestId('last-purge')).toContainText(
    /: removed 1 expired quote(, freeing \d[\d.,]* (bytes|KB) for reuse)?\.$/,
  )

  const months = page.getByLabel('Sent orders stay in the outbox for (months)')
  await expect(months).toHaveValue('24')
  await expect(page.getByLabel('Expired quotes are kept for (days after they expire)')).toHaveValue('90')
  await months.fill('12')
  await page.getByRole('button', { name: 'Save settings' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Saved on this laptop.' })).toBeVisible()
  expect((await call(core.handlers, 'getSettings')).keepSentOrdersMonths).toBe(12)

  // In a browser there is no save dialog: the button says where a bundle comes from instead.
  await page.getByRole('button', { name: 'Export support bundle…' }).click()
  await expect(page.getByText('Support bundles are saved by the desktop app')).toBeVisible()

  await page.getByRole('group', { name: 'Kept on this laptop' }).scrollIntoViewIfNeeded()
  await page.screenshot({ path: join(screenshotDir, 'settings-tidy-retention.png') })
  await page.getByTestId('about').scrollIntoViewIfNeeded()
  await page.screenshot({ path: join(screenshotDir, 'settings-tidy.png') })
  await page.setViewportSize({ width: 900, height: 720 })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.getByTestId('about').scrollIntoViewIfNeeded()
  await page.screenshot({ path: join(screenshotDir, 'settings-tidy-900-dark.png') })
  expect(pageErrors).toEqual([])
})

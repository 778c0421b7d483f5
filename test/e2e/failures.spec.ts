import { expect, test } from './harness'

test('when the core cannot answer, the rep is told what could not be read instead of seeing an empty screen', async ({
  page,
  bridge,
  core,
}) => {
  // The local database goes away under the running core (a disk unplugged, a file locked by another program).
  core.db.close()
  await page.goto(bridge.url)
  await expect(page.locator('.banner-error').filter({ hasText: 'Could not read the saved connection' })).toBeVisible()
})

/**
 * A profile's empty screens say why they are empty, and customer search during the first sync says
 * the customers are still loading rather than "No customers match", which invites a duplicate.
 */
import { test, startServiceHandle, call, expect, watchConsole } from './harness'

test.describe.configure({ timeout: 60_000 })
// About the first sync: the core starts on an empty database, not connected.
test.use({ database: 'empty' })

test('customer search before and during the first sync says the customers are not all here', async ({
  page,
  bridge,
  core,
}) => {
  const errors = watchConsole(page)
  // The demo's 300 customers in three pages, each held: the first for 8 s so the empty screen is
  // drawn before any customer lands (held for less, it raced the page's load in CI), the next two
  // for 10 s each so the search runs mid-sync.
  const service = await startServiceHandle({ size: 'demo', seed: 1 })
  try {
    service.current.control.addFault({ route: 'GET /vendors', type: 'latency', ms: 8_000, times: 1 })
    service.current.control.addFault({ route: 'GET /vendors', type: 'latency', ms: 10_000, skip: 1, times: 2 })
    const { apiKey, apiSecret } = service.current.credentials
    await call(core.handlers, 'saveConnection', { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
    // The connection starts the first sync; joined here, to wait for its end below.
    const syncing = call(core.handlers, 'syncNow')
    await page.goto(`${bridge.url}#/customers`)
    const count = page.getByTestId('customers-count')
    // Empty at first, and saying why: not "No customers match".
    await expect(count).toHaveText(
      /^(No customers on this laptop yet: they come with the first sync\.|Customers are still loading \([\d,]+( of [\d,]+)?\)\.)$/,
    )
    await expect
      .poll(async () => (await call(core.handlers, 'searchCustomers', { limit: 1 })).customers.length, {
        timeout: 20_000,
      })
      .toBe(1)
    await page.getByLabel('Search customers').fill('Bayfront Bistro #5')
    await expect(count).toHaveText(/^Customers are still loading \([\d,]+ of [\d,]+\)\.$/)
    await expect(count).not.toContainText('No customers match')
    await page.getByLabel('Search customers').fill('')
    await expect(count).toHaveText(/^[\d,]+ customers · Customers are still loading \([\d,]+ of [\d,]+\)\.$/)

    expect((await syncing).ok).toBe(true)
    await expect(count).toHaveText(/^[\d,]+ customers$/)
    await page.getByLabel('Search customers').fill('zzqx')
    await expect(count).toHaveText('No customers match “zzqx”.')
    expect(errors).toEqual([])
  } finally {
    await service.close()
  }
})

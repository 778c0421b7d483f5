/**
 * The Connect screen follows the connection (issue 54): a profile connected from outside the window
 * (the demo's bridge, the CLI) takes the window off the first-run form without a reload, and "Sign in
 * again" opens Connect with the caret in the token field. The screens it leads to are looked at in
 * every layout and scheme (looks.ts).
 */
import { call, expect, orderable, queueOrder, settle, test } from './harness'
import { lookEverywhere } from './looks'
import { startWrites } from './writes-world'

test.describe.configure({ timeout: 180_000 })

test.describe('first run', () => {
  test.use({ database: 'empty' })

  test('connected from outside the window, the first-run form gives way to Customers without a reload', async ({
    page,
    bridge,
    core,
    service,
    browser,
  }) => {
    await page.setViewportSize({ width: 1280, height: 720 })
    await page.goto(bridge.url)
    const heading = page.getByRole('heading', { name: 'Connect Satchel to your ordering service' })
    await expect(heading).toBeVisible()
    // A reload would lose this: the window must follow without one.
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true))

    const { apiKey, apiSecret } = service.current.credentials
    await call(core.handlers, 'saveConnection', { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })

    await expect(heading).toBeHidden()
    await expect(page).toHaveURL(/#\/customers$/)
    await expect(page.getByRole('heading', { name: 'Customers', level: 1 })).toBeVisible()
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Catalog/ })).toBeVisible()
    expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true)

    const problems = await lookEverywhere(browser, 'connect-followed', async (look) => {
      await look.goto(bridge.url)
      await expect(look.getByRole('heading', { name: 'Customers', level: 1 })).toBeVisible()
    })
    expect(problems).toEqual([])
  })
})

test('Sign in again opens Connect with the caret in the user token field', async ({
  page,
  bridge,
  core,
  service,
  browser,
}) => {
  const errors = await startWrites(page, core, service)
  service.current.control.expireSession()
  await queueOrder(core, orderable(core, 1))
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  expect((await call(core.handlers, 'getOutboxSummary')).signInAgain).toBe(true)

  // From the Outbox's pause, and from the status bar's word for it.
  const signInAgain = async (look: typeof page) => {
    await look.goto(`${bridge.url}#/outbox`)
    await look.getByRole('main').getByRole('link', { name: 'Sign in again' }).click()
    await expect(look.getByRole('heading', { name: 'Connect Satchel to your ordering service' })).toBeVisible()
    await expect(look.getByLabel('User token')).toBeFocused()
  }
  await page.setViewportSize({ width: 1280, height: 720 })
  await signInAgain(page)
  await page.goto(`${bridge.url}#/customers`)
  await page.getByRole('contentinfo', { name: 'Status' }).getByRole('link', { name: 'Sign in again' }).click()
  await expect(page.getByLabel('User token')).toBeFocused()
  expect(errors).toEqual([])
  expect(await lookEverywhere(browser, 'sign-in-again', signInAgain)).toEqual([])
})

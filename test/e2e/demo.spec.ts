/**
 * `npm run demo`'s set-up (scripts/demo-setup.ts, connected as scripts/demo.ts connects it): Main is a
 * user session, so what a rep does after Send is offered there from the README's first command
 * (Change…, Submit… on an order in review, New customer); Coastal Supply signs in with an API key.
 * The order page and Customers are looked at in every layout and scheme.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemoryKeychain } from '../../src/main/ports'
import { connectDemoProfiles, createProfileManager } from '../../src/main/profiles'
import { startDemoServices } from '../../scripts/demo-setup'
import { startBridge } from '../bridge/server'
import { findOrderable } from '../support/orderable'
import { call, expect, rendererDir, test } from './harness'
import { lookEverywhere } from './looks'

test.describe.configure({ timeout: 180_000 })

test('the demo signs Main in as a user session: Change…, Submit… and New customer are offered there', async ({
  browser,
}) => {
  const demo = await startDemoServices({ size: 'tiny', port: 0 })
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-demo-e2e-'))
  const profiles = createProfileManager({
    dataDir,
    secrets: createMemoryKeychain(),
    coreConfig: () => ({ appVersion: '0.1.0-e2e', backgroundSync: false }),
  })
  try {
    const printed = demo.describe()
    expect(printed).toMatch(/^Main: .* signed in as a user session$/m)
    expect(printed).toMatch(/^ {2}userToken: \S+$/m)
    expect(printed).toMatch(/^Coastal Supply: .* signed in with an API key$/m)
    await connectDemoProfiles(profiles, demo.connections)

    // Main is on screen, and its connection is a user session.
    const listed = await call(profiles.handlers, 'listProfiles')
    expect(listed.profiles.find((profile) => profile.onScreen)?.name).toBe('Main')
    expect((await call(profiles.handlers, 'getConnection'))?.auth.kind).toBe('session')

    // An order of Main's sent in review: Submit… belongs to it.
    const target = findOrderable(profiles.onScreen().core.db, 1)
    const check = await call(profiles.handlers, 'createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    await call(profiles.handlers, 'updateDraft', { id: check.draft.id, changes: { remainInPreliminary: true } })
    await call(profiles.handlers, 'addDraftLines', { id: check.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
    const { apiGuid } = await call(profiles.handlers, 'sendDraft', { id: check.draft.id })
    await call(profiles.handlers, 'flushOutbox')
    expect((await call(profiles.handlers, 'syncNow', {})).ok).toBe(true)
    const [order] = demo.services[0]!.control.ordersByApiGuid(apiGuid)
    expect(order).toBeDefined()

    const bridge = await startBridge({ handlers: profiles.handlers, events: profiles.events, rendererDir })
    try {
      const problems = [
        ...(await lookEverywhere(browser, 'demo-order', async (page) => {
          await page.goto(`${bridge.url}#/orders/${String(order!.guid)}`)
          await expect(page.getByRole('button', { name: 'Change…' })).toBeVisible()
          await expect(page.getByRole('button', { name: 'Submit…' })).toBeVisible()
          await expect(page.getByTestId('sign-in-as-user')).toHaveCount(0)
        })),
        ...(await lookEverywhere(browser, 'demo-customers', async (page) => {
          await page.goto(`${bridge.url}#/customers`)
          await expect(page.getByRole('button', { name: 'New customer', exact: true })).toBeVisible()
        })),
      ]
      expect(problems).toEqual([])
    } finally {
      await bridge.close()
    }

    // Coastal Supply is the API key's: a key alone is offered the words to sign in instead.
    await call(profiles.handlers, 'switchProfile', {
      id: listed.profiles.find((profile) => profile.name === 'Coastal Supply')!.id,
    })
    expect((await call(profiles.handlers, 'getConnection'))?.auth.kind).toBe('apiKey')
  } finally {
    await profiles.close()
    await demo.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
})

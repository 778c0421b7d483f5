import { test as base } from '@playwright/test'
import { resolve } from 'node:path'
import { startBridge, type Bridge } from '../bridge/server'
import { createTestCore, type TestCore } from '../support/core'

export const rendererDir = resolve(__dirname, '../../out/renderer')
export const screenshotDir = resolve(__dirname, '../../test-results/screenshots')

/** Each test gets its own core (fresh database) behind its own bridge, serving the built renderer. */
export const test = base.extend<{ core: TestCore; bridge: Bridge }>({
  // Playwright reads a fixture's dependencies from its destructuring pattern; this one has none.
  // eslint-disable-next-line no-empty-pattern
  core: async ({}, use) => {
    const core = createTestCore({ appVersion: '0.1.0-e2e' })
    await use(core)
    await core.close()
  },
  bridge: async ({ core }, use) => {
    const bridge = await startBridge({ handlers: core.handlers, events: core.events, rendererDir })
    await use(bridge)
    await bridge.close()
  },
})

export { expect } from '@playwright/test'

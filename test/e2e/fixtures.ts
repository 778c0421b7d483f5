import { test as base } from '@playwright/test'
import { resolve } from 'node:path'
import { startService } from '../service/index'
import type { RunningService, StartServiceOptions } from '../service/types'
import { startBridge, type Bridge } from '../bridge/server'
import { createTestCore, type TestCore } from '../support/core'

export const rendererDir = resolve(__dirname, '../../out/renderer')
export const screenshotDir = resolve(__dirname, '../../test-results/screenshots')

/** The ordering-service double, stoppable and restartable on the same port (the laptop going offline). */
export interface ServiceHandle {
  readonly current: RunningService
  readonly url: string
  stop(): Promise<void>
  start(): Promise<void>
}

export async function startServiceHandle(
  options: StartServiceOptions = {},
): Promise<ServiceHandle & { close(): Promise<void> }> {
  let running: RunningService | null = await startService({ size: 'tiny', seed: 21, ...options })
  const port = Number(new URL(running.url).port)
  const url = running.url
  return {
    get current() {
      if (!running) throw new Error('the service is stopped')
      return running
    },
    url,
    async stop() {
      await running?.close()
      running = null
    },
    async start() {
      running ??= await startService({ size: 'tiny', seed: 21, ...options, port })
    },
    async close() {
      await running?.close()
      running = null
    },
  }
}

/**
 * Each test gets its own core (fresh database) behind its own bridge, serving the built renderer, and
 * the double when it asks for `service`. Connectivity is checked every half second, not every few
 * minutes, so going offline and back shows within a test's patience.
 */
export const test = base.extend<{ service: ServiceHandle; core: TestCore; bridge: Bridge }>({
  // Playwright reads a fixture's dependencies from its destructuring pattern; this one has none.
  // eslint-disable-next-line no-empty-pattern
  service: async ({}, use) => {
    const handle = await startServiceHandle()
    await use(handle)
    await handle.close()
  },
  // eslint-disable-next-line no-empty-pattern
  core: async ({}, use) => {
    const core = createTestCore({
      appVersion: '0.1.0-e2e',
      connectivity: {
        pollIntervalMs: 250,
        activeOnlineMs: 1_000,
        activeOfflineMs: 500,
        recheckOnlineMs: 1_000,
        recheckOfflineMs: 500,
      },
    })
    await use(core)
    await core.close()
  },
  bridge: async ({ core }, use) => {
    const bridge = await startBridge({
      handlers: core.handlers,
      events: core.events,
      rendererDir,
      pictures: (itemGuid, size, position) => core.pictures?.read(itemGuid, size, position) ?? null,
    })
    await use(bridge)
    await bridge.close()
  },
})

export { expect } from '@playwright/test'

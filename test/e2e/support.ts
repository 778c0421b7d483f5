/**
 * Set-up helpers for the catalog, order-entry and performance specs: connect a core to the double
 * through the contract (not through the connect screen), pick a customer and items with the shapes a
 * test needs, and a worker-scoped world with the bench data set synced once per spec file.
 */
import { test as base, type Page } from '@playwright/test'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MethodName } from '../../src/shared/channels'
import type { MethodInput, MethodOutput } from '../../src/shared/contract'
import type { CatalogItemSummary, CustomerDetail } from '../../src/shared/synced'
import { fillPictureCache } from '../support/fill-pictures'
import { startBridge, type Bridge } from '../bridge/server'
import { createTestCore, type TestCore } from '../support/core'
import { rendererDir, screenshotDir, startServiceHandle, type ServiceHandle } from './fixtures'

mkdirSync(screenshotDir, { recursive: true })

type Handlers = TestCore['handlers']

/** Calls the contract and throws the core's message when it answers an error. */
export async function call<M extends MethodName>(
  handlers: Handlers,
  method: M,
  argument?: MethodInput<M>,
): Promise<MethodOutput<M>> {
  const result = await handlers[method](argument)
  if (!result.ok) throw new Error(`${method}: ${result.error.code} ${result.error.message}`)
  return result.value as MethodOutput<M>
}

/** Saves the double's API key as the connection and runs a first full sync; answers its duration. */
export async function connectAndSync(core: TestCore, service: ServiceHandle): Promise<number> {
  const { apiKey, apiSecret } = service.current.credentials
  await call(core.handlers, 'saveConnection', { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
  const started = Date.now()
  const report = await call(core.handlers, 'syncNow', { full: true })
  if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report.error)}`)
  return Date.now() - started
}

export interface OrderWorld {
  customer: CustomerDetail
  catalogGuid: string
  priceGroupName: string
  /** Offered, active, no minimum, enough stock. */
  plain: CatalogItemSummary[]
  /** Not offered to the customer's price group ("N/A"). */
  notOffered: CatalogItemSummary
  /** min_order_qty above 1. */
  minimum: CatalogItemSummary
}

/**
 * An active customer on a non-main price group (so some items are "N/A" for it), without PO
 * requirement or hidden pricing, and items of each shape in its first catalog.
 */
export async function findOrderWorld(handlers: Handlers): Promise<OrderWorld> {
  const { customers } = await call(handlers, 'searchCustomers', { limit: 200 })
  for (const summary of customers) {
    if (!summary.active) continue
    const customer = await call(handlers, 'getCustomer', { guid: summary.guid })
    if (customer.requirePo || customer.hidePricing || !customer.priceGroup) continue
    const catalogs = await call(handlers, 'listCatalogs', { customerGuid: customer.guid })
    const catalog = catalogs[0]
    if (!catalog) continue
    const main = catalog.priceGroups.find((group) => group.isMain)
    // A customer whose own group is one of this catalog's, and not the main one, so some items are
    // "N/A" for them.
    if (!catalog.priceGroups.some((group) => group.id === customer.priceGroup!.id && !group.isMain)) continue
    const page = await call(handlers, 'searchCatalogItems', {
      catalogGuid: catalog.guid,
      customerGuid: customer.guid,
      limit: 500,
    })
    if (!page.priceGroupName || page.priceGroupName === main?.name) continue
    // A family's row is not an item to order: its grid is.
    const usable = (item: CatalogItemSummary) =>
      item.active &&
      !item.familyOf &&
      (item.hasInventory !== true || item.allowBackorder === true || (item.qtyOnHand ?? 0) >= 20)
    const plain = page.items.filter(
      (item) => usable(item) && item.offered && item.price !== null && (item.minOrderQty ?? 0) <= 1,
    )
    const notOffered = page.items.find((item) => usable(item) && !item.offered && (item.minOrderQty ?? 0) <= 1)
    const minimum = page.items.find((item) => usable(item) && item.offered && (item.minOrderQty ?? 0) > 1)
    if (plain.length >= 4 && notOffered && minimum) {
      return { customer, catalogGuid: catalog.guid, priceGroupName: page.priceGroupName, plain, notOffered, minimum }
    }
  }
  throw new Error('no customer in the seeded data fits the order-entry scenario')
}

/** Console errors and uncaught exceptions in the page, for "no console errors" assertions. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}

export interface BenchWorld {
  service: ServiceHandle
  core: TestCore
  bridge: Bridge
  syncMs: number
}

/**
 * The bench data set (100,000 items) synced into one fresh core, once per worker: the full sync
 * takes tens of seconds, so the specs that need it share it. With SATCHEL_E2E_BENCH_DB naming a
 * database synced beforehand (a million items: `satchel sync` against `--size 1000000`), the core
 * opens a copy of it instead and nothing is synced (syncMs 0): the performance spec's figures at that size.
 */
export const benchTest = base.extend<object, { bench: BenchWorld }>({
  bench: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const service = await startServiceHandle({ size: 'bench', seed: 1, logBodies: false })
      const prepared = process.env.SATCHEL_E2E_BENCH_DB
      let core: TestCore
      let syncMs = 0
      let databasePath: string
      if (prepared) {
        const directory = mkdtempSync(join(tmpdir(), 'satchel-e2e-'))
        databasePath = join(directory, 'satchel.db')
        copyFileSync(prepared, databasePath)
        const opened = createTestCore({
          appVersion: '0.1.0-e2e',
          backgroundSync: false,
          databasePath: join(directory, 'satchel.db'),
        })
        core = {
          ...opened,
          close: async () => (await opened.close(), rmSync(directory, { recursive: true, force: true })),
        }
        // The window asks for a connection before it shows the catalog. Saved below the contract: saved
        // through it, the change starts a sync, which would bring the bench set into the prepared database.
        const { apiKey, apiSecret } = service.current.credentials
        await core.connection.save({ baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
      } else {
        core = createTestCore({ appVersion: '0.1.0-e2e', backgroundSync: false })
        syncMs = await connectAndSync(core, service)
        databasePath = join(core.directory, 'satchel.db')
      }
      // Every row with its thumbnail, as on a laptop whose cache the passes have filled.
      await fillPictureCache(core.db, databasePath)
      const bridge = await startBridge({
        handlers: core.handlers,
        events: core.events,
        rendererDir,
        pictures: (itemGuid, size, position) => core.pictures?.read(itemGuid, size, position) ?? null,
      })
      await use({ service, core, bridge, syncMs })
      await bridge.close()
      await core.close()
      await service.close()
    },
    { scope: 'worker', timeout: 240_000 },
  ],
})

export { expect } from '@playwright/test'
export { screenshotDir }

/**
 * The one end-to-end harness: Playwright fixtures that put a real core behind the test bridge in
 * front of the built renderer, the ordering-service double it talks to, and the few calls every spec
 * makes through the contract.
 *
 * What is built how often (docs/testing.md says why):
 * - one double per worker (`tiny`, seed 21), reset through its control surface before each test;
 * - one synced database per worker (the template), copied into each test's own folder, so a test
 *   that is not about the first sync starts synced and connected without syncing;
 * - one core and one bridge per test, on a database of its own.
 * A spec about the first sync or the Connect screen says `test.use({ database: 'empty' })`.
 */
import { test as base, expect, type Page } from '@playwright/test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { call as callHandler, type HandlerTable } from '../../src/main/core/handlers'
import type { MethodName } from '../../src/shared/channels'
import type { MethodInput, MethodOutput } from '../../src/shared/contract'
import type { CatalogItemSummary, CustomerDetail } from '../../src/shared/synced'
import { startBridge, type Bridge } from '../bridge/server'
import { startService } from '../service/index'
import type { RunningService, StartServiceOptions } from '../service/types'
import { createTestCore, type TestCore } from '../support/core'
import { fillPictureCache } from '../support/fill-pictures'
import { findOrderable, type Orderable } from '../support/orderable'

export const rendererDir = resolve(__dirname, '../../out/renderer')
export const screenshotDir = resolve(__dirname, '../../test-results/screenshots')
mkdirSync(screenshotDir, { recursive: true })

/** The double the default fixtures serve: small enough to sync in a second or two, and seeded. */
const defaultService: StartServiceOptions = { size: 'tiny', seed: 21 }

// ---- the double ----------------------------------------------------------------------------------

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
  let running: RunningService | null = await startService({ ...defaultService, ...options })
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
      running ??= await startService({ ...defaultService, ...options, port })
    },
    async close() {
      await running?.close()
      running = null
    },
  }
}

// ---- the contract --------------------------------------------------------------------------------

/** Calls the contract and throws the core's code and message when it answers an error. */
export async function call<M extends MethodName>(
  handlers: HandlerTable,
  method: M,
  argument?: MethodInput<M>,
): Promise<MethodOutput<M>> {
  const result = await callHandler(handlers, method, argument)
  if (!result.ok) throw new Error(`${method} failed: ${result.error.code} ${result.error.message}`)
  return result.value
}

/** The double's API key, saved as the core's connection through the contract (which starts a sync). */
export async function saveApiKey(core: TestCore, service: ServiceHandle): Promise<void> {
  const { apiKey, apiSecret } = service.current.credentials
  await call(core.handlers, 'saveConnection', { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
}

/** Connects an empty core and runs its first sync, as first run does: how the worker's synced template is made. */
async function connectAndSync(core: TestCore, service: ServiceHandle): Promise<number> {
  await saveApiKey(core, service)
  const started = Date.now()
  const report = await call(core.handlers, 'syncNow', { full: true })
  if (!report.ok) throw new Error(`first sync failed: ${JSON.stringify(report.error)}`)
  return Date.now() - started
}

// ---- fixtures ------------------------------------------------------------------------------------

/**
 * The supplier's refusal of the next `times` orders (a 400 ReconcileErrors, "Order could not be
 * reconciled"), with `errors` as the per-line reasons: by default one inactive item on the first line.
 */
export function refuseOrders(
  service: ServiceHandle,
  errors: Record<string, unknown>[] = [{ type: 'ITEM_INACTIVE', line: 0, message: 'Item is inactive' }],
  times = 1,
): string {
  return service.current.control.addFault({
    route: 'POST /v1/orderWithItems',
    type: 'status',
    status: 400,
    times,
    body: { message: 'Order could not be reconciled', code: 'RECONCILE_ERRORS', errors },
  })
}

/** Connectivity checked every half second, not every few minutes, so offline shows within a test's patience. */
const quickConnectivity = {
  pollIntervalMs: 250,
  activeOnlineMs: 1_000,
  activeOfflineMs: 500,
  recheckOnlineMs: 1_000,
  recheckOfflineMs: 500,
}

interface TestFixtures {
  /**
   * `synced` (the default): the core opens a copy of the worker's synced database and is connected
   * to `service` with its API key, with no sync run. `empty`: a fresh database, not connected.
   */
  database: 'synced' | 'empty'
  /** The worker's double, reset to its seeded data before the test (and started, if a test before stopped it). */
  service: ServiceHandle
  core: TestCore
  bridge: Bridge
}

interface WorkerFixtures {
  /**
   * What the worker's double serves besides the tiny seeded set: `{ history: true }` for a spec about
   * a customer's brief (test/service/history.ts). A spec that sets it gets workers of its own.
   */
  serviceOptions: StartServiceOptions
  workerService: ServiceHandle & { close(): Promise<void> }
  /** A database synced in full from the worker's double, made once per worker and never opened again. */
  syncedTemplate: string
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  database: ['synced', { option: true }],
  serviceOptions: [{}, { option: true, scope: 'worker' }],
  workerService: [
    async ({ serviceOptions }, use) => {
      const handle = await startServiceHandle(serviceOptions)
      await use(handle)
      await handle.close()
    },
    { scope: 'worker' },
  ],
  syncedTemplate: [
    async ({ workerService }, use) => {
      const directory = mkdtempSync(join(tmpdir(), 'satchel-e2e-template-'))
      const template = join(directory, 'synced.db')
      const core = createTestCore({ appVersion: '0.1.0-e2e', backgroundSync: false })
      try {
        await connectAndSync(core, workerService)
        // One file, checkpointed and compact: a copy of it is a whole database, with no -wal beside it.
        core.db.exec(`VACUUM INTO '${template.replaceAll("'", "''")}'`)
      } finally {
        await core.close()
      }
      // The template was synced from the data a reset gives back; nothing after it may change the double unseen.
      workerService.current.control.reset()
      await use(template)
      rmSync(directory, { recursive: true, force: true })
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  service: async ({ workerService }, use) => {
    await workerService.start()
    workerService.current.control.reset()
    await use(workerService)
  },
  core: async ({ database, service, syncedTemplate }, use) => {
    const core = createTestCore({
      appVersion: '0.1.0-e2e',
      connectivity: quickConnectivity,
      ...(database === 'synced' ? { startFrom: syncedTemplate } : {}),
    })
    if (database === 'synced') {
      // Below the contract: through it, the saved connection would start a sync the test did not ask for.
      const { apiKey, apiSecret } = service.current.credentials
      await core.connection.save({ baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
    }
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
      // With 24 months of orders for a few customers (test/service/history.ts): a brief at bench size.
      const service = await startServiceHandle({ size: 'bench', seed: 1, logBodies: false, history: true })
      const prepared = process.env.SATCHEL_E2E_BENCH_DB
      let core: TestCore
      let syncMs = 0
      if (prepared) {
        core = createTestCore({ appVersion: '0.1.0-e2e', backgroundSync: false, startFrom: prepared })
        // The window asks for a connection before it shows the catalog. Saved below the contract: saved
        // through it, the change starts a sync, which would bring the bench set into the prepared database.
        const { apiKey, apiSecret } = service.current.credentials
        await core.connection.save({ baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
      } else {
        core = createTestCore({ appVersion: '0.1.0-e2e', backgroundSync: false })
        syncMs = await connectAndSync(core, service)
      }
      // Every row with its thumbnail, as on a laptop whose cache the passes have filled.
      await fillPictureCache(core.db, join(core.directory, 'satchel.db'))
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

// ---- what a spec sets up -------------------------------------------------------------------------

/** The `nth` (from 0) orderable customer and its items, for a spec that needs several. */
export function findOrderableAt(core: TestCore, nth: number, count = 2): Orderable {
  return findOrderable(core.db, count, nth)
}

/** An active customer without a PO rule, and items priced for its group with stock to spare. */
export function orderable(core: TestCore, count = 2): Orderable {
  return findOrderable(core.db, count)
}

/**
 * Like `orderable`, for a spec that sends through the window: a customer whose credit limit leaves
 * room for the order (or who has none), so Send goes at once rather than asking "Send anyway".
 */
export async function orderableWithCreditRoom(core: TestCore, count = 2, room = 5_000): Promise<Orderable> {
  for (let nth = 0; nth < 50; nth++) {
    const target = findOrderable(core.db, count, nth)
    const customer = await call(core.handlers, 'getCustomer', { guid: target.customerGuid })
    if (customer.creditLimit === null || customer.creditLimit - (customer.openBalance ?? 0) >= room) return target
  }
  throw new Error('no orderable customer with credit room in the seeded data')
}

/** A draft for the target with one of each SKU, sent to the outbox; answers the entry's apiGuid. */
export async function queueOrder(core: TestCore, target: Orderable): Promise<string> {
  const check = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', { id: check.draft.id, lines: target.skus.map((sku) => ({ sku, qty: 1 })) })
  return (await call(core.handlers, 'sendDraft', { id: check.draft.id })).apiGuid
}

/** Waits until the outbox's sender has nothing in hand. */
export async function settle(core: TestCore): Promise<void> {
  if (!(await core.orders.flusher.waitUntilIdle(10_000))) throw new Error('the outbox flush did not settle')
}

/** Queues an order for `target` and flushes the outbox at once, as Send with the service there does; its api_guid. */
export async function sendOrder(core: TestCore, target: Orderable): Promise<string> {
  const apiGuid = await queueOrder(core, target)
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  return apiGuid
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
 * A draft line whose item is not offered to the customer's group, as a rep meets one: added while the
 * supplier offered it, then withdrawn in a sync (a scan or pick of an item not offered adds no line).
 */
export async function lineNoLongerOffered(
  core: TestCore,
  service: ServiceHandle,
  world: OrderWorld,
  draftId: number,
  qty: number,
): Promise<void> {
  const { control } = service.current
  control.setPrice(world.notOffered.guid, world.priceGroupName, 9.5)
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
  await call(core.handlers, 'addDraftLines', { id: draftId, lines: [{ catalogItemGuid: world.notOffered.guid, qty }] })
  control.setPrice(world.notOffered.guid, world.priceGroupName, 'N/A')
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
}

/**
 * An active customer on a non-main price group (so some items are "N/A" for it), without PO
 * requirement or hidden pricing, and items of each shape in its first catalog.
 */
export async function findOrderWorld(handlers: HandlerTable): Promise<OrderWorld> {
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

// ---- what a spec looks at ------------------------------------------------------------------------

/** Collects console errors and uncaught exceptions; assert the array is empty at the end. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}

export async function shoot(page: Page, name: string): Promise<void> {
  // Let transitions and the virtual list settle so the picture shows what the rep sees.
  await page.waitForTimeout(150)
  await page.screenshot({ path: join(screenshotDir, name), fullPage: false })
}

/**
 * A whole Satchel core against the ordering-service double, driven through the IPC contract, for the
 * outbox drills. The service is real HTTP on loopback; failures are injected there, never mocked.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../../src/main/core/compose'
import type { Core } from '../../src/main/core/types'
import { call } from '../../src/main/core/handlers'
import { createMemoryKeychain, type Clock } from '../../src/main/ports'
import type { MethodInput, MethodOutput } from '../../src/shared/contract'
import type { MethodName } from '../../src/shared/channels'
import { startService } from '../service/index'
import { findOrderable, type Orderable } from '../support/orderable'
import { syncedTemplate } from '../support/synced-template'
import type { RunningService, StartServiceOptions } from '../service/types'

export const orderRoute = 'POST /v1/orderWithItems'

export interface OrdersHarness {
  service: RunningService
  core: Core
  directory: string
  databasePath: string
  /** Calls the contract and returns the value, failing the test with the core's message otherwise. */
  api<M extends MethodName>(method: M, argument?: MethodInput<M>): Promise<MethodOutput<M>>
  /** The `nth` customer (from 0) with catalog items that can be ordered without any rule objecting. */
  orderable(count?: number, nth?: number): Orderable
  /** Queues an order (by default one of each orderable item, for the first orderable customer); returns its api_guid. */
  queueOrder(lines?: { sku: string; qty: number }[], target?: Orderable): Promise<string>
  /** Waits for the flush that sending a draft starts by itself. */
  settle(): Promise<void>
  restartService(): Promise<void>
  stopService(): Promise<void>
  reopenCore(): Promise<void>
  close(): Promise<void>
}

/** `clock`: the core's clock, for a test that moves the laptop's time (the service's stays its own). */
export async function startOrdersHarness(
  options: StartServiceOptions = {},
  { clock }: { clock?: Clock } = {},
): Promise<OrdersHarness> {
  let service = await startService({ size: 'tiny', seed: 21, ...options })
  const port = Number(new URL(service.url).port)
  const directory = mkdtempSync(join(tmpdir(), 'satchel-orders-'))
  const databasePath = join(directory, 'satchel.db')
  // The default data set starts from the run's synced copy of it, so the sync below is a delta; a
  // harness with options of its own (faults, another seed or size) syncs in full.
  if (Object.keys(options).length === 0) copyFileSync(await syncedTemplate(service, 'tiny-21'), databasePath)
  const secrets = createMemoryKeychain()
  const open = () =>
    createCore({
      databasePath,
      appVersion: '0.0.0-test',
      backgroundSync: false,
      ports: { secrets, ...(clock ? { clock } : {}) },
    })
  let core = open()

  const api = async <M extends MethodName>(method: M, argument?: MethodInput<M>): Promise<MethodOutput<M>> => {
    const result = await call(core.handlers, method, argument)
    if (!result.ok) throw new Error(`${method} failed: ${result.error.code} ${result.error.message}`)
    return result.value
  }

  await api('saveConnection', {
    baseUrl: service.url,
    auth: { kind: 'apiKey', apiKey: service.credentials.apiKey, apiSecret: service.credentials.apiSecret },
  })
  const report = await api('syncNow', {})
  if (!report.ok) throw new Error(`the first sync failed: ${JSON.stringify(report)}`)

  const orderable = (count = 2, nth = 0): Orderable => findOrderable(core.db, count, nth)

  const harness: OrdersHarness = {
    get service() {
      return service
    },
    get core() {
      return core
    },
    directory,
    databasePath,
    api,
    orderable,
    async settle() {
      if (!(await core.orders.flusher.waitUntilIdle(15_000))) throw new Error('the outbox flush did not settle')
    },
    async queueOrder(lines, target = orderable()) {
      const check = await api('createDraft', { customerGuid: target.customerGuid, catalogGuid: target.catalogGuid })
      await api('addDraftLines', { id: check.draft.id, lines: lines ?? target.skus.map((sku) => ({ sku, qty: 1 })) })
      return (await api('sendDraft', { id: check.draft.id })).apiGuid
    },
    async stopService() {
      await service.close()
    },
    async restartService() {
      // Same seed, same port: the service is "back", with the data it had at start.
      service = await startService({ size: 'tiny', seed: 21, ...options, port })
    },
    async reopenCore() {
      await core.close()
      core = open()
    },
    async close() {
      await core.close()
      await service.close().catch(() => undefined)
      rmSync(directory, { recursive: true, force: true })
    },
  }
  return harness
}

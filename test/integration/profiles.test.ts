/**
 * Two profiles against two doubles through the profile manager, as the app runs them: the window
 * talks to the profile on screen, and every profile's outbox is sent in the background.
 */
import { unzipSync, strFromU8 } from 'fflate'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { createMemoryKeychain } from '../../src/main/ports'
import { createProfileManager, type ProfileManager } from '../../src/main/profiles/manager'
import type { MethodName } from '../../src/shared/channels'
import type { MethodInput, MethodOutput, SatchelEvent } from '../../src/shared/contract'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'
import { findOrderable } from '../support/orderable'
import { orderRoute } from './orders-support'
import { until } from '../support/until'

/** Two doubles and two cores: a wait is guarded for 30 s. */
const patient = { timeoutMs: 30_000 }

let dataDir: string
let services: RunningService[] = []
let manager: ProfileManager | undefined

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'satchel-profiles-'))
})
afterEach(async () => {
  await manager?.close()
  manager = undefined
  await Promise.all(services.map((service) => service.close().catch(() => undefined)))
  services = []
  rmSync(dataDir, { recursive: true, force: true })
})

const secrets = createMemoryKeychain()
/** Support bundles the profile on screen saved, as the desktop's save dialog would have them. */
const savedBundles: Buffer[] = []

function start(options: { outboxCheckMs?: number } = {}): ProfileManager {
  manager = createProfileManager({
    dataDir,
    secrets,
    ...options,
    coreConfig: () => ({
      appVersion: '0.0.0-test',
      // Fast connectivity checks: the service's return is noticed within a second or two.
      connectivity: {
        pollIntervalMs: 100,
        activeOnlineMs: 300,
        activeOfflineMs: 300,
        recheckOnlineMs: 300,
        recheckOfflineMs: 300,
      },
      ports: {
        desktop: {
          saveFile: async (_name: string, bytes: Buffer) => {
            savedBundles.push(bytes)
            return '/tmp/bundle.zip'
          },
        },
      },
    }),
  })
  return manager
}

async function api<M extends MethodName>(
  m: ProfileManager,
  method: M,
  argument?: MethodInput<M>,
): Promise<MethodOutput<M>> {
  const result = await call(m.handlers, method, argument)
  if (!result.ok) throw new Error(`${method} failed: ${result.error.code} ${result.error.message}`)
  return result.value
}

async function connect(m: ProfileManager, service: RunningService): Promise<void> {
  await api(m, 'saveConnection', {
    baseUrl: service.url,
    auth: { kind: 'apiKey', apiKey: service.credentials.apiKey, apiSecret: service.credentials.apiSecret },
  })
  const report = await api(m, 'syncNow', {})
  expect(report.ok).toBe(true)
}

async function queueOrder(m: ProfileManager): Promise<string> {
  const target = findOrderable(m.onScreen().core.db)
  const check = await api(m, 'createDraft', { customerGuid: target.customerGuid, catalogGuid: target.catalogGuid })
  await api(m, 'addDraftLines', { id: check.draft.id, lines: target.skus.map((sku) => ({ sku, qty: 1 })) })
  return (await api(m, 'sendDraft', { id: check.draft.id })).apiGuid
}

const posts = (service: RunningService, apiGuid: string) =>
  service.control
    .requestLog()
    .filter((entry) => entry.route === orderRoute && JSON.stringify(entry.body ?? {}).includes(apiGuid))

describe('profiles', () => {
  it(
    'an order queued offline in each profile is sent exactly once to its own double, the other profile on screen',
    { timeout: 90_000 },
    async () => {
      const first = await startService({ size: 'tiny', seed: 21 })
      const second = await startService({ size: 'tiny', seed: 33 })
      services = [first, second]
      const m = start()
      const events: SatchelEvent[] = []
      m.events.subscribe((event) => events.push(event))
      await connect(m, first)
      const mainId = m.onScreen().profile.id
      const added = await m.add('Second')
      const secondId = added.profiles.find((profile) => profile.name === 'Second')!.id
      await api(m, 'switchProfile', { id: secondId })
      await connect(m, second)

      // Both doubles go away; an order is queued in each profile.
      const ports = services.map((service) => Number(new URL(service.url).port))
      await first.close()
      await second.close()
      const secondOrder = await queueOrder(m)
      await api(m, 'switchProfile', { id: mainId })
      const mainOrder = await queueOrder(m)
      await until(
        () => m.list().profiles.every((profile) => profile.unsent === 1),
        'both orders wait to be retried',
        patient,
      )
      expect(m.openCores()).toHaveLength(2)
      expect(m.onScreen().profile.id).toBe(mainId)
      // Every open profile's syncs, as their schedulers announce them: never two at once (a run is
      // announced once it has its turn).
      let running = 0
      let most = 0
      let started = 0
      for (const core of m.openCores()) {
        core.events.subscribe((event) => {
          if (event.name !== 'syncStatusChanged') return
          if (event.payload.running) {
            running++
            started++
          } else running = Math.max(0, running - 1)
          most = Math.max(most, running)
        })
      }
      // Both profiles asked to sync at once (each fails: its service is away): one runs, then the other.
      await until(() => m.openCores().every((core) => !core.sync.scheduler.isRunning()), 'no sync running', patient)
      await Promise.allSettled(m.openCores().map((core) => core.sync.scheduler.syncNow()))
      expect(started).toBe(2)
      expect(most).toBe(1)

      // The doubles come back on their addresses; the second profile stays off screen.
      services = [
        await startService({ size: 'tiny', seed: 21, port: ports[0]! }),
        await startService({ size: 'tiny', seed: 33, port: ports[1]! }),
      ]
      const [firstAgain, secondAgain] = services as [RunningService, RunningService]
      await until(
        () =>
          firstAgain.control.ordersByApiGuid(mainOrder).length === 1 &&
          secondAgain.control.ordersByApiGuid(secondOrder).length === 1,
        'both orders sent',
        patient,
      )
      await until(() => m.list().profiles.every((profile) => profile.unsent === 0), 'the counts say so', patient)
      expect(m.onScreen().profile.id).toBe(mainId)
      expect(posts(firstAgain, mainOrder)).toHaveLength(1)
      expect(posts(secondAgain, secondOrder)).toHaveLength(1)
      expect(firstAgain.control.ordersByApiGuid(secondOrder)).toHaveLength(0)
      expect(secondAgain.control.ordersByApiGuid(mainOrder)).toHaveLength(0)
      // The background profile had nothing left to send, so its core closed.
      await until(() => m.openCores().length === 1, 'the background core closed', patient)
      // The window heard only the profile on screen's outbox, and the profiles' counts.
      expect(events.some((event) => event.name === 'profilesChanged')).toBe(true)
    },
  )

  it(
    'an order the CLI queues into a profile not on screen, and not open, is sent by the app’s background flush, once, to its own double; one queued into the profile on screen too',
    { timeout: 90_000 },
    async () => {
      const first = await startService({ size: 'tiny', seed: 21 })
      const second = await startService({ size: 'tiny', seed: 33 })
      services = [first, second]
      const m = start({ outboxCheckMs: 300 })
      await connect(m, first)
      const mainId = m.onScreen().profile.id
      const secondId = (await m.add('Second')).profiles.find((profile) => profile.name === 'Second')!.id
      await api(m, 'switchProfile', { id: secondId })
      await connect(m, second)
      const target = findOrderable(m.onScreen().core.db)
      await api(m, 'switchProfile', { id: mainId })
      // Nothing waits in Second: its core is closed, and only the profile on screen is open.
      await until(() => m.openCores().length === 1, 'only the profile on screen open', patient)

      const draft = join(dataDir, 'cli-draft.json')
      writeFileSync(
        draft,
        JSON.stringify({
          customerGuid: target.customerGuid,
          catalogGuid: target.catalogGuid,
          lines: target.skus.map((sku) => ({ sku, qty: 1 })),
        }),
      )
      const queued = await cli(['order', 'queue', '--profile', 'Second', '--file', draft, '--json'], {
        SATCHEL_DATA_DIR: dataDir,
      })
      expect(queued.code).toBe(0)
      const { apiGuid } = json(queued) as { apiGuid: string }

      await until(
        () => second.control.ordersByApiGuid(apiGuid).length === 1,
        'the CLI’s order sent to the second double',
        patient,
      )
      expect(m.onScreen().profile.id).toBe(mainId)
      await until(() => m.list().profiles.every((profile) => profile.unsent === 0), 'the counts say so', patient)
      // A few more checks go by: nothing is sent again, and nothing went to the other supplier.
      await new Promise((resolve) => setTimeout(resolve, 1000))
      expect(posts(second, apiGuid)).toHaveLength(1)
      expect(first.control.ordersByApiGuid(apiGuid)).toHaveLength(0)
      await until(() => m.openCores().length === 1, 'the background core closed again', patient)

      // Into the profile on screen, whose core is open: its driver is told to send, without waiting for a sync's end.
      const mainTarget = findOrderable(m.onScreen().core.db)
      writeFileSync(
        draft,
        JSON.stringify({
          customerGuid: mainTarget.customerGuid,
          catalogGuid: mainTarget.catalogGuid,
          lines: mainTarget.skus.map((sku) => ({ sku, qty: 1 })),
        }),
      )
      const onScreen = json(
        await cli(['order', 'queue', '--profile', 'Main', '--file', draft, '--json'], { SATCHEL_DATA_DIR: dataDir }),
      ) as { apiGuid: string }
      await until(
        () => first.control.ordersByApiGuid(onScreen.apiGuid).length === 1,
        'the CLI’s order sent to the first double',
        patient,
      )
      await new Promise((resolve) => setTimeout(resolve, 1000))
      expect(posts(first, onScreen.apiGuid)).toHaveLength(1)
      expect(second.control.ordersByApiGuid(onScreen.apiGuid)).toHaveLength(0)
    },
  )

  it('the profile on screen answers every call; switching reads the other database; removal is refused while orders wait', async () => {
    const first = await startService({ size: 'tiny', seed: 21 })
    services = [first]
    const m = start()
    await connect(m, first)
    const mainId = m.onScreen().profile.id
    const secondId = (await api(m, 'addProfile', { name: 'Empty' })).profiles.find(
      (profile) => profile.name === 'Empty',
    )!.id
    expect((await api(m, 'listCatalogs')).length).toBeGreaterThan(0)
    const listed = await api(m, 'switchProfile', { id: secondId })
    expect(listed.profiles.map((profile) => [profile.name, profile.onScreen])).toEqual([
      ['Main', false],
      ['Empty', true],
    ])
    expect(await api(m, 'listCatalogs')).toEqual([])
    expect(await api(m, 'getConnection')).toBeNull()
    await api(m, 'switchProfile', { id: mainId })

    await first.close()
    await queueOrder(m)
    const onScreen = await call(m.handlers, 'removeProfile', { id: mainId })
    expect(onScreen).toMatchObject({ ok: false, error: { code: 'CONFLICT' } })
    await api(m, 'switchProfile', { id: secondId })
    const refused = await call(m.handlers, 'removeProfile', { id: mainId })
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT', message: expect.stringContaining('1 unsent order') },
    })
    expect(readdirSync(dataDir)).toContain('satchel.db')

    await api(m, 'switchProfile', { id: mainId })
    // The support bundle names every profile with its counts; its other files are the profile on screen's.
    await api(m, 'exportSupportBundle')
    const bundle = unzipSync(new Uint8Array(savedBundles.at(-1)!))
    expect(JSON.parse(strFromU8(bundle['profiles.json']!))).toEqual([
      {
        name: 'Main',
        supplier: new URL(first.url).origin,
        unsent: 1,
        needsAttention: 0,
        inThisBundle: true,
        folder: 'profiles/1-main/',
      },
      { name: 'Empty', supplier: null, unsent: 0, needsAttention: 0, inThisBundle: false, folder: 'profiles/2-empty/' },
    ])

    const removed = await api(m, 'removeProfile', { id: secondId })
    expect(removed.profiles.map((profile) => profile.name)).toEqual(['Main'])
    expect(readdirSync(dataDir).filter((name) => name.startsWith('profile-'))).toEqual([])
  })
})

/**
 * Two suppliers on one laptop for the browser specs: two doubles, a profile manager with a profile
 * connected and synced to each (Main on screen), and the bridge serving the manager's handlers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call } from '../../src/main/core/handlers'
import { createMemoryKeychain } from '../../src/main/ports'
import { createProfileManager, type ProfileManager } from '../../src/main/profiles/manager'
import type { MethodName } from '../../src/shared/channels'
import type { MethodInput, MethodOutput } from '../../src/shared/contract'
import { startBridge, type Bridge } from '../bridge/server'
import { findOrderable, type Orderable } from '../support/orderable'
import { rendererDir, startServiceHandle, type ServiceHandle } from './harness'

export interface ProfilesWorld {
  manager: ProfileManager
  bridge: Bridge
  main: { id: string; service: ServiceHandle }
  second: { id: string; service: ServiceHandle }
  api<M extends MethodName>(method: M, argument?: MethodInput<M>): Promise<MethodOutput<M>>
  /** An orderable customer and items in the profile on screen. */
  orderable(): Orderable
  close(): Promise<void>
}

export async function startProfilesWorld(): Promise<ProfilesWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-profiles-e2e-'))
  const mainService = await startServiceHandle({ seed: 21 })
  const secondService = await startServiceHandle({ seed: 33 })
  const manager = createProfileManager({
    dataDir,
    secrets: createMemoryKeychain(),
    coreConfig: () => ({ appVersion: '0.1.0-e2e', backgroundSync: false }),
  })
  const api = async <M extends MethodName>(method: M, argument?: MethodInput<M>): Promise<MethodOutput<M>> => {
    const result = await call(manager.handlers, method, argument)
    if (!result.ok) throw new Error(`${method} failed: ${result.error.code} ${result.error.message}`)
    return result.value
  }
  const connect = async (service: ServiceHandle) => {
    const { apiKey, apiSecret } = service.current.credentials
    await api('saveConnection', { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
    const report = await api('syncNow', {})
    if (!report.ok) throw new Error(`first sync failed: ${JSON.stringify(report.error)}`)
  }
  await connect(mainService)
  const mainId = manager.onScreen().profile.id
  const secondId = (await api('addProfile', { name: 'Coastal' })).profiles.find(
    (profile) => profile.name === 'Coastal',
  )!.id
  await api('switchProfile', { id: secondId })
  await connect(secondService)
  await api('switchProfile', { id: mainId })
  const bridge = await startBridge({ handlers: manager.handlers, events: manager.events, rendererDir })
  return {
    manager,
    bridge,
    main: { id: mainId, service: mainService },
    second: { id: secondId, service: secondService },
    api,
    orderable: () => findOrderable(manager.onScreen().core.db),
    async close() {
      await bridge.close()
      await manager.close()
      await mainService.close()
      await secondService.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

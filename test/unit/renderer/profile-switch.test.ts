import { createPinia, setActivePinia } from 'pinia'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createApp } from 'vue'
import type { SatchelEvent } from '../../../src/shared/contract'
import type { ProfileSummary } from '../../../src/shared/profiles'

/**
 * A profile switch in the renderer: every store goes back to its first state (nothing of one
 * supplier stays on screen under another's name), what stores keep outside their state is forgotten,
 * and the profiles store keeps the list. Against a fake core behind window.satchel.
 */
const profile = (id: string, onScreen: boolean, unsent = 0): ProfileSummary => ({
  id,
  name: id,
  supplier: null,
  unsent,
  needsAttention: 0,
  onScreen,
})
const calls: string[] = []
let listeners: ((event: SatchelEvent) => void)[] = []

const fake = {
  listProfiles: async () => ({ ok: true, value: { profiles: [profile('main', true), profile('coastal', false, 2)] } }),
  switchProfile: async ({ id }: { id: string }) => (
    calls.push(`switchProfile ${id}`),
    { ok: true, value: { profiles: [profile('main', id === 'main'), profile('coastal', id === 'coastal', 2)] } }
  ),
  getOutboxSummary: async () => ({
    ok: true,
    value: { queued: 3, sending: 0, retrying: 0, needsAttention: 1, sent: 0, pausedReason: null },
  }),
  onEvent(listener: (event: SatchelEvent) => void) {
    listeners.push(listener)
    return () => (listeners = listeners.filter((other) => other !== listener))
  },
}

let stores: {
  useProfilesStore: typeof import('../../../src/renderer/src/stores/profiles').useProfilesStore
  useOutboxStore: typeof import('../../../src/renderer/src/stores/outbox').useOutboxStore
  profileResetPlugin: typeof import('../../../src/renderer/src/stores/profile-reset').profileResetPlugin
  onProfileReset: typeof import('../../../src/renderer/src/stores/profile-reset').onProfileReset
}

beforeAll(async () => {
  vi.stubGlobal('window', { satchel: fake })
  const [profiles, outbox, reset] = await Promise.all([
    import('../../../src/renderer/src/stores/profiles'),
    import('../../../src/renderer/src/stores/outbox'),
    import('../../../src/renderer/src/stores/profile-reset'),
  ])
  stores = {
    useProfilesStore: profiles.useProfilesStore,
    useOutboxStore: outbox.useOutboxStore,
    profileResetPlugin: reset.profileResetPlugin,
    onProfileReset: reset.onProfileReset,
  }
})

beforeEach(() => {
  listeners = []
  calls.length = 0
  // Pinia applies plugins once it is installed in an app, as main.ts does.
  const pinia = createPinia().use(stores.profileResetPlugin)
  createApp({}).use(pinia)
  setActivePinia(pinia)
})

describe('a profile switch in the renderer', () => {
  it('puts every store back to its first state and forgets caches; the profiles store keeps the new list', async () => {
    const profiles = stores.useProfilesStore()
    const outbox = stores.useOutboxStore()
    await profiles.load()
    await outbox.loadSummary()
    expect(outbox.summary?.queued).toBe(3)
    const forgotten: string[] = []
    stores.onProfileReset(() => forgotten.push('cache'))

    await profiles.switchTo('coastal')

    expect(calls).toEqual(['switchProfile coastal'])
    expect(outbox.summary).toBeNull()
    expect(forgotten).toEqual(['cache'])
    expect(profiles.onScreen?.id).toBe('coastal')
    expect(profiles.profiles.map((one) => [one.id, one.unsent])).toEqual([
      ['main', 0],
      ['coastal', 2],
    ])
    expect(profiles.epoch).toBe(1)
  })

  it('the counts follow profilesChanged', async () => {
    const profiles = stores.useProfilesStore()
    await profiles.load()
    for (const listener of listeners)
      listener({
        name: 'profilesChanged',
        payload: { profiles: [profile('main', true, 1), profile('coastal', false, 0)] },
      })
    expect(profiles.profiles.map((one) => one.unsent)).toEqual([1, 0])
    expect(profiles.epoch).toBe(0)
  })

  it('a switch made outside this window (the demo connecting its profiles) is followed: nothing of the one before stays', async () => {
    const profiles = stores.useProfilesStore()
    const outbox = stores.useOutboxStore()
    await profiles.load()
    await outbox.loadSummary()
    for (const listener of listeners)
      listener({
        name: 'profilesChanged',
        payload: { profiles: [profile('main', false), profile('coastal', true, 2)] },
      })
    expect(profiles.onScreen?.id).toBe('coastal')
    expect(outbox.summary).toBeNull()
    expect(profiles.epoch).toBe(1)
  })
})
